/**
 * One call of a remote A2A agent, as a tool makes it: a message in (text, optional files and data, optional task
 * and context ids to continue), the agent's answer out as a typed outcome. The message is streamed when the card
 * says the agent streams; a stream that ends before the turn is over is followed with SubscribeToTask, and a
 * non-streaming agent that returns early is polled with GetTask. Interrupting the call cancels the remote task
 * (CancelTask), so a timeout or an abandoned tool call does not leave work running on the agent.
 *
 * The Effect AI tools (`AgentTools`) and the MCP gateway are built on this module.
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { AgentCall } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* A2AClient.resolve("http://127.0.0.1:8080")
 *   const outcome = yield* AgentCall.call(client, { text: "ask" })
 *   if (outcome._tag === "InputRequired") {
 *     // answer the agent's question on the same task
 *     return yield* AgentCall.call(client, { text: "Ada", taskId: outcome.taskId })
 *   }
 *   return outcome
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as A2AClient from "../client/A2AClient.ts"
import type { A2AClientError } from "../client/A2AClientError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import { isFinal } from "../protocol/TaskStates.ts"

// --- Input -----------------------------------------------------------------------------------------------------

/**
 * A file to send: by URL, or inline as base64 bytes (exactly one of the two).
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileInput = Schema.Struct({
  url: Schema.optionalKey(Schema.String).annotate({ description: "Where the agent can fetch the file" }),
  bytes: Schema.optionalKey(Schema.String).annotate({ description: "The file's content, base64-encoded" }),
  name: Schema.optionalKey(Schema.String).annotate({ description: "The file name, e.g. report.pdf" }),
  mediaType: Schema.optionalKey(Schema.String).annotate({ description: "The media type, e.g. application/pdf" })
}).check(
  Schema.makeFilter((file) =>
    (file.url === undefined) !== (file.bytes === undefined) ? undefined : "a file has exactly one of url or bytes"
  )
)
/**
 * The type of a decoded `FileInput`.
 *
 * @since 0.1.0
 * @category models
 */
export type FileInput = typeof FileInput.Type

/**
 * What a tool call sends to the agent: the model fills this in.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Input = Schema.Struct({
  text: Schema.String.annotate({ description: "The message to the agent" }),
  files: Schema.optionalKey(Schema.Array(FileInput)).annotate({ description: "Files to send with the message" }),
  data: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)).annotate({
    description: "Structured data (a JSON object) to send with the message"
  }),
  taskId: Schema.optionalKey(Schema.String).annotate({
    description: "To continue a task of this agent (e.g. one that asked for input): its task id"
  }),
  contextId: Schema.optionalKey(Schema.String).annotate({
    description: "To continue a conversation with this agent: its context id"
  })
})
/**
 * The type of a decoded `Input`.
 *
 * @since 0.1.0
 * @category models
 */
export type Input = typeof Input.Type

// --- Outcome ---------------------------------------------------------------------------------------------------

/**
 * A file the agent returned: by URL or inline base64 bytes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileOutput = Schema.Struct({
  url: Schema.optionalKey(Schema.String),
  bytes: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String),
  mediaType: Schema.optionalKey(Schema.String)
})
/**
 * The type of a decoded `FileOutput`.
 *
 * @since 0.1.0
 * @category models
 */
export type FileOutput = typeof FileOutput.Type

const ids = {
  /** The remote task, when the agent made one (a direct Message reply has none). */
  taskId: Schema.optionalKey(Schema.String),
  contextId: Schema.optionalKey(Schema.String)
}

const content = {
  text: Schema.String,
  /** The data parts' values, in order. */
  data: Schema.Array(Schema.Unknown),
  files: Schema.Array(FileOutput)
}

/**
 * The agent answered: the text of its message, or of the task's artifacts followed by the final status message;
 * the data and file parts beside it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Completed = Schema.TaggedStruct("Completed", { ...ids, ...content })
/**
 * The type of a decoded `Completed`.
 *
 * @since 0.1.0
 * @category models
 */
export type Completed = typeof Completed.Type

/**
 * The agent asks for more input: `question` is what it asks; answer by calling again with `taskId`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputRequired = Schema.TaggedStruct("InputRequired", {
  taskId: Schema.String,
  contextId: Schema.optionalKey(Schema.String),
  question: Schema.String,
  data: content.data,
  files: content.files
})
/**
 * The type of a decoded `InputRequired`.
 *
 * @since 0.1.0
 * @category models
 */
export type InputRequired = typeof InputRequired.Type

/**
 * The agent needs (other) credentials to go on with the task.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AuthRequired = Schema.TaggedStruct("AuthRequired", {
  taskId: Schema.String,
  contextId: Schema.optionalKey(Schema.String),
  message: Schema.String
})
/**
 * The type of a decoded `AuthRequired`.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthRequired = typeof AuthRequired.Type

/**
 * The task ended without a result: failed, rejected by the agent, or canceled.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Failed = Schema.TaggedStruct("Failed", {
  ...ids,
  state: Schema.Literals(["failed", "rejected", "canceled"]),
  message: Schema.String
})
/**
 * The type of a decoded `Failed`.
 *
 * @since 0.1.0
 * @category models
 */
