/**
 * The A2A 0.1 wire shapes as Effect Schemas, written from the 0.1 specification (`docs/specification.md` and
 * `specification/json/a2a.json` at tag v0.1.0 of a2aproject/A2A; nothing of it is generated or copied). The
 * JSON-RPC methods are `tasks/send`, `tasks/sendSubscribe`, `tasks/get`, `tasks/cancel`,
 * `tasks/pushNotification/set|get` and `tasks/resubscribe`; parts carry `type`, tasks are named by their clients
 * and grouped by `sessionId`; a stream carries status and artifact updates only. The spec lets most optional
 * fields be `null`: the Schemas accept it, and the translation reads it as absent.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { V01 } from "effect-a2a/v0_1"
 *
 * Schema.decodeUnknownSync(V01.Schemas.Part)({ type: "text", text: "hi" })
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const Metadata = Schema.Record(Schema.String, Schema.Unknown)
const nullable = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

export const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  metadata: nullable(Metadata)
}).annotate({ identifier: "TextPart" })
export type TextPart = typeof TextPart.Type

/** A file's content: its `bytes` (base64) or its `uri`, with an optional name and MIME type. */
export const FileContent = Schema.Struct({
  name: nullable(Schema.String),
  mimeType: nullable(Schema.String),
  bytes: nullable(Schema.String),
  uri: nullable(Schema.String)
}).annotate({ identifier: "FileContent" })
export type FileContent = typeof FileContent.Type

export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  file: FileContent,
  metadata: nullable(Metadata)
}).annotate({ identifier: "FilePart" })
export type FilePart = typeof FilePart.Type

export const DataPart = Schema.Struct({
  type: Schema.Literal("data"),
  data: Metadata,
  metadata: nullable(Metadata)
}).annotate({ identifier: "DataPart" })
export type DataPart = typeof DataPart.Type

export const Part = Schema.Union([TextPart, FilePart, DataPart]).annotate({ identifier: "Part" })
export type Part = typeof Part.Type

export const Role = Schema.Literals(["user", "agent"])
export type Role = typeof Role.Type

export const Message = Schema.Struct({
  role: Role,
  parts: Schema.Array(Part),
  metadata: nullable(Metadata)
}).annotate({ identifier: "Message" })
export type Message = typeof Message.Type

export const TaskState = Schema.Literals([
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "unknown"
])
export type TaskState = typeof TaskState.Type

export const TaskStatus = Schema.Struct({
  state: TaskState,
  message: nullable(Message),
  timestamp: nullable(Schema.String)
}).annotate({ identifier: "TaskStatus" })
export type TaskStatus = typeof TaskStatus.Type

export const Artifact = Schema.Struct({
  name: nullable(Schema.String),
  description: nullable(Schema.String),
  parts: Schema.Array(Part),
  index: Schema.optionalKey(Schema.Int),
  append: nullable(Schema.Boolean),
  lastChunk: nullable(Schema.Boolean),
  metadata: nullable(Metadata)
}).annotate({ identifier: "Artifact" })
export type Artifact = typeof Artifact.Type

export const Task = Schema.Struct({
  id: Schema.String,
  sessionId: nullable(Schema.String),
  status: TaskStatus,
  artifacts: nullable(Schema.Array(Artifact)),
  history: nullable(Schema.Array(Message)),
  metadata: nullable(Metadata)
}).annotate({ identifier: "Task" })
export type Task = typeof Task.Type

/** How the server authenticates to a webhook (push notifications). */
export const AuthenticationInfo = Schema.Struct({
  schemes: Schema.Array(Schema.String),
  credentials: nullable(Schema.String)
}).annotate({ identifier: "AuthenticationInfo" })
export type AuthenticationInfo = typeof AuthenticationInfo.Type

