/**
 * A2A 0.3 HTTP+JSON bodies <-> 1.0. The 0.3 REST binding does not use the JSON-RPC shapes: its bodies are the
 * ProtoJSON of the 0.3 proto (`specification/grpc/a2a.proto` at v0.3.0, the form the reference SDKs read and
 * write), which differs from both the 0.3 JSON-RPC shapes and 1.0:
 *
 * - Message: `content` (not `parts`), `role` as `ROLE_USER` / `ROLE_AGENT`, no `referenceTaskIds`.
 * - Part: `{ text }` | `{ file: { fileWithUri | fileWithBytes, mimeType } }` | `{ data: { data } }`, with no
 *   metadata and no file name.
 * - TaskState `TASK_STATE_CANCELLED` (double L); TaskStatus `message` (proto name `update`).
 * - SendMessageRequest `{ message (proto name request), configuration: { acceptedOutputModes,
 *   pushNotification, historyLength, blocking }, metadata }`; SendMessageResponse / StreamResponse
 *   `{ task }` | `{ message }` (proto name msg) | `{ statusUpdate }` | `{ artifactUpdate }`.
 * - TaskPushNotificationConfig `{ name: "tasks/{id}/pushNotificationConfigs/{configId}",
 *   pushNotificationConfig: { id, url, token, authentication: { schemes, credentials } } }`.
 * - AgentCard: the 0.3 card with the proto's security forms (member-discriminated schemes, `{ schemes }`
 *   requirements, as in 1.0) and no `iconUrl`.
 *
 * Going to 0.3 REST, part metadata, file names, text/data media types and `referenceTaskIds` are dropped, and
 * a data value that is not an object is sent as `{ "value": v }`. Coming from it, proto3 defaults stand for
 * absence: an empty `contextId` / `taskId` / `mimeType`, `historyLength` 0 (no limit). `blocking` is a plain
 * proto3 bool: a request with a configuration but no `blocking` does not wait (as the reference SDKs read it);
 * a request without a configuration waits (the 1.0 default). Input accepts the proto (snake_case) field names.
 */
import { Result, Schema } from "effect"
import type * as v1 from "../../generated/v1.ts"
import { type FieldViolation, InvalidParams } from "../A2AError.ts"
import * as FieldViolations from "../FieldViolations.ts"
import * as AgentCards from "./AgentCards.ts"
import { optional } from "./Messages.ts"
import { finalForSend, type FinalRule } from "./Tasks.ts"
import { normalizeBase64 } from "./WireInput.ts"

type Json = { readonly [key: string]: unknown }

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s === "" ? undefined : s)

// --- Enums ---

/** 1.0 state -> 0.3 proto name: the same names, but CANCELLED with two Ls. */
export const toProtoState = (state: v1.TaskState): string =>
  state === "TASK_STATE_CANCELED" ? "TASK_STATE_CANCELLED" : state

// --- Output (1.0 -> 0.3 ProtoJSON) ---

export const fromV1Part = (part: v1.Part): Json => {
  if ("text" in part) return { text: part.text }
  if ("raw" in part) return { file: { fileWithBytes: part.raw, ...optional("mimeType", part.mediaType) } }
  if ("url" in part) return { file: { fileWithUri: part.url, ...optional("mimeType", part.mediaType) } }
  return { data: { data: isObject(part.data) ? part.data : { value: part.data } } }
}

export const fromV1Message = (message: v1.Message): Json => ({
  messageId: message.messageId,
  role: message.role,
  content: message.parts.map(fromV1Part),
  ...optional("contextId", message.contextId),
  ...optional("taskId", message.taskId),
  ...optional("metadata", message.metadata),
  ...optional("extensions", message.extensions)
})

export const fromV1TaskStatus = (status: v1.TaskStatus): Json => ({
  state: toProtoState(status.state),
  ...optional("message", status.message === undefined ? undefined : fromV1Message(status.message)),
  ...optional("timestamp", status.timestamp)
})

