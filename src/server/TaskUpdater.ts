/**
 * An Effect-native way for an agent to work on a task: each method emits one agent event (status or
 * artifact update) on the execution's stream, in call order. A final state (completed, failed, rejected,
 * canceled, input-required, auth-required) ends the turn: the server stops reading the stream there and
 * interrupts the rest of the work, so return right after it. A method returns once the server has saved its
 * event, except on a store that coalesces saves (the SQL stores): there it returns once the event waits for the
 * next save, so the work may run a few events ahead of what is stored (clients only ever see stored events).
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // a multi-turn agent: ask, then answer on the next message
 * const agent = AgentExecutor.task((task, ctx) =>
 *   ctx.task._tag === "None"
 *     ? task.requireInput("Which city?")
 *     : Effect.andThen(task.artifact({ parts: [{ text: "Sunny" }] }), task.complete("Done"))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type * as v1 from "../protocol/generated/v1.ts"
import { isFinal } from "../protocol/TaskStates.ts"
import type { AgentEvent } from "./AgentEvent.ts"
import * as Ids from "./internal/Ids.ts"
import * as StreamSources from "./internal/StreamSources.ts"
import type { RequestContext } from "./RequestContext.ts"

/**
 * A status message: plain text, parts, or a full message (its task/context ids are filled in).
 *
 * @since 0.1.0
 * @category models
 */
export type StatusMessage = string | ReadonlyArray<v1.Part> | v1.Message

/**
 * An artifact as an agent gives it to the updater: its parts and optional id, name and metadata.
 *
 * @since 0.1.0
 * @category models
 */
export interface ArtifactInput {
  /** Defaults to a new random id; reuse one to stream chunks of the same artifact. */
  readonly artifactId?: string | undefined
  readonly parts: ReadonlyArray<v1.Part>
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly metadata?: { readonly [k: string]: unknown } | undefined
  readonly extensions?: ReadonlyArray<string> | undefined
}

/**
 * What an agent made with `task` uses to report its work: status changes and artifacts, each one event.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskUpdater {
  readonly taskId: string
  readonly contextId: string
  /** Moves the task to `state`, with an optional agent message. */
  readonly status: (state: v1.TaskState, message?: StatusMessage) => Effect.Effect<void>
  /** Moves the task to WORKING (again, with a new message: a progress report). */
  readonly working: (message?: StatusMessage) => Effect.Effect<void>
  /** Ends the task COMPLETED. */
  readonly complete: (message?: StatusMessage) => Effect.Effect<void>
  /** Ends the task FAILED. */
  readonly fail: (message?: StatusMessage) => Effect.Effect<void>
  /** Ends the task REJECTED: the agent will not do it. */
  readonly reject: (message?: StatusMessage) => Effect.Effect<void>
  /** Ends this turn waiting for the client's next message (multi-turn, spec 3.4.3). */
  readonly requireInput: (message: StatusMessage) => Effect.Effect<void>
  /** Ends this turn waiting for the client to authenticate (spec 7.6). */
  readonly requireAuth: (message: StatusMessage) => Effect.Effect<void>
  /**
   * Adds or replaces an artifact; with `append` the parts are added to the artifact with the same id
   * (streamed chunks), `lastChunk` marks its end. Returns the artifact id.
   */
  readonly artifact: (
    artifact: ArtifactInput,
    options?: { readonly append?: boolean | undefined; readonly lastChunk?: boolean | undefined }
  ) => Effect.Effect<string>
  /** Builds an agent message for this task. */
  readonly message: (content: string | ReadonlyArray<v1.Part>) => Effect.Effect<v1.Message>
}

/**
 * The agent event stream of `work`: a SUBMITTED task first when the task is new, then whatever `work` emits,
 * then COMPLETED if `work` returned without reaching a final state.
 *
 * @since 0.1.0
 * @category utils
 */
export const stream = <E>(
  context: RequestContext,
  work: (updater: TaskUpdater, context: RequestContext) => Effect.Effect<void, E>
): Stream.Stream<AgentEvent, E> =>
  // The stream of what `work` emits (StreamSources.emitting): the server may run `work` in the execution's fiber,
  // each event saved before `work` goes on, or, on a store that coalesces saves, a few events ahead.
  StreamSources.emitting((emit) => run(context, work, emit))

/** `work` with its events pushed to `emit`, SUBMITTED first and COMPLETED last as `stream` describes. */
const run = <E>(
  context: RequestContext,
  work: (updater: TaskUpdater, context: RequestContext) => Effect.Effect<void, E>,
  emit: StreamSources.Emit<AgentEvent>
): Effect.Effect<void, E> =>
  // A pipeline, not a generator: a waiting agent holds the updater, not also a suspended generator and its frame.
  Effect.suspend(() => {
    const updater = new Updater(context.taskId, context.contextId, emit)
    const worked = Effect.flatMap(
      Effect.suspend(() => work(updater, context)),
      () => updater.final ? Effect.void : updater.emitStatus("TASK_STATE_COMPLETED", undefined)
    )
    if (Option.isSome(context.task)) return worked
    const submitted = Effect.flatMap(Ids.now, (timestamp) =>
      emit({
        task: {
          id: context.taskId,
          contextId: context.contextId,
          status: { state: "TASK_STATE_SUBMITTED", timestamp },
          history: [context.message]
        }
      }))
    return Effect.andThen(submitted, worked)
  })

