/**
 * Test support for the RequestHandler suite: a scripted agent whose steps the test controls (gates), a server
 * layer over any TaskStore / PushConfigStore, and small request builders.
 */
import { type Cause, Context, Deferred, Effect, Fiber, Layer, Option, Queue, Ref, Stream } from "effect"
import { ContentTypeNotSupported } from "../../src/protocol/A2AError.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import type { AgentCardOptions, CardTemplate } from "../../src/server/AgentCardConfig.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as CallContext from "../../src/server/CallContext.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as PushNotifier from "../../src/server/PushNotifier.ts"
import type { RequestHandler } from "../../src/server/RequestHandler.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"

let counter = 0
export const uniqueId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

/** What the scripted agent lets a test observe and steer. */
export class Controls extends Context.Service<Controls, {
  /** Opens the gate of that name (the agent waits on it). */
  readonly open: (name: string) => Effect.Effect<void>
  /** Task ids of agents that reached their "hang" point, in order. */
  readonly hanging: Queue.Queue<string>
  /** Task ids whose agent finalizer ran. */
  readonly finalized: Ref.Ref<ReadonlyArray<string>>
  /** Push events seen by the notifier. */
  readonly pushed: Ref.Ref<ReadonlyArray<PushNotifier.PushEvent>>
  readonly gate: (name: string) => Effect.Effect<void>
}>()("test/Controls") {
  static readonly layer = Layer.effect(
    Controls,
    Effect.gen(function*() {
      const gates = new Map<string, Deferred.Deferred<void>>()
      const gateOf = (name: string) =>
        Effect.suspend(() => {
          const existing = gates.get(name)
          if (existing !== undefined) return Effect.succeed(existing)
          return Effect.map(Deferred.make<void>(), (d) => {
            gates.set(name, d)
            return d
          })
        })
      return Controls.of({
        open: (name) => Effect.flatMap(gateOf(name), (d) => Deferred.succeed(d, undefined)),
        gate: (name) => Effect.flatMap(gateOf(name), Deferred.await),
        hanging: yield* Queue.unbounded<string>(),
        finalized: yield* Ref.make<ReadonlyArray<string>>([]),
        pushed: yield* Ref.make<ReadonlyArray<PushNotifier.PushEvent>>([])
      })
    })
  )
}

const words = (message: v1.Message) => AgentExecutor.textOf(message).trim().split(/\s+/)

/**
 * The scripted agent. The first word of the message picks the script:
 * echo | complete | ask | gate <name> | steps <name> | burst <n> <name> | hang | fail | die | fail-early |
 * fail-plain | other-task | unspecified | nothing | stall | message-then-more | linger | tenant
 */
export const scriptedAgent = (options: { readonly readAsStream?: boolean | undefined } = {}) =>
  Effect.map(Controls, (controls) => {
    const agent = script(controls)
    // A stream derived from the agent's loses its push-style producer: the runner then pulls it as a stream.
    return options.readAsStream === true
      ? AgentExecutor.make((ctx) => Stream.suspend(() => agent(ctx)))
      : AgentExecutor.make(agent)
  })

