/**
 * A2A 0.1 <-> the 1.0 model. Where 0.1 and 0.3 agree (parts, file content, push configs, roles, most states),
 * a value goes through the 0.3 form and the 0.3 wing's translation (v0_3/protocol) does the rest; what is 0.1's
 * own is here:
 * - parts name their kind in `type`; messages carry no ids (the caller supplies the 1.0 `messageId`);
 * - a task is named by its client (`id`) and grouped by `sessionId` (1.0 `contextId`);
 * - 0.1 has no `rejected` nor `auth-required` state: they read as `failed` and `input-required`, and 1.0's
 *   unspecified state as `unknown`;
 * - artifacts have no id but an `index` (their position in the task), and `append` / `lastChunk` travel inside
 *   the artifact; a 0.1 artifact read into 1.0 gets the id `artifact-<index>`;
 * - a stream carries status and artifact updates only: a Task becomes the update of its status, and a Message
 *   reply (1.0 agents may answer without a task) the `completed` status carrying it.
 * `null`, which 0.1 allows for most optional fields, reads as absent.
 *
 * @since 0.1.0
 */
import type * as v0_3 from "../../protocol/generated/v0_3.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import * as Messages from "../../v0_3/protocol/Messages.ts"
import * as PushConfigs from "../../v0_3/protocol/PushConfigs.ts"
import * as Tasks from "../../v0_3/protocol/Tasks.ts"
import type * as V01 from "./Schemas.ts"

const { optional } = Messages

/**
 * `undefined` for `null`: 0.1's absent.
 *
 * @since 0.1.0
 * @category utils
 */
export const present = <A>(value: A | null | undefined): A | undefined => value === null ? undefined : value

// --- Part, Message ---