export const PushNotificationConfig = Schema.Struct({
  url: Schema.String,
  token: nullable(Schema.String),
  authentication: nullable(AuthenticationInfo)
}).annotate({ identifier: "PushNotificationConfig" })
export type PushNotificationConfig = typeof PushNotificationConfig.Type

/** Params of `tasks/pushNotification/set`, result of `set` and `get` (the config is null when there is none). */
export const TaskPushNotificationConfig = Schema.Struct({
  id: Schema.String,
  pushNotificationConfig: Schema.NullOr(PushNotificationConfig)
}).annotate({ identifier: "TaskPushNotificationConfig" })
export type TaskPushNotificationConfig = typeof TaskPushNotificationConfig.Type

/** Params of `tasks/send` and `tasks/sendSubscribe`. */
export const TaskSendParams = Schema.Struct({
  id: Schema.String,
  sessionId: nullable(Schema.String),
  message: Message,
  pushNotification: nullable(PushNotificationConfig),
  historyLength: nullable(Schema.Int),
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskSendParams" })
export type TaskSendParams = typeof TaskSendParams.Type

/** Params of `tasks/get` and `tasks/resubscribe`. */
export const TaskQueryParams = Schema.Struct({
  id: Schema.String,
  historyLength: nullable(Schema.Int),
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskQueryParams" })
export type TaskQueryParams = typeof TaskQueryParams.Type

/** Params of `tasks/cancel` and `tasks/pushNotification/get`. */
export const TaskIdParams = Schema.Struct({
  id: Schema.String,
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskIdParams" })
export type TaskIdParams = typeof TaskIdParams.Type

export const TaskStatusUpdateEvent = Schema.Struct({
  id: Schema.String,
  status: TaskStatus,
  final: Schema.optionalKey(Schema.Boolean),
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskStatusUpdateEvent" })
export type TaskStatusUpdateEvent = typeof TaskStatusUpdateEvent.Type

export const TaskArtifactUpdateEvent = Schema.Struct({
  id: Schema.String,
  artifact: Artifact,
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskArtifactUpdateEvent" })
export type TaskArtifactUpdateEvent = typeof TaskArtifactUpdateEvent.Type

/** The `result` of each event of a `tasks/sendSubscribe` or `tasks/resubscribe` stream. */
export const StreamEvent = Schema.Union([TaskStatusUpdateEvent, TaskArtifactUpdateEvent])
export type StreamEvent = typeof StreamEvent.Type

export const AgentCapabilities = Schema.Struct({
  streaming: Schema.optionalKey(Schema.Boolean),
  pushNotifications: Schema.optionalKey(Schema.Boolean),
  stateTransitionHistory: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "AgentCapabilities" })

export const AgentAuthentication = Schema.Struct({
  schemes: Schema.Array(Schema.String),
  credentials: nullable(Schema.String)
}).annotate({ identifier: "AgentAuthentication" })

export const AgentSkill = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: nullable(Schema.String),
  tags: nullable(Schema.Array(Schema.String)),
  examples: nullable(Schema.Array(Schema.String)),
  inputModes: nullable(Schema.Array(Schema.String)),
  outputModes: nullable(Schema.Array(Schema.String))
}).annotate({ identifier: "AgentSkill" })

/** The 0.1 agent card (at `/.well-known/agent.json`); it names no protocol version. */
export const AgentCard = Schema.Struct({
  name: Schema.String,
  description: nullable(Schema.String),
  url: Schema.String,
  provider: nullable(Schema.Struct({ organization: Schema.String, url: nullable(Schema.String) })),
  version: Schema.String,
  documentationUrl: nullable(Schema.String),
  capabilities: AgentCapabilities,
  authentication: nullable(AgentAuthentication),
  defaultInputModes: nullable(Schema.Array(Schema.String)),
  defaultOutputModes: nullable(Schema.Array(Schema.String)),
  skills: Schema.Array(AgentSkill)
}).annotate({ identifier: "AgentCard" })
export type AgentCard = typeof AgentCard.Type
