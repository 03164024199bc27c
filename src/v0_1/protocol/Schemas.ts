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

/**
 * The schema of the A2A 0.1 `TextPart` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  metadata: nullable(Metadata)
}).annotate({ identifier: "TextPart" })
/**
 * The type of a decoded `TextPart`.
 *
 * @since 0.1.0
 * @category models
 */
export type TextPart = typeof TextPart.Type

/**
 * A file's content: its `bytes` (base64) or its `uri`, with an optional name and MIME type.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileContent = Schema.Struct({
  name: nullable(Schema.String),
  mimeType: nullable(Schema.String),
  bytes: nullable(Schema.String),
  uri: nullable(Schema.String)
}).annotate({ identifier: "FileContent" })
/**
 * The type of a decoded `FileContent`.
 *
 * @since 0.1.0
 * @category models
 */
export type FileContent = typeof FileContent.Type

/**
 * The schema of the A2A 0.1 `FilePart` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  file: FileContent,
  metadata: nullable(Metadata)
}).annotate({ identifier: "FilePart" })
/**
 * The type of a decoded `FilePart`.
 *
 * @since 0.1.0
 * @category models
 */
export type FilePart = typeof FilePart.Type

/**
 * The schema of the A2A 0.1 `DataPart` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DataPart = Schema.Struct({
  type: Schema.Literal("data"),
  data: Metadata,
  metadata: nullable(Metadata)
}).annotate({ identifier: "DataPart" })
/**
 * The type of a decoded `DataPart`.
 *
 * @since 0.1.0
 * @category models
 */
export type DataPart = typeof DataPart.Type

/**
 * The schema of the A2A 0.1 `Part` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Part = Schema.Union([TextPart, FilePart, DataPart]).annotate({ identifier: "Part" })
/**
 * The type of a decoded `Part`.
 *
 * @since 0.1.0
 * @category models
 */
export type Part = typeof Part.Type

/**
 * The schema of the A2A 0.1 `Role` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Role = Schema.Literals(["user", "agent"])
/**
 * The type of a decoded `Role`.
 *
 * @since 0.1.0
 * @category models
 */
export type Role = typeof Role.Type

/**
 * The schema of the A2A 0.1 `Message` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Struct({
  role: Role,
  parts: Schema.Array(Part),
  metadata: nullable(Metadata)
}).annotate({ identifier: "Message" })
/**
 * The type of a decoded `Message`.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * The schema of the A2A 0.1 `TaskState` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskState = Schema.Literals([
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "unknown"
])
/**
 * The type of a decoded `TaskState`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskState = typeof TaskState.Type

/**
 * The schema of the A2A 0.1 `TaskStatus` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatus = Schema.Struct({
  state: TaskState,
  message: nullable(Message),
  timestamp: nullable(Schema.String)
}).annotate({ identifier: "TaskStatus" })
/**
 * The type of a decoded `TaskStatus`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskStatus = typeof TaskStatus.Type

/**
 * The schema of the A2A 0.1 `Artifact` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Artifact = Schema.Struct({
  name: nullable(Schema.String),
  description: nullable(Schema.String),
  parts: Schema.Array(Part),
  index: Schema.optionalKey(Schema.Int),
  append: nullable(Schema.Boolean),
  lastChunk: nullable(Schema.Boolean),
  metadata: nullable(Metadata)
}).annotate({ identifier: "Artifact" })
/**
 * The type of a decoded `Artifact`.
 *
 * @since 0.1.0
 * @category models
 */
export type Artifact = typeof Artifact.Type

/**
 * The schema of the A2A 0.1 `Task` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Task = Schema.Struct({
  id: Schema.String,
  sessionId: nullable(Schema.String),
  status: TaskStatus,
  artifacts: nullable(Schema.Array(Artifact)),
  history: nullable(Schema.Array(Message)),
  metadata: nullable(Metadata)
}).annotate({ identifier: "Task" })
/**
 * The type of a decoded `Task`.
 *
 * @since 0.1.0
 * @category models
 */
export type Task = typeof Task.Type

/**
 * How the server authenticates to a webhook (push notifications).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AuthenticationInfo = Schema.Struct({
  schemes: Schema.Array(Schema.String),
  credentials: nullable(Schema.String)
}).annotate({ identifier: "AuthenticationInfo" })
/**
 * The type of a decoded `AuthenticationInfo`.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthenticationInfo = typeof AuthenticationInfo.Type

/**
 * The schema of the A2A 0.1 `PushNotificationConfig` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PushNotificationConfig = Schema.Struct({
  url: Schema.String,
  token: nullable(Schema.String),
  authentication: nullable(AuthenticationInfo)
}).annotate({ identifier: "PushNotificationConfig" })
/**
 * The type of a decoded `PushNotificationConfig`.
 *
 * @since 0.1.0
 * @category models
 */