const script = (controls: Controls["Service"]) => (ctx: AgentExecutor.RequestContext) => {
  const [script = "", arg1, arg2] = words(ctx.message)
  const task = (work: Parameters<typeof AgentExecutor.task>[0]) => AgentExecutor.task(work).execute(ctx)
  if (Option.isSome(ctx.task)) {
    // Continuations: "ask" tasks complete with the answer; "slow-continue" hangs until its gate opens.
    if (script === "busy") return task((t) => controls.gate("busy").pipe(Effect.andThen(t.complete("ok"))))
    if (script === "hold") {
      return task((t) =>
        t.working("holding").pipe(
          Effect.andThen(controls.gate(arg1 ?? "hold")),
          Effect.andThen(t.requireInput("next?"))
        )
      )
    }
    if (script === "chat") return AgentExecutor.replyWithText((text) => `chat: ${text}`).execute(ctx)
    return task((t) =>
      Effect.gen(function*() {
        yield* t.artifact({ artifactId: "answer", parts: [{ text: `answer: ${words(ctx.message).join(" ")}` }] })
        yield* t.complete(`Thanks for: ${words(ctx.message).join(" ")}`)
      })
    )
  }
  switch (script) {
    case "echo":
      return AgentExecutor.replyWithText((text) => `echo: ${text}`).execute(ctx)
    case "modes":
      // Says which output modes the client accepts, as an agent tailoring its output would read them.
      return AgentExecutor.replyWithText(() => `modes: ${(ctx.configuration?.acceptedOutputModes ?? []).join(",")}`)
        .execute(ctx)
    case "tenant":
      // Says which tenant the request context names, and waits for input (a task that stays open).
      return task((t) => t.requireInput(`tenant=${ctx.tenant}`))
    case "complete":
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("working")
          yield* t.artifact({ artifactId: "a1", name: "result", parts: [{ text: "result" }] })
          yield* t.complete("done")
        })
      )
    case "ask":
      return task((t) => t.requireInput("What next?"))
    case "gate":
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("waiting")
          yield* controls.gate(arg1 ?? "gate")
          yield* t.complete("released")
        })
      )
    case "steps":
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("step 0")
          yield* controls.gate(`${arg1}-1`)
          yield* t.artifact({ artifactId: "s", parts: [{ text: "s1" }] }, { lastChunk: false })
          yield* t.working("step 1")
          yield* t.artifact({ artifactId: "s", parts: [{ text: "s2" }] }, { append: true, lastChunk: true })
          yield* controls.gate(`${arg1}-2`)
          yield* t.complete("all steps done")
        })
      )
    case "burst": {
      const n = Number(arg1 ?? "50")
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("bursting")
          for (let i = 1; i <= n; i++) {
            yield* t.artifact({ artifactId: "b", parts: [{ text: String(i) }] }, { append: i > 1 })
            if (i % 5 === 0) yield* Effect.yieldNow
          }
          yield* controls.gate(arg2 ?? "burst")
          yield* t.complete("burst done")
        })
      )
    }
    case "hang":
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("hanging")
          yield* Queue.offer(controls.hanging, t.taskId)
          return yield* Effect.never
        }).pipe(Effect.ensuring(Ref.update(controls.finalized, (ids) => [...ids, t.taskId])))
      )
    case "linger":
      // Works on after its final state: the runner stops it there, and its finalizer runs.
      return task((t) =>
        t.complete("done").pipe(
          Effect.andThen(Effect.never),
          Effect.ensuring(Ref.update(controls.finalized, (ids) => [...ids, t.taskId]))
        )
      )
    case "fail":
      return task((t) => t.working("about to fail").pipe(Effect.andThen(Effect.fail(new Error("boom")))))
    case "die":
      return task((t) => t.working("about to die").pipe(Effect.andThen(Effect.die(new Error("kaboom")))))
    case "fail-early":
      return Stream.fail(new ContentTypeNotSupported({ message: "no images please" }))
    case "fail-plain":
      return Stream.fail(new Error("plain failure"))
    case "talk":
      // A task, then a message to the client (not an update): the turn ends waiting for the client's answer.
      return Stream.make<ReadonlyArray<AgentExecutor.AgentEvent>>(
        { task: { id: ctx.taskId, contextId: ctx.contextId, status: { state: "TASK_STATE_SUBMITTED" } } },
        { statusUpdate: { taskId: ctx.taskId, contextId: ctx.contextId, status: { state: "TASK_STATE_WORKING" } } },
        { message: { messageId: "talk-1", role: "ROLE_AGENT", parts: [{ text: "which one?" }] } }
      )
    case "other-task":
      return Stream.make<ReadonlyArray<AgentExecutor.AgentEvent>>(
        { task: { id: ctx.taskId, contextId: ctx.contextId, status: { state: "TASK_STATE_SUBMITTED" } } },
        {
          statusUpdate: { taskId: "someone-else", contextId: ctx.contextId, status: { state: "TASK_STATE_WORKING" } }
        },
        { statusUpdate: { taskId: ctx.taskId, contextId: ctx.contextId, status: { state: "TASK_STATE_COMPLETED" } } }
      )
    case "unspecified":
      return Stream.make<ReadonlyArray<AgentExecutor.AgentEvent>>(
        {
          statusUpdate: { taskId: ctx.taskId, contextId: ctx.contextId, status: { state: "TASK_STATE_UNSPECIFIED" } }
        }
      )
    case "nothing":
      return Stream.empty
    case "stall":
      return Stream.make<ReadonlyArray<AgentExecutor.AgentEvent>>(
        { statusUpdate: { taskId: ctx.taskId, contextId: ctx.contextId, status: { state: "TASK_STATE_WORKING" } } }
      )
    case "busy":
      return task((t) => t.requireInput("say busy again"))
    default:
      return AgentExecutor.replyWithText((text) => `default: ${text}`).execute(ctx)
  }
}

export const baseCard: CardTemplate = {
  name: "test agent",
  description: "scripted agent for the handler tests",
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ["text/plain", "application/json"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "script", description: "runs scripts", tags: ["test"] }]
}

