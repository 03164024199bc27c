/**
 * The user's agent. Given the context of one SendMessage it returns a Stream of agent events: one Message
 * (a direct reply), or a Task followed by status and artifact updates (a bare update first also works: the
 * server then creates the task). A turn ends at a terminal or interrupted state, or at a Message; the server
 * reads no further. A Message sent once the task exists is the agent asking the client something: it becomes the
 * status message of an INPUT_REQUIRED update (and joins the history), so the wire always reads a Task, then
 * updates. CancelTask interrupts the stream's fiber, so the agent's finalizers run: cancellation is Effect
 * interruption, never a flag.
 *
 * Failing the stream with an A2AError before any event answers the client with that error; any other
 * failure, or a failure after the task exists, ends the task FAILED.
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // a direct reply, or a task with status updates and artifacts
 * const echo = AgentExecutor.replyWithText((text) => `You said: ${text}`)
 * const writer = AgentExecutor.task(Effect.fnUntraced(function*(task, ctx) {
 *   yield* task.working("Writing...")
 *   yield* task.artifact({ name: "report", parts: [{ text: `A report on ${AgentExecutor.textOf(ctx.message)}` }] })
 * }))
 * ```
 *
 * Write an agent's steps with `Effect.fn` / `Effect.fnUntraced` rather than an `Effect.gen` inside the callback:
 * the generator function is then made once, not once per message. V8 keeps the generators of a generator function
 * made per call alive through its young-generation collections, and with them everything they reach (the request,
 * its task, the execution), until the next full collection: on a loaded server that was most of what each
 * collection copied, and its pauses set the tail latency.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type * as v1 from "../protocol/generated/v1.ts"
import type { AgentEvent } from "./AgentEvent.ts"
import * as Ids from "./internal/Ids.ts"
import * as StreamSources from "./internal/StreamSources.ts"
import type { RequestContext } from "./RequestContext.ts"
import * as TaskUpdater from "./TaskUpdater.ts"

export type { AgentEvent } from "./AgentEvent.ts"
export type { RequestContext } from "./RequestContext.ts"

/**
 * The agent: given a request context, the stream of events it emits for one message.
 *
 * @since 0.1.0
 * @category services
 */
export class AgentExecutor extends Context.Service<AgentExecutor, {
  /** Runs the agent on one request: its events, in order, until the turn ends. */
  readonly execute: (context: RequestContext) => Stream.Stream<AgentEvent, unknown>
  /**
   * Whether a turn may run again from its start on another node when the node running it is lost (several nodes
   * with the cluster engine): true for an agent whose turn has no effect a second run would repeat, or one that
   * keeps what it needs (the LLM bridge's agents keep their conversation). Otherwise (the default) a turn lost
   * with its node leaves its task FAILED.
   */
  readonly restartable?: boolean | undefined
}>()("effect-a2a/server/AgentExecutor") {}

/**
 * An executor from its execute function.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  execute: (context: RequestContext) => Stream.Stream<AgentEvent, unknown>,
  options?: { readonly restartable?: boolean | undefined }
): AgentExecutor["Service"] =>
  AgentExecutor.of(options?.restartable === true ? { execute, restartable: true } : { execute })

/**
 * The same agent, declared restartable (see AgentExecutor's `restartable`).
 *
 * @since 0.1.0
 * @category utils
 */
export const restartable = (executor: AgentExecutor["Service"]): AgentExecutor["Service"] =>
  AgentExecutor.of({ ...executor, restartable: true })

/**
 * The layer for an executor, or for an effect that builds one (which may use other services).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E = never, R = never>(
  executor: AgentExecutor["Service"] | Effect.Effect<AgentExecutor["Service"], E, R>
): Layer.Layer<AgentExecutor, E, R> =>
  Effect.isEffect(executor) ? Layer.effect(AgentExecutor, executor) : Layer.succeed(AgentExecutor, executor)

/**
 * The concatenated text parts of a message ("" when it has none).
 *
 * @since 0.1.0
 * @category utils
 */
export const textOf = (message: v1.Message): string => {
  let text: string | undefined
  for (const part of message.parts) {
    if ("text" in part) text = text === undefined ? part.text : `${text}\n${part.text}`
  }
  return text ?? ""
}

/**
 * An agent message in the request's context (and task, if one is given).
 *
 * @since 0.1.0
 * @category utils
 */
export const agentMessage = (
  parts: string | ReadonlyArray<v1.Part>,
  options: { readonly contextId?: string | undefined; readonly taskId?: string | undefined } = {}
): Effect.Effect<v1.Message> =>
  Effect.map(Ids.randomId, (messageId) => ({
    messageId,
    role: "ROLE_AGENT" as const,
    parts: typeof parts === "string" ? [{ text: parts }] : parts,
    ...(options.contextId !== undefined ? { contextId: options.contextId } : {}),
    ...(options.taskId !== undefined ? { taskId: options.taskId } : {})
  }))

/**
 * An agent that answers every message with one text Message (no task). `reply` gets the message's text.
 *
 * @example
 * AgentExecutor.replyWithText((text) => `You said: ${text}`)
 *
 * @since 0.1.0
 * @category utils
 */
export const replyWithText = <E = never>(
  reply: (text: string, context: RequestContext) => string | Effect.Effect<string, E>
): AgentExecutor["Service"] =>
  // The stream of what it emits, which the server may run in the execution's fiber (StreamSources.emitting). One
  // pipeline per reply, and no Effect.succeed around a reply that is already a string: this runs on every
  // direct-reply SendMessage.
  make((context) =>
    StreamSources.emitting((emit) =>
      Effect.suspend(() => {
        // agentMessage's message, built in place: one step and no options object per reply
        const send = (text: string) =>
          Effect.flatMap(Ids.randomId, (messageId) =>
            emit({
              message: { messageId, role: "ROLE_AGENT", parts: [{ text }], contextId: context.contextId }
            }))
        const out = reply(textOf(context.message), context)
        return typeof out === "string" ? send(out) : Effect.flatMap(out, send)
      })
    )
  )

/**
 * A task-oriented agent: `work` drives a TaskUpdater (status, artifacts, input-required, ...). The task is
 * created (SUBMITTED) before `work` starts when it is new; when `work` returns without a final state the
 * task is completed. Interrupting the task (CancelTask) interrupts `work`.
 *
 * @example
 * AgentExecutor.task(Effect.fnUntraced(function*(task, ctx) {
 *   yield* task.working("Thinking...")
 *   yield* task.artifact({ parts: [{ text: "42" }], name: "answer" })
 * }))
 *
 * @since 0.1.0
 * @category utils
 */
export const task = <E = never>(
  work: (updater: TaskUpdater.TaskUpdater, context: RequestContext) => Effect.Effect<void, E>
): AgentExecutor["Service"] => make((context) => TaskUpdater.stream(context, work))