export const fromV1Artifact = (artifact: v1.Artifact): Json => ({
  artifactId: artifact.artifactId,
  parts: artifact.parts.map(fromV1Part),
  ...optional("name", artifact.name),
  ...optional("description", artifact.description),
  ...optional("metadata", artifact.metadata),
  ...optional("extensions", artifact.extensions)
})

export const fromV1Task = (task: v1.Task): Json => ({
  id: task.id,
  contextId: task.contextId ?? "",
  status: fromV1TaskStatus(task.status),
  ...optional("artifacts", task.artifacts?.map(fromV1Artifact)),
  ...optional("history", task.history?.map(fromV1Message)),
  ...optional("metadata", task.metadata)
})

export const fromV1SendMessageResponse = (response: v1.SendMessageResponse): Json =>
  "task" in response ? { task: fromV1Task(response.task) } : { message: fromV1Message(response.message) }

export const fromV1StreamResponse = (event: v1.StreamResponse, final: FinalRule = finalForSend): Json => {
  if ("task" in event) return { task: fromV1Task(event.task) }
  if ("message" in event) return { message: fromV1Message(event.message) }
  if ("statusUpdate" in event) {
    const e = event.statusUpdate
    return {
      statusUpdate: {
        taskId: e.taskId,
        contextId: e.contextId,
        status: fromV1TaskStatus(e.status),
        final: final(e.status.state),
        ...optional("metadata", e.metadata)
      }
    }
  }
  const e = event.artifactUpdate
  return {
    artifactUpdate: {
      taskId: e.taskId,
      contextId: e.contextId,
      artifact: fromV1Artifact(e.artifact),
      ...optional("append", e.append),
      ...optional("lastChunk", e.lastChunk),
      ...optional("metadata", e.metadata)
    }
  }
}

export const configName = (taskId: string, configId: string): string =>
  `tasks/${taskId}/pushNotificationConfigs/${configId}`

export const fromV1PushConfig = (config: v1.TaskPushNotificationConfig): Json => ({
  name: configName(config.taskId ?? "", config.id ?? ""),
  pushNotificationConfig: {
    url: config.url,
    ...optional("id", config.id),
    ...optional("token", config.token),
    ...optional(
      "authentication",
      config.authentication === undefined ? undefined : {
        schemes: config.authentication.scheme === "" ? [] : [config.authentication.scheme],
        ...optional("credentials", config.authentication.credentials)
      }
    )
  }
})

const protoScheme = (scheme: v1.SecurityScheme): v1.SecurityScheme | undefined => {
  if (!("oauth2SecurityScheme" in scheme)) return scheme
  const flows = scheme.oauth2SecurityScheme.flows
  if ("deviceCode" in flows) return undefined
  const expressed: v1.OAuthFlows = "authorizationCode" in flows
    ? {
      authorizationCode: {
        authorizationUrl: flows.authorizationCode.authorizationUrl,
        tokenUrl: flows.authorizationCode.tokenUrl,
        scopes: flows.authorizationCode.scopes,
        ...optional("refreshUrl", flows.authorizationCode.refreshUrl)
      }
    }
    : flows
  return { oauth2SecurityScheme: { ...scheme.oauth2SecurityScheme, flows: expressed } }
}

/** The 0.3 proto AgentCard for a 1.0 card (see AgentCards for the endpoint and field rules). */
export const fromV1AgentCard = (card: v1.AgentCard): Json => {
  const {
    iconUrl: _icon,
    security: _security,
    securitySchemes: _schemes,
    skills: _skills,
    ...rest
  } = AgentCards.fromV1AgentCard(card)
  const schemes: Record<string, v1.SecurityScheme> = {}
  for (const [name, scheme] of Object.entries(card.securitySchemes ?? {})) {
    const expressed = protoScheme(scheme)
    if (expressed !== undefined) schemes[name] = expressed
  }
  return {
    ...rest,
    skills: card.skills.map(({ securityRequirements, ...skill }) => ({
      ...skill,
      ...optional("security", securityRequirements)
    })),
    ...optional("securitySchemes", card.securitySchemes === undefined ? undefined : schemes),
    ...optional("security", card.securityRequirements)
  }
}

