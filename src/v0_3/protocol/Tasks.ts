/**
 * A2A 0.3 <-> 1.0: task states, statuses, artifacts, tasks, streaming events, and the results of
 * `message/send` / `message/stream` (spec 1.0 Appendix A.2.1).
 *
 * - Task states: the 0.3 lower-case names map one to one onto the 1.0 enum (`unknown` <-> UNSPECIFIED).
 * - `kind` discriminators (`task`, `message`, `status-update`, `artifact-update`) are added going to 0.3 and
 *   become the 1.0 member names (`task`, `message`, `statusUpdate`, `artifactUpdate`) coming back.
 * - `TaskStatusUpdateEvent.final` (0.3 only) is computed going to 0.3 by the caller's rule, because it means
 *   "the last event of this stream", which depends on the operation (a send stream ends at terminal or
 *   interrupted states, a subscription at terminal ones). It is dropped coming back.
 * - `Task.contextId` is required in 0.3: a 1.0 task without one is sent with `""`.
 * - Timestamps: 1.0 requires RFC 3339; a 0.3 timestamp in another format Date can read (e.g. without an
 *   offset) is normalised to UTC ISO form, and one it cannot read is dropped.
 */
import * as Schema from "effect/Schema"
import type * as v0_3 from "../../protocol/generated/v0_3.ts"
import * as v1 from "../../protocol/generated/v1.ts"
import * as TaskStates from "../../protocol/TaskStates.ts"
import { fromV1Message, fromV1Part, optional, toV1Message, toV1Part } from "./Messages.ts"

// --- TaskState ---

const stateToV1: { readonly [S in v0_3.TaskState]: v1.TaskState } = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  canceled: "TASK_STATE_CANCELED",
  failed: "TASK_STATE_FAILED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
  unknown: "TASK_STATE_UNSPECIFIED"
}

const stateFromV1 = Object.fromEntries(
  Object.entries(stateToV1).map(([v03, v10]) => [v10, v03])
) as { readonly [S in v1.TaskState]: v0_3.TaskState }

/**
 * Translates an A2A 0.3 `TaskState` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1TaskState = (state: v0_3.TaskState): v1.TaskState => stateToV1[state]

/**
 * Translates an A2A 1.0 `TaskState` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1TaskState = (state: v1.TaskState): v0_3.TaskState => stateFromV1[state]

// --- TaskStatus ---

const isRfc3339 = Schema.is(v1.Timestamp)

/**
 * A 0.3 timestamp as 1.0 accepts it: RFC 3339 as is, another readable date as UTC ISO, anything else dropped.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Timestamp = (timestamp: string): string | undefined => {
  if (isRfc3339(timestamp)) return timestamp
  const ms = Date.parse(timestamp)
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString()
}

/**
 * Translates an A2A 0.3 `TaskStatus` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1TaskStatus = (status: v0_3.TaskStatus): v1.TaskStatus => ({
  state: toV1TaskState(status.state),
  ...optional("message", status.message === undefined ? undefined : toV1Message(status.message)),
  ...optional("timestamp", status.timestamp === undefined ? undefined : toV1Timestamp(status.timestamp))
})

/**
 * Translates an A2A 1.0 `TaskStatus` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1TaskStatus = (status: v1.TaskStatus): v0_3.TaskStatus => ({
  state: fromV1TaskState(status.state),
  ...optional("message", status.message === undefined ? undefined : fromV1Message(status.message)),
  ...optional("timestamp", status.timestamp)
})

// --- Artifact ---

/**
 * Translates an A2A 0.3 `Artifact` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Artifact = (artifact: v0_3.Artifact): v1.Artifact => ({
  artifactId: artifact.artifactId,
  parts: artifact.parts.map(toV1Part),
  ...optional("name", artifact.name),
  ...optional("description", artifact.description),
  ...optional("extensions", artifact.extensions),
  ...optional("metadata", artifact.metadata)
})

/**
 * Translates an A2A 1.0 `Artifact` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1Artifact = (artifact: v1.Artifact): v0_3.Artifact => ({
  artifactId: artifact.artifactId,
  parts: artifact.parts.map(fromV1Part),
  ...optional("name", artifact.name),
  ...optional("description", artifact.description),
  ...optional("extensions", artifact.extensions),
  ...optional("metadata", artifact.metadata)
})

// --- Task ---

/**
 * Translates an A2A 0.3 `Task` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Task = (task: v0_3.Task): v1.Task => ({
  id: task.id,
  contextId: task.contextId,
  status: toV1TaskStatus(task.status),
  ...optional("artifacts", task.artifacts?.map(toV1Artifact)),
  ...optional("history", task.history?.map((m) => toV1Message(m))),
  ...optional("metadata", task.metadata)
})

/**
 * Translates an A2A 1.0 `Task` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1Task = (task: v1.Task): v0_3.Task => ({
  kind: "task",
  id: task.id,
  contextId: task.contextId ?? "",
  status: fromV1TaskStatus(task.status),
  ...optional("artifacts", task.artifacts?.map(fromV1Artifact)),
  ...optional("history", task.history?.map((m) => fromV1Message(m))),
  ...optional("metadata", task.metadata)
})

// --- Streaming events ---

/**
 * Which states make a status update the `final` event of its stream.
 *
 * @since 0.1.0
 * @category models
 */