export type Failed = typeof Failed.Type

/**
 * How a call ended. Protocol and transport failures are the call's error, not an outcome.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Outcome = Schema.Union([Completed, InputRequired, AuthRequired, Failed])
/**
 * The type of a decoded `Outcome`.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = typeof Outcome.Type

// --- Call ------------------------------------------------------------------------------------------------------

/**
 * Options of a call: streaming or polling, the events as they come, accepted output modes, metadata and per-call
 * client options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> {
  /** Stream the message (SendStreamingMessage). Default: when the card says `capabilities.streaming`. */
  readonly streaming?: boolean | undefined
  /**
   * Sees every event of the call as it arrives (the reply, the task, status and artifact updates; polled task
   * snapshots when the state changed), e.g. to report progress. It runs before the next event is read.
   */
  readonly onEvent?: ((event: v1.StreamResponse) => Effect.Effect<void, never, R>) | undefined
  /** Media types the caller accepts in the answer (`acceptedOutputModes`). */
  readonly acceptedOutputModes?: ReadonlyArray<string> | undefined
  /** Metadata of the message sent. */
  readonly metadata?: v1.Struct | undefined
  /** Per-call headers and extensions. */
  readonly call?: A2AClient.CallOptions | undefined
  /** First pause between GetTask polls of an agent that returned before the turn was over. Default 200 millis. */
  readonly pollInterval?: Duration.Input | undefined
}

/**
 * The user message for an input.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toMessage = (input: Input, metadata?: v1.Struct): v1.Message => {
  const parts: Array<v1.Part> = [{ text: input.text }]
  for (const file of input.files ?? []) {
    const described = {
      ...(file.name !== undefined ? { filename: file.name } : {}),
      ...(file.mediaType !== undefined ? { mediaType: file.mediaType } : {})
    }
    parts.push(file.url !== undefined ? { url: file.url, ...described } : { raw: file.bytes ?? "", ...described })
  }
  if (input.data !== undefined) parts.push({ data: input.data, mediaType: "application/json" })
  return {
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    parts,
    ...(input.taskId !== undefined ? { taskId: input.taskId } : {}),
    ...(input.contextId !== undefined ? { contextId: input.contextId } : {}),
    ...(metadata !== undefined ? { metadata } : {})
  }
}

/** What is known of the remote turn so far, folded from its events. */
interface Turn {
  reply: v1.Message | undefined
  taskId: string | undefined
  contextId: string | undefined
  status: v1.TaskStatus | undefined
  /** By artifact id, in the order first seen; chunks sent with `append` are joined. */
  readonly artifacts: Map<string, v1.Artifact>
}

const emptyTurn = (): Turn => ({
  reply: undefined,
  taskId: undefined,
  contextId: undefined,
  status: undefined,
  artifacts: new Map()
})

const fold = (turn: Turn, event: v1.StreamResponse): void => {
  if ("message" in event) {
    turn.reply = event.message
    turn.taskId ??= event.message.taskId
    turn.contextId ??= event.message.contextId
  } else if ("task" in event) {
    turn.taskId = event.task.id
    turn.contextId = event.task.contextId ?? turn.contextId
    turn.status = event.task.status
    if (event.task.artifacts !== undefined) {
      turn.artifacts.clear()
      for (const artifact of event.task.artifacts) turn.artifacts.set(artifact.artifactId, artifact)
    }
  } else if ("statusUpdate" in event) {
    turn.taskId = event.statusUpdate.taskId
    turn.contextId = event.statusUpdate.contextId
    turn.status = event.statusUpdate.status
  } else {
    const { append, artifact } = event.artifactUpdate
    turn.taskId = event.artifactUpdate.taskId
    turn.contextId = event.artifactUpdate.contextId
    const previous = turn.artifacts.get(artifact.artifactId)
    turn.artifacts.set(
      artifact.artifactId,
      append === true && previous !== undefined
        ? { ...previous, parts: previous.parts.concat(artifact.parts) }
        : artifact
    )
  }
}

/** The turn is over: a direct reply, or a task in a terminal or interrupted state. */
const isOver = (turn: Turn): boolean =>
  turn.reply !== undefined || (turn.status !== undefined && isFinal(turn.status.state))

const contentOf = (parts: ReadonlyArray<v1.Part>) => {
  const texts: Array<string> = []
  const data: Array<unknown> = []
  const files: Array<FileOutput> = []
  for (const part of parts) {
    if ("text" in part) texts.push(part.text)
    else if ("data" in part) data.push(part.data)
    else {
      files.push({
        ...("url" in part ? { url: part.url } : { bytes: part.raw }),
        ...(part.filename !== undefined ? { name: part.filename } : {}),
        ...(part.mediaType !== undefined ? { mediaType: part.mediaType } : {})
      })
    }
  }
  return { text: texts.join(""), data, files }
}

const idsOf = (turn: Turn) => ({
  ...(turn.taskId !== undefined ? { taskId: turn.taskId } : {}),
  ...(turn.contextId !== undefined ? { contextId: turn.contextId } : {})
})