export type PushNotificationConfig = typeof PushNotificationConfig.Type

/**
 * Params of `tasks/pushNotification/set`, result of `set` and `get` (the config is null when there is none).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskPushNotificationConfig = Schema.Struct({
  id: Schema.String,
  pushNotificationConfig: Schema.NullOr(PushNotificationConfig)
}).annotate({ identifier: "TaskPushNotificationConfig" })
/**
 * The type of a decoded `TaskPushNotificationConfig`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskPushNotificationConfig = typeof TaskPushNotificationConfig.Type

/**
 * Params of `tasks/send` and `tasks/sendSubscribe`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskSendParams = Schema.Struct({
  id: Schema.String,
  sessionId: nullable(Schema.String),
  message: Message,
  pushNotification: nullable(PushNotificationConfig),
  historyLength: nullable(Schema.Int),
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskSendParams" })
/**
 * The type of a decoded `TaskSendParams`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskSendParams = typeof TaskSendParams.Type

/**
 * Params of `tasks/get` and `tasks/resubscribe`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskQueryParams = Schema.Struct({
  id: Schema.String,
  historyLength: nullable(Schema.Int),
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskQueryParams" })
/**
 * The type of a decoded `TaskQueryParams`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskQueryParams = typeof TaskQueryParams.Type

/**
 * Params of `tasks/cancel` and `tasks/pushNotification/get`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskIdParams = Schema.Struct({
  id: Schema.String,
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskIdParams" })
/**
 * The type of a decoded `TaskIdParams`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskIdParams = typeof TaskIdParams.Type

/**
 * The schema of the A2A 0.1 `TaskStatusUpdateEvent` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskStatusUpdateEvent = Schema.Struct({
  id: Schema.String,
  status: TaskStatus,
  final: Schema.optionalKey(Schema.Boolean),
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskStatusUpdateEvent" })
/**
 * The type of a decoded `TaskStatusUpdateEvent`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskStatusUpdateEvent = typeof TaskStatusUpdateEvent.Type

/**
 * The schema of the A2A 0.1 `TaskArtifactUpdateEvent` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskArtifactUpdateEvent = Schema.Struct({
  id: Schema.String,
  artifact: Artifact,
  metadata: nullable(Metadata)
}).annotate({ identifier: "TaskArtifactUpdateEvent" })
/**
 * The type of a decoded `TaskArtifactUpdateEvent`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskArtifactUpdateEvent = typeof TaskArtifactUpdateEvent.Type

/**
 * The `result` of each event of a `tasks/sendSubscribe` or `tasks/resubscribe` stream.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StreamEvent = Schema.Union([TaskStatusUpdateEvent, TaskArtifactUpdateEvent])
/**
 * The type of a decoded `StreamEvent`.
 *
 * @since 0.1.0
 * @category models
 */
export type StreamEvent = typeof StreamEvent.Type

/**
 * The schema of the A2A 0.1 `AgentCapabilities` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AgentCapabilities = Schema.Struct({
  streaming: Schema.optionalKey(Schema.Boolean),
  pushNotifications: Schema.optionalKey(Schema.Boolean),
  stateTransitionHistory: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "AgentCapabilities" })

/**
 * The schema of the A2A 0.1 `AgentAuthentication` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AgentAuthentication = Schema.Struct({
  schemes: Schema.Array(Schema.String),
  credentials: nullable(Schema.String)
}).annotate({ identifier: "AgentAuthentication" })

/**
 * The schema of the A2A 0.1 `AgentSkill` object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AgentSkill = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: nullable(Schema.String),
  tags: nullable(Schema.Array(Schema.String)),
  examples: nullable(Schema.Array(Schema.String)),
  inputModes: nullable(Schema.Array(Schema.String)),
  outputModes: nullable(Schema.Array(Schema.String))
}).annotate({ identifier: "AgentSkill" })

/**
 * The 0.1 agent card (at `/.well-known/agent.json`); it names no protocol version.
 *
 * @since 0.1.0
 * @category schemas
 */
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
/**
 * The type of a decoded `AgentCard`.
 *
 * @since 0.1.0
 * @category models
 */
export type AgentCard = typeof AgentCard.Type