export type FinalRule = (state: v1.TaskState) => boolean

/**
 * The rule of a send stream (`message/stream`): it ends at a terminal or interrupted state.
 *
 * @since 0.1.0
 * @category utils
 */
export const finalForSend: FinalRule = TaskStates.isFinal

/**
 * The rule of a subscription (`tasks/resubscribe`): it ends at a terminal state.
 *
 * @since 0.1.0
 * @category utils
 */
export const finalForSubscription: FinalRule = TaskStates.isTerminal

/**
 * Translates an A2A 0.3 `StatusUpdate` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1StatusUpdate = (event: v0_3.TaskStatusUpdateEvent): v1.TaskStatusUpdateEvent => ({
  taskId: event.taskId,
  contextId: event.contextId,
  status: toV1TaskStatus(event.status),
  ...optional("metadata", event.metadata)
})

/**
 * Translates an A2A 1.0 `StatusUpdate` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1StatusUpdate = (
  event: v1.TaskStatusUpdateEvent,
  final: FinalRule = finalForSend
): v0_3.TaskStatusUpdateEvent => ({
  kind: "status-update",
  taskId: event.taskId,
  contextId: event.contextId,
  status: fromV1TaskStatus(event.status),
  final: final(event.status.state),
  ...optional("metadata", event.metadata)
})

/**
 * Translates an A2A 0.3 `ArtifactUpdate` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1ArtifactUpdate = (event: v0_3.TaskArtifactUpdateEvent): v1.TaskArtifactUpdateEvent => ({
  taskId: event.taskId,
  contextId: event.contextId,
  artifact: toV1Artifact(event.artifact),
  ...optional("append", event.append),
  ...optional("lastChunk", event.lastChunk),
  ...optional("metadata", event.metadata)
})

/**
 * Translates an A2A 1.0 `ArtifactUpdate` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1ArtifactUpdate = (event: v1.TaskArtifactUpdateEvent): v0_3.TaskArtifactUpdateEvent => ({
  kind: "artifact-update",
  taskId: event.taskId,
  contextId: event.contextId,
  artifact: fromV1Artifact(event.artifact),
  ...optional("append", event.append),
  ...optional("lastChunk", event.lastChunk),
  ...optional("metadata", event.metadata)
})

// --- Operation results ---

/**
 * The `result` of a 0.3 `message/send`: a Task or a Message.
 *
 * @since 0.1.0
 * @category models
 */
export type SendMessageResult = v0_3.Task | v0_3.Message

/**
 * The `result` of each 0.3 `message/stream` / `tasks/resubscribe` event.
 *
 * @since 0.1.0
 * @category models
 */
export type StreamResult = v0_3.Task | v0_3.Message | v0_3.TaskStatusUpdateEvent | v0_3.TaskArtifactUpdateEvent

/**
 * Translates an A2A 0.3 `SendMessageResponse` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1SendMessageResponse = (result: SendMessageResult): v1.SendMessageResponse =>
  result.kind === "task" ? { task: toV1Task(result) } : { message: toV1Message(result) }

/**
 * Translates an A2A 1.0 `SendMessageResponse` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1SendMessageResponse = (response: v1.SendMessageResponse): SendMessageResult =>
  "task" in response ? fromV1Task(response.task) : fromV1Message(response.message)

/**
 * Translates an A2A 0.3 `StreamResponse` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1StreamResponse = (result: StreamResult): v1.StreamResponse => {
  switch (result.kind) {
    case "task":
      return { task: toV1Task(result) }
    case "message":
      return { message: toV1Message(result) }
    case "status-update":
      return { statusUpdate: toV1StatusUpdate(result) }
    case "artifact-update":
      return { artifactUpdate: toV1ArtifactUpdate(result) }
  }
}

/**
 * Translates an A2A 1.0 `StreamResponse` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1StreamResponse = (event: v1.StreamResponse, final: FinalRule = finalForSend): StreamResult =>
  "task" in event
    ? fromV1Task(event.task)
    : "message" in event
    ? fromV1Message(event.message)
    : "statusUpdate" in event
    ? fromV1StatusUpdate(event.statusUpdate, final)
    : fromV1ArtifactUpdate(event.artifactUpdate)