/** The outcome of a turn that is over. */
const outcomeOf = (turn: Turn, taskId: string, status: v1.TaskStatus): Outcome => {
  const said = contentOf(status.message?.parts ?? [])
  switch (status.state) {
    case "TASK_STATE_COMPLETED": {
      const results = [...turn.artifacts.values()].map((artifact) => contentOf(artifact.parts))
      const texts = [...results.map((result) => result.text), said.text].filter((text) => text !== "")
      return Completed.make({
        ...idsOf(turn),
        text: texts.join("\n\n"),
        data: [...results.flatMap((result) => result.data), ...said.data],
        files: [...results.flatMap((result) => result.files), ...said.files]
      })
    }
    case "TASK_STATE_INPUT_REQUIRED":
      return InputRequired.make({
        taskId,
        ...(turn.contextId !== undefined ? { contextId: turn.contextId } : {}),
        question: said.text !== "" ? said.text : "The agent asks for more input.",
        data: said.data,
        files: said.files
      })
    case "TASK_STATE_AUTH_REQUIRED":
      return AuthRequired.make({
        taskId,
        ...(turn.contextId !== undefined ? { contextId: turn.contextId } : {}),
        message: said.text !== "" ? said.text : "The agent needs authorization to go on."
      })
    default: {
      const state = status.state === "TASK_STATE_REJECTED"
        ? "rejected"
        : status.state === "TASK_STATE_CANCELED"
        ? "canceled"
        : "failed"
      return Failed.make({ ...idsOf(turn), state, message: said.text !== "" ? said.text : `The task was ${state}.` })
    }
  }
}

/**
 * Sends `input` to the agent behind `client` and waits until the turn is over: the agent replied, completed or
 * ended the task, or waits for input or authorization. Protocol errors (e.g. TaskNotFound for an unknown
 * `taskId`) and transport failures are the error. Interrupting the call sends CancelTask for a task that is
 * not over yet (best effort: its failure is ignored).
 *
 * @since 0.1.0
 * @category utils
 */
export const call = <R = never>(
  client: A2AClient.A2AClientShape,
  input: Input,
  options: Options<R> = {}
): Effect.Effect<Outcome, A2AClientError, R> =>
  Effect.suspend(() => {
    const turn = emptyTurn()
    const observe = options.onEvent
    const see = (event: v1.StreamResponse): Effect.Effect<void, never, R> => {
      fold(turn, event)
      return observe === undefined ? Effect.void : observe(event)
    }
    const request = {
      message: toMessage(input, options.metadata),
      ...(options.acceptedOutputModes !== undefined
        ? { configuration: { acceptedOutputModes: options.acceptedOutputModes } }
        : {})
    }
    const streams = client.card.capabilities.streaming === true
    const send = (options.streaming ?? streams)
      ? Stream.runForEach(client.sendStreamingMessage(request, options.call), see)
      : Effect.flatMap(client.sendMessage(request, options.call), see)

    // GetTask until the turn is over, reporting a snapshot only when its state changed.
    const poll = (taskId: string, delay: Duration.Duration): Effect.Effect<void, A2AClientError, R> =>
      Effect.flatMap(Effect.sleep(delay), () =>
        Effect.flatMap(client.getTask({ id: taskId, historyLength: 0 }, options.call), (task) => {
          const changed = task.status.state !== turn.status?.state
          fold(turn, { task })
          return Effect.andThen(
            changed && observe !== undefined ? observe({ task }) : Effect.void,
            isOver(turn) ? Effect.void : poll(taskId, Duration.min(Duration.times(delay, 2), Duration.seconds(5)))
          )
        }))

    // A turn the first exchange left unfinished (a dropped stream, an agent that answered early) is followed.
    const follow = Effect.suspend((): Effect.Effect<void, A2AClientError, R> => {
      if (isOver(turn) || turn.taskId === undefined) {
        return Effect.void
      }
      const taskId = turn.taskId
      const polled = poll(taskId, Duration.fromInputUnsafe(options.pollInterval ?? Duration.millis(200)))
      return streams
        ? Effect.andThen(
          Stream.runForEach(client.subscribeToTask({ id: taskId }, options.call), see),
          Effect.suspend(() =>
            isOver(turn) ? Effect.void : polled
          )
        )
        : polled
    })

    const cancelRemote = Effect.suspend(() =>
      turn.taskId === undefined || isOver(turn)
        ? Effect.void
        : Effect.ignore(client.cancelTask({ id: turn.taskId }, options.call))
    )

    return send.pipe(
      Effect.andThen(follow),
      Effect.onInterrupt(() => cancelRemote),
      Effect.map((): Outcome => {
        if (turn.reply !== undefined) return Completed.make({ ...idsOf(turn), ...contentOf(turn.reply.parts) })
        if (turn.taskId !== undefined && turn.status !== undefined) return outcomeOf(turn, turn.taskId, turn.status)
        // The agent sent nothing at all (an empty stream): nothing to report but that.
        return Failed.make({ ...idsOf(turn), state: "failed", message: "The agent sent no answer." })
      })
    )
  })