// --- Input (0.3 ProtoJSON -> 1.0) ---

/** snake_case proto names of the input fields, to their JSON names. */
const aliases: Readonly<Record<string, string>> = {
  message_id: "messageId",
  context_id: "contextId",
  task_id: "taskId",
  file_with_uri: "fileWithUri",
  file_with_bytes: "fileWithBytes",
  mime_type: "mimeType",
  accepted_output_modes: "acceptedOutputModes",
  push_notification: "pushNotification",
  history_length: "historyLength",
  push_notification_config: "pushNotificationConfig"
}

// Struct-valued fields: their keys are the user's, never renamed. (A DataPart is `{ data: { data: Struct } }`:
// only the inner `data` is the user's.)
const opaque = new Set(["metadata", "params"])

/** The input with proto field names replaced by JSON ones (the JSON name wins when both are present). */
export const normalizeNames = (u: unknown, parent?: string): unknown => {
  if (Array.isArray(u)) return u.map((item) => normalizeNames(item, parent))
  if (!isObject(u)) return u
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(u)) {
    const name = aliases[key] ?? (key === "request" || key === "update" ? "message" : key)
    if (name !== key && Object.hasOwn(u, name)) continue
    out[name] = opaque.has(name) || (name === "data" && parent === "data") ? value : normalizeNames(value, name)
  }
  return out
}

const Struct = Schema.Record(Schema.String, Schema.Unknown)

const ProtoPart = Schema.Union([
  Schema.Struct({ text: Schema.String }),
  Schema.Struct({
    file: Schema.Union([
      Schema.Struct({ fileWithUri: Schema.String, mimeType: Schema.optionalKey(Schema.String) }),
      Schema.Struct({ fileWithBytes: Schema.String, mimeType: Schema.optionalKey(Schema.String) })
    ])
  }),
  Schema.Struct({ data: Schema.Struct({ data: Struct }) })
])

const ProtoRole = Schema.Union([
  Schema.Literals(["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"]),
  Schema.Literals([0, 1, 2])
])

const ProtoMessage = Schema.Struct({
  messageId: Schema.String,
  contextId: Schema.optionalKey(Schema.String),
  taskId: Schema.optionalKey(Schema.String),
  role: ProtoRole,
  content: Schema.Array(ProtoPart),
  metadata: Schema.optionalKey(Struct),
  extensions: Schema.optionalKey(Schema.Array(Schema.String))
})

const ProtoPushConfig = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  url: Schema.String,
  token: Schema.optionalKey(Schema.String),
  authentication: Schema.optionalKey(Schema.Struct({
    schemes: Schema.optionalKey(Schema.Array(Schema.String)),
    credentials: Schema.optionalKey(Schema.String)
  }))
})

const ProtoSendMessageRequest = Schema.Struct({
  message: ProtoMessage,
  configuration: Schema.optionalKey(Schema.Struct({
    acceptedOutputModes: Schema.optionalKey(Schema.Array(Schema.String)),
    pushNotification: Schema.optionalKey(ProtoPushConfig),
    historyLength: Schema.optionalKey(Schema.Int),
    blocking: Schema.optionalKey(Schema.Boolean)
  })),
  metadata: Schema.optionalKey(Struct)
})

const ProtoTaskPushConfig = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  pushNotificationConfig: ProtoPushConfig
})

const roles: ReadonlyArray<v1.Role> = ["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"]