/**
 * The updater of one execution: its state in one object and its methods on the prototype, since a waiting agent
 * holds its updater for as long as it waits (a dozen closures and their contexts per idle execution cost more).
 * The methods are getters handing out a function bound to the updater, so `const { complete } = task` still works.
 */
class Updater implements TaskUpdater {
  /** Whether the work has emitted a final state (then no COMPLETED is added). */
  final = false
  readonly taskId: string
  readonly contextId: string
  private readonly emit: StreamSources.Emit<AgentEvent>

  constructor(taskId: string, contextId: string, emit: StreamSources.Emit<AgentEvent>) {
    this.taskId = taskId
    this.contextId = contextId
    this.emit = emit
  }

  get status(): TaskUpdater["status"] {
    return (state, m) => this.statusOf(state, m)
  }
  get working(): TaskUpdater["working"] {
    return (m) => this.statusOf("TASK_STATE_WORKING", m)
  }
  get complete(): TaskUpdater["complete"] {
    return (m) => this.statusOf("TASK_STATE_COMPLETED", m)
  }
  get fail(): TaskUpdater["fail"] {
    return (m) => this.statusOf("TASK_STATE_FAILED", m)
  }
  get reject(): TaskUpdater["reject"] {
    return (m) => this.statusOf("TASK_STATE_REJECTED", m)
  }
  get requireInput(): TaskUpdater["requireInput"] {
    return (m) => this.statusOf("TASK_STATE_INPUT_REQUIRED", m)
  }
  get requireAuth(): TaskUpdater["requireAuth"] {
    return (m) => this.statusOf("TASK_STATE_AUTH_REQUIRED", m)
  }
  get artifact(): TaskUpdater["artifact"] {
    return (input, options) => this.artifactOf(input, options ?? {})
  }
  get message(): TaskUpdater["message"] {
    return (content) => this.messageOf(content)
  }

  private messageOf(content: string | ReadonlyArray<v1.Part>): Effect.Effect<v1.Message> {
    return Effect.map(Ids.randomId, (messageId) => ({
      messageId,
      role: "ROLE_AGENT" as const,
      parts: typeof content === "string" ? [{ text: content }] : content,
      contextId: this.contextId,
      taskId: this.taskId
    }))
  }

  private toMessage(m: StatusMessage): Effect.Effect<v1.Message> {
    return typeof m === "string" || Array.isArray(m)
      ? this.messageOf(m as string | ReadonlyArray<v1.Part>)
      : Effect.succeed({ ...(m as v1.Message), contextId: this.contextId, taskId: this.taskId })
  }

  // Called for every event an agent emits: pipelines, not generators (cheaper on a busy server), and no
  // Effect.zip nor Effect.succeed where a value is at hand (each is a few objects per event).
  emitStatus(state: v1.TaskState, statusMessage: v1.Message | undefined): Effect.Effect<void> {
    return Effect.flatMap(Ids.now, (timestamp) => {
      if (isFinal(state)) this.final = true
      return this.emit({
        statusUpdate: {
          taskId: this.taskId,
          contextId: this.contextId,
          status: { state, timestamp, ...(statusMessage !== undefined ? { message: statusMessage } : {}) }
        }
      })
    })
  }

  private statusOf(state: v1.TaskState, m: StatusMessage | undefined): Effect.Effect<void> {
    return m === undefined
      ? this.emitStatus(state, undefined)
      : Effect.flatMap(this.toMessage(m), (statusMessage) => this.emitStatus(state, statusMessage))
  }

  private artifactOf(
    input: ArtifactInput,
    options: { readonly append?: boolean | undefined; readonly lastChunk?: boolean | undefined }
  ): Effect.Effect<string> {
    const emitArtifact = (artifactId: string) =>
      Effect.as(
        this.emit({
          artifactUpdate: {
            taskId: this.taskId,
            contextId: this.contextId,
            artifact: {
              artifactId,
              parts: input.parts,
              ...(input.name !== undefined ? { name: input.name } : {}),
              ...(input.description !== undefined ? { description: input.description } : {}),
              ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
              ...(input.extensions !== undefined ? { extensions: input.extensions } : {})
            },
            ...(options.append !== undefined ? { append: options.append } : {}),
            ...(options.lastChunk !== undefined ? { lastChunk: options.lastChunk } : {})
          }
        }),
        artifactId
      )
    const given = input.artifactId
    return given !== undefined
      ? Effect.suspend(() => emitArtifact(given))
      : Effect.flatMap(Ids.randomId, emitArtifact)
  }
}