/**
 * The server core for one test over the stores in context: scripted agent, in-process bus, a notifier that
 * records into Controls, and the given card.
 */
export const serverLayer = (
  options: Partial<AgentCardOptions> & {
    readonly slowReads?: boolean
    /** Read every agent as a stream, never through its push-style producer. */
    readonly readAsStream?: boolean | undefined
  } = {}
) =>
  A2AServer.layerCore({ card: options.card ?? baseCard, extendedCard: options.extendedCard }).pipe(
    Layer.provide(options.slowReads === true ? slowReads : Layer.empty),
    Layer.provide(AgentExecutor.layer(scriptedAgent({ readAsStream: options.readAsStream }))),
    Layer.provide(EventBus.layerInProcess),
    Layer.provide(Layer.effect(
      PushNotifier.PushNotifier,
      Controls.useSync((c) => ({
        notify: (event: PushNotifier.PushEvent) => Ref.update(c.pushed, (all) => [...all, event])
      }))
    )),
    Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
    Layer.provideMerge(Controls.layer)
  )

/**
 * The TaskStore in context, with reads that yield to other fibers first: events get published between a
 * subscriber's subscription and its snapshot read, the window the sequence numbers must close.
 */
const slowReads = Layer.effect(
  TaskStore,
  TaskStore.useSync((store) =>
    TaskStore.of({
      ...store,
      get: (taskId, scope) =>
        Effect.gen(function*() {
          for (let i = 0; i < 25; i++) yield* Effect.yieldNow
          return yield* store.get(taskId, scope)
        })
    })
  )
)

export const principal = (id = uniqueId("user")): Auth.Principal => ({ id, anonymous: false })

export const ctxFor = (p: Auth.Principal = principal(), extra: Partial<CallContext.CallContext> = {}) =>
  CallContext.make({ principal: p, ...extra })

export const userMessage = (
  text: string,
  options: { readonly taskId?: string; readonly contextId?: string; readonly parts?: ReadonlyArray<v1.Part> } = {}
): v1.Message => ({
  messageId: uniqueId("m"),
  role: "ROLE_USER",
  parts: options.parts ?? [{ text }],
  ...(options.taskId !== undefined ? { taskId: options.taskId } : {}),
  ...(options.contextId !== undefined ? { contextId: options.contextId } : {})
})

export const send = (
  text: string,
  options: {
    readonly taskId?: string
    readonly contextId?: string
    readonly configuration?: v1.SendMessageConfiguration
    readonly parts?: ReadonlyArray<v1.Part>
    readonly tenant?: string
  } = {}
): v1.SendMessageRequest => ({
  message: userMessage(text, options),
  ...(options.configuration !== undefined ? { configuration: options.configuration } : {}),
  ...(options.tenant !== undefined ? { tenant: options.tenant } : {})
})

/** The task of a SendMessage response, or a defect (tests expect a task). */
export const taskOf = (response: v1.SendMessageResponse): Effect.Effect<v1.Task> =>
  "task" in response ? Effect.succeed(response.task) : Effect.die(`expected a task, got ${JSON.stringify(response)}`)

export type Handler = RequestHandler["Service"]

export const stateOf = (event: v1.StreamResponse): string =>
  "task" in event
    ? `task:${event.task.status.state}`
    : "statusUpdate" in event
    ? `status:${event.statusUpdate.status.state}`
    : "artifactUpdate" in event
    ? `artifact:${event.artifactUpdate.artifact.parts.map((p) => ("text" in p ? p.text : "?")).join("")}`
    : "message"

/**
 * Subscribes and waits for the first event (the snapshot), so the subscription is known to be live; the
 * rest is collected by a fiber. Returns the first event and an effect yielding the whole sequence.
 */
export const subscribeLive = (handler: Handler, id: string, ctx: CallContext.CallContext) =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<v1.StreamResponse, Cause.Done>()
    const fiber = yield* handler.subscribeToTask({ id }, ctx).pipe(
      Stream.runForEach((e) => Queue.offer(queue, e)),
      Effect.ensuring(Queue.end(queue)),
      Effect.forkChild
    )
    const first = yield* Queue.take(queue).pipe(
      Effect.catch(() => Effect.flatMap(Fiber.join(fiber), () => Effect.die("subscription ended without events")))
    )
    const all = Effect.map(Stream.runCollect(Stream.fromQueue(queue)), (rest) => [first, ...rest])
    return { first, all: Effect.tap(all, () => Fiber.join(fiber)) }
  })