const toV1Part = (part: typeof ProtoPart.Type): v1.Part => {
  if ("text" in part) return { text: part.text }
  if ("data" in part) return { data: part.data.data }
  const file = part.file
  const mediaType = optional("mediaType", nonEmpty(file.mimeType))
  return "fileWithUri" in file
    ? { url: file.fileWithUri, ...mediaType }
    : { raw: normalizeBase64(file.fileWithBytes) ?? file.fileWithBytes, ...mediaType }
}

const toV1Message = (message: typeof ProtoMessage.Type): v1.Message => ({
  messageId: message.messageId,
  role: typeof message.role === "number" ? roles[message.role]! : message.role,
  parts: message.content.map(toV1Part),
  ...optional("contextId", nonEmpty(message.contextId)),
  ...optional("taskId", nonEmpty(message.taskId)),
  ...optional("metadata", message.metadata),
  ...optional(
    "extensions",
    message.extensions !== undefined && message.extensions.length > 0 ? message.extensions : undefined
  )
})

const toV1PushConfig = (config: typeof ProtoPushConfig.Type, taskId?: string): v1.TaskPushNotificationConfig => ({
  url: config.url,
  ...optional("taskId", taskId),
  ...optional("id", nonEmpty(config.id)),
  ...optional("token", nonEmpty(config.token)),
  ...optional(
    "authentication",
    config.authentication === undefined ? undefined : {
      scheme: config.authentication.schemes?.[0] ?? "",
      ...optional("credentials", nonEmpty(config.authentication.credentials))
    }
  )
})

const bytesViolations = (message: typeof ProtoMessage.Type): ReadonlyArray<FieldViolation> =>
  message.content.flatMap((part, i) =>
    "file" in part && "fileWithBytes" in part.file && normalizeBase64(part.file.fileWithBytes) === undefined
      ? [{ field: `message.content[${i}].file.fileWithBytes`, description: "Must be base64-encoded bytes" }]
      : []
  )

const decodeSend = FieldViolations.decoder(ProtoSendMessageRequest)

/** A 0.3 REST `message:send` / `message:stream` body as a 1.0 SendMessageRequest. */
export const decodeSendMessageRequest = (body: unknown): Result.Result<v1.SendMessageRequest, InvalidParams> =>
  Result.flatMap(decodeSend(normalizeNames(body)), (request) => {
    const violations = bytesViolations(request.message)
    if (violations.length > 0) {
      const first = violations[0]!
      return Result.fail(
        new InvalidParams({
          message: `Invalid parameters: ${first.field}: ${first.description}`,
          fieldViolations: violations
        })
      )
    }
    const config = request.configuration
    return Result.succeed({
      message: toV1Message(request.message),
      ...optional("metadata", request.metadata),
      ...optional(
        "configuration",
        config === undefined ? undefined : {
          returnImmediately: config.blocking !== true,
          ...optional(
            "acceptedOutputModes",
            config.acceptedOutputModes !== undefined && config.acceptedOutputModes.length > 0
              ? config.acceptedOutputModes
              : undefined
          ),
          ...optional("historyLength", config.historyLength === 0 ? undefined : config.historyLength),
          ...optional(
            "taskPushNotificationConfig",
            config.pushNotification === undefined ? undefined : toV1PushConfig(config.pushNotification)
          )
        }
      )
    })
  })

const decodeConfig = FieldViolations.decoder(ProtoTaskPushConfig)

/**
 * A 0.3 REST push config body (the TaskPushNotificationConfig itself, or wrapped as `{ config }`) for a task.
 * Without an id, the task id is the config id (as 0.3 servers did).
 */
export const decodeTaskPushConfig = (
  body: unknown,
  taskId: string
): Result.Result<v1.TaskPushNotificationConfig, InvalidParams> => {
  const unwrapped = isObject(body) && isObject(body["config"]) ? body["config"] : body
  return Result.map(decodeConfig(normalizeNames(unwrapped)), (config) => {
    const translated = toV1PushConfig(config.pushNotificationConfig, taskId)
    return { ...translated, id: translated.id ?? taskId }
  })
}
