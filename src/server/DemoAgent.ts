/**
 * A demo agent that shows every shape of interaction:
 * - any text: echoed back as a direct Message;
 * - "task ...": a task worked in steps, streaming an artifact in chunks, then completed;
 * - "ask ...": asks for input (input-required); the answer, sent with the task id, completes the task;
 * - "slow ...": works for a long time in small steps, to try CancelTask (its finalizer records the stop);
 * - "fail ...": the agent fails, and the task ends FAILED.
 *
 * @example
 * ```ts
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 *
 * // the agent `effect-a2a serve` runs: echoes, reports as streamed artifacts, asks, fails on request
 * const demo = A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { CardTemplate } from "./AgentCardConfig.ts"
import * as AgentExecutor from "./AgentExecutor.ts"
import type { RequestContext } from "./RequestContext.ts"
import type * as TaskUpdater from "./TaskUpdater.ts"

/**
 * What the demo agent is made with.
 *
 * @since 0.1.0
 * @category models
 */
export interface DemoOptions {
  /** Pause between the steps of "task" and "slow". Default 200 millis. */
  readonly stepDelay?: Duration.Duration | undefined
  /** Steps of "slow". Default 600. */
  readonly slowSteps?: number | undefined
  /** Called when a "slow" task stops (finished or interrupted): lets tests and logs see the finalizer run. */
  readonly onSlowStopped?: ((taskId: string) => Effect.Effect<void>) | undefined
}

const keyword = (text: string): string => text.trim().split(/\s+/, 1)[0]?.toLowerCase() ?? ""

/**
 * The demo agent: answers as the first word of its message says, to try every kind of answer from a client.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: DemoOptions = {}): AgentExecutor.AgentExecutor["Service"] => {
  const delay = options.stepDelay ?? Duration.millis(200)
  const slowSteps = options.slowSteps ?? 600

  // Each agent's generator function is made once, here, not per task (see AgentExecutor.task).
  const multiStep = AgentExecutor.task(Effect.fnUntraced(function*(task) {
    yield* task.working("Working on it: step 1 of 3")
    yield* Effect.sleep(delay)
    yield* task.working("Step 2 of 3: writing the result")
    const artifactId = yield* task.artifact({ name: "result", parts: [{ text: "Chunk 1. " }] }, { lastChunk: false })
    yield* Effect.sleep(delay)
    yield* task.artifact({ artifactId, parts: [{ text: "Chunk 2. " }] }, { append: true, lastChunk: false })
    yield* Effect.sleep(delay)
    yield* task.artifact({ artifactId, parts: [{ text: "Chunk 3." }] }, { append: true, lastChunk: true })
    yield* task.complete("Done: step 3 of 3")
  }))

  const greet = Effect.fnUntraced(function*(task: TaskUpdater.TaskUpdater, context: RequestContext) {
    const name = AgentExecutor.textOf(context.message).trim()
    yield* task.artifact({ name: "greeting", parts: [{ text: `Hello, ${name}!` }] })
    yield* task.complete(`Nice to meet you, ${name}.`)
  })
  const askName = AgentExecutor.task((task, context) =>
    Option.isNone(context.task) ? task.requireInput("What is your name?") : greet(task, context)
  )

  const slow = AgentExecutor.task(Effect.fnUntraced(
    function*(task) {
      for (let step = 1; step <= slowSteps; step++) {
        yield* task.working(`Slow step ${step} of ${slowSteps}`)
        yield* Effect.sleep(delay)
      }
      yield* task.complete("Slow work finished")
    },
    (work, task) => Effect.ensuring(work, options.onSlowStopped?.(task.taskId) ?? Effect.void)
  ))

  // An expected failure: the task ends FAILED with a reason, and nothing is logged as an error.
  const failing = AgentExecutor.task((task) =>
    task.working("About to fail").pipe(
      Effect.andThen(task.fail("Agent failed: the demo agent failed on purpose"))
    )
  )

  const echo = AgentExecutor.replyWithText((text) => `Echo: ${text}`)

  return AgentExecutor.make((context) => {
    // A continued task goes back to the flow that created it (here only "ask" asks for more input).
    if (Option.isSome(context.task)) return askName.execute(context)
    switch (keyword(AgentExecutor.textOf(context.message))) {
      case "task":
        return multiStep.execute(context)
      case "ask":
        return askName.execute(context)
      case "slow":
        return slow.execute(context)
      case "fail":
        return failing.execute(context)
      default:
        return echo.execute(context)
    }
  })
}

/**
 * The demo agent as the server's AgentExecutor.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: DemoOptions): Layer.Layer<AgentExecutor.AgentExecutor> =>
  AgentExecutor.layer(make(options))

/**
 * The demo with its pacing from configuration: `A2A_DEMO_STEP_DELAY` (default "200 millis").
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<AgentExecutor.AgentExecutor, Config.ConfigError> = AgentExecutor.layer(
  Effect.map(
    Config.Duration("A2A_DEMO_STEP_DELAY").pipe(Config.withDefault(Duration.millis(200))),
    (stepDelay) => make({ stepDelay })
  )
)

/**
 * The demo agent's card (the bindings add the interfaces).
 *
 * @since 0.1.0
 * @category utils
 */
export const card: CardTemplate = {
  name: "effect-a2a demo agent",
  description: "Echoes text; 'task' works in steps and streams an artifact, 'ask' asks for input, " +
    "'slow' runs until canceled, 'fail' fails.",
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [
    { id: "echo", name: "Echo", description: "Replies with the text it receives", tags: ["demo"], examples: ["hi"] },
    {
      id: "task",
      name: "Multi-step task",
      description: "Works on a task in steps and streams an artifact in chunks",
      tags: ["demo", "streaming"],
      examples: ["task write a report"]
    },
    {
      id: "ask",
      name: "Multi-turn",
      description: "Asks for input (input-required) and completes with the answer",
      tags: ["demo", "multi-turn"],
      examples: ["ask"]
    },
    {
      id: "slow",
      name: "Slow task",
      description: "Works for a long time; cancel it with CancelTask",
      tags: ["demo", "cancel"],
      examples: ["slow"]
    }
  ]
}