/**
 * A 0.1 part in the 0.3 form (`type` -> `kind`); a file with neither bytes nor uri gets empty bytes.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV03Part = (part: V01.Part): v0_3.Part => {
  const metadata = optional("metadata", present(part.metadata))
  switch (part.type) {
    case "text":
      return { kind: "text", text: part.text, ...metadata }
    case "data":
      return { kind: "data", data: part.data, ...metadata }
    case "file": {
      const common = {
        ...optional("name", present(part.file.name)),
        ...optional("mimeType", present(part.file.mimeType))
      }
      const uri = present(part.file.uri)
      return {
        kind: "file",
        file: uri !== undefined ? { uri, ...common } : { bytes: present(part.file.bytes) ?? "", ...common },
        ...metadata
      }
    }
  }
}

/**
 * Translates an A2A 0.3 `Part` to its 0.1 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV03Part = (part: v0_3.Part): V01.Part => {
  const metadata = optional("metadata", part.metadata)
  switch (part.kind) {
    case "text":
      return { type: "text", text: part.text, ...metadata }
    case "data":
      return { type: "data", data: part.data, ...metadata }
    case "file": {
      const file = part.file
      return {
        type: "file",
        file: {
          ...optional("name", file.name),
          ...optional("mimeType", file.mimeType),
          ...("bytes" in file ? { bytes: file.bytes } : { uri: file.uri })
        },
        ...metadata
      }
    }
  }
}

/**
 * A 0.1 message in the 0.3 form, under the given ids.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV03Message = (
  message: V01.Message,
  ids: { readonly messageId: string; readonly taskId?: string | undefined; readonly contextId?: string | undefined }
): v0_3.Message => ({
  kind: "message",
  messageId: ids.messageId,
  role: message.role,
  parts: message.parts.map(toV03Part),
  ...optional("taskId", ids.taskId),
  ...optional("contextId", ids.contextId),
  ...optional("metadata", present(message.metadata))
})

/**
 * Translates an A2A 0.3 `Message` to its 0.1 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV03Message = (message: v0_3.Message): V01.Message => ({
  role: message.role,
  parts: message.parts.map(fromV03Part),
  ...optional("metadata", message.metadata)
})

/**
 * Translates an A2A 1.0 `Message` to its 0.1 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1Message = (message: v1.Message, unspecifiedRole: V01.Role = "agent"): V01.Message =>
  fromV03Message(Messages.fromV1Message(message, unspecifiedRole))

/**
 * A 0.1 message as 1.0 reads it; the ids are the caller's (0.1 messages carry none).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Message = (message: V01.Message, ids: Parameters<typeof toV03Message>[1]): v1.Message =>
  Messages.toV1Message(toV03Message(message, ids))

// --- Task state and status ---

const stateFromV03: { readonly [S in v0_3.TaskState]: V01.TaskState } = {
  submitted: "submitted",
  working: "working",
  "input-required": "input-required",
  completed: "completed",
  canceled: "canceled",
  failed: "failed",
  rejected: "failed",
  "auth-required": "input-required",
  unknown: "unknown"
}

/**
 * Translates an A2A 1.0 `TaskState` to its 0.1 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1TaskState = (state: v1.TaskState): V01.TaskState => stateFromV03[Tasks.fromV1TaskState(state)]

/**
 * Translates an A2A 0.1 `TaskState` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1TaskState = (state: V01.TaskState): v1.TaskState => Tasks.toV1TaskState(state)

/**
 * Translates an A2A 1.0 `TaskStatus` to its 0.1 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1TaskStatus = (status: v1.TaskStatus): V01.TaskStatus => ({
  state: fromV1TaskState(status.state),
  ...optional("message", status.message === undefined ? undefined : fromV1Message(status.message)),
  ...optional("timestamp", status.timestamp)
})

const artifactIdOf = (index: number) => `artifact-${index}`

/**
 * Translates an A2A 0.1 `TaskStatus` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1TaskStatus = (status: V01.TaskStatus, ids: { readonly taskId: string }): v1.TaskStatus => {
  const message = present(status.message)
  const timestamp = present(status.timestamp)
  return {
    state: toV1TaskState(status.state),
    ...optional(
      "message",
      message === undefined
        ? undefined
        : toV1Message(message, { messageId: `${ids.taskId}-status`, taskId: ids.taskId })
    ),
    ...optional("timestamp", timestamp === undefined ? undefined : Tasks.toV1Timestamp(timestamp))
  }
}

// --- Artifact ---

/**
 * Translates an A2A 1.0 `Artifact` to its 0.1 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1Artifact = (
  artifact: v1.Artifact,
  index: number,
  chunk: { readonly append?: boolean | undefined; readonly lastChunk?: boolean | undefined } = {}
): V01.Artifact => {
  const v03 = Tasks.fromV1Artifact(artifact)
  return {
    ...optional("name", v03.name),
    ...optional("description", v03.description),
    parts: v03.parts.map(fromV03Part),
    index,
    ...optional("append", chunk.append),
    ...optional("lastChunk", chunk.lastChunk),
    ...optional("metadata", v03.metadata)
  }
}

/**
 * Translates an A2A 0.1 `Artifact` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Artifact = (artifact: V01.Artifact, position: number): v1.Artifact =>
  Tasks.toV1Artifact({
    artifactId: artifactIdOf(artifact.index ?? position),
    parts: artifact.parts.map(toV03Part),
    ...optional("name", present(artifact.name)),
    ...optional("description", present(artifact.description)),
    ...optional("metadata", present(artifact.metadata))
  })

// --- Task ---

/**
 * A 1.0 task as its 0.1 client knows it: under the id the client gave it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1Task = (task: v1.Task, id: string): V01.Task => ({
  id,
  ...optional("sessionId", task.contextId),
  status: fromV1TaskStatus(task.status),
  ...optional("artifacts", task.artifacts?.map((artifact, i) => fromV1Artifact(artifact, i))),
  ...optional("history", task.history?.map((m) => fromV1Message(m))),
  ...optional("metadata", task.metadata)
})

/**
 * Translates an A2A 0.1 `Task` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Task = (task: V01.Task): v1.Task => {
  const history = present(task.history)
  return {
    id: task.id,
    ...optional("contextId", present(task.sessionId)),
    status: toV1TaskStatus(task.status, { taskId: task.id }),
    ...optional("artifacts", present(task.artifacts)?.map(toV1Artifact)),
    ...optional(
      "history",
      history?.map((m, i) => toV1Message(m, { messageId: `${task.id}-history-${i}`, taskId: task.id }))
    ),
    ...optional("metadata", present(task.metadata))
  }
}

/**
 * A 1.0 answer to a send as a 0.1 Task: a Message reply is the completed status carrying it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1SendMessageResponse = (response: v1.SendMessageResponse, id: string): V01.Task =>
  "task" in response
    ? fromV1Task(response.task, id)
    : {
      id,
      ...optional("sessionId", response.message.contextId),
      status: { state: "completed", message: fromV1Message(response.message) }
    }

// --- Streams ---

/**
 * Translates one stream's 1.0 events into 0.1 events for the task the client calls `id`. It numbers the
 * artifacts as their task lists them (a snapshot's first), which is what 0.1's `index` is.
 *
 * @since 0.1.0
 * @category models
 */
export class StreamEvents {
  private readonly indexes = new Map<string, number>()
  readonly id: string
  readonly final: Tasks.FinalRule
  constructor(id: string, final: Tasks.FinalRule) {
    this.id = id
    this.final = final
  }

  private indexOf(artifactId: string): number {
    let index = this.indexes.get(artifactId)
    if (index === undefined) {
      index = this.indexes.size
      this.indexes.set(artifactId, index)
    }
    return index
  }

  private status(status: v1.TaskStatus, metadata?: v1.TaskStatusUpdateEvent["metadata"]): V01.TaskStatusUpdateEvent {
    return {
      id: this.id,
      status: fromV1TaskStatus(status),
      final: this.final(status.state),
      ...optional("metadata", metadata)
    }
  }

  /** The 0.1 event for the next 1.0 event of the stream. */
  readonly next = (event: v1.StreamResponse): V01.StreamEvent => {
    if ("task" in event) {
      for (const artifact of event.task.artifacts ?? []) this.indexOf(artifact.artifactId)
      return this.status(event.task.status)
    }
    if ("message" in event) {
      return { id: this.id, status: { state: "completed", message: fromV1Message(event.message) }, final: true }
    }
    if ("statusUpdate" in event) return this.status(event.statusUpdate.status, event.statusUpdate.metadata)
    const update = event.artifactUpdate
    return {
      id: this.id,
      artifact: fromV1Artifact(update.artifact, this.indexOf(update.artifact.artifactId), update),
      ...optional("metadata", update.metadata)
    }
  }
}

/**
 * A 0.1 stream event as 1.0 reads it; `contextId` is the session the client knows (0.1 events carry none).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1StreamResponse = (event: V01.StreamEvent, contextId: string): v1.StreamResponse => {
  if ("status" in event) {
    return {
      statusUpdate: {
        taskId: event.id,
        contextId,
        status: toV1TaskStatus(event.status, { taskId: event.id }),
        ...optional("metadata", present(event.metadata))
      }
    }
  }
  const artifact = event.artifact
  return {
    artifactUpdate: {
      taskId: event.id,
      contextId,
      artifact: toV1Artifact(artifact, 0),
      ...optional("append", present(artifact.append)),
      ...optional("lastChunk", present(artifact.lastChunk)),
      ...optional("metadata", present(event.metadata))
    }
  }
}

// --- Push notification configs ---

/** A 0.1 push config in the 0.3 form. */
const toV03PushConfig = (config: V01.PushNotificationConfig): v0_3.PushNotificationConfig => {
  const authentication = present(config.authentication)
  const credentials = present(authentication?.credentials)
  return {
    url: config.url,
    ...optional("token", present(config.token)),
    ...optional(
      "authentication",
      authentication === undefined
        ? undefined
        : { schemes: authentication.schemes, ...optional("credentials", credentials) }
    )
  }
}

/**
 * A 0.1 push config for the 1.0 task `taskId`, under the config id `id`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1PushConfig = (
  config: V01.PushNotificationConfig,
  taskId: string,
  id: string
): v1.TaskPushNotificationConfig => ({ ...PushConfigs.toV1PushConfig(toV03PushConfig(config), taskId), id })

/**
 * Translates an A2A 1.0 `PushConfig` to its 0.1 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1PushConfig = (config: v1.TaskPushNotificationConfig): V01.PushNotificationConfig => {
  const v03 = PushConfigs.fromV1PushConfig(config)
  return {
    url: v03.url,
    ...optional("token", v03.token),
    ...optional("authentication", v03.authentication)
  }
}

// --- Requests (the client's side) ---

/**
 * A 1.0 send as 0.1 `tasks/send` params for the task the client calls `id`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1SendMessageRequest = (request: v1.SendMessageRequest, id: string): V01.TaskSendParams => {
  const config = request.configuration
  const push = config?.taskPushNotificationConfig
  return {
    id,
    ...optional("sessionId", request.message.contextId),
    message: fromV1Message(request.message, "user"),
    ...optional("pushNotification", push === undefined ? undefined : fromV1PushConfig(push)),
    ...optional("historyLength", config?.historyLength),
    ...optional("metadata", request.metadata)
  }
}
