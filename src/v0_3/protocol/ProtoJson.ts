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
 *
 * The bodies' Schemas, the card's included, are generated from the proto (src/protocol/generated/v0_3ProtoJson.ts,
 * codegen/FromProtoJson.ts): they hold its field names, enums and oneofs; this module only translates.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidParams } from "../../protocol/A2AError.ts"
import * as FieldViolations from "../../protocol/FieldViolations.ts"
import * as v0_3 from "../../protocol/generated/v0_3.ts"
import * as Proto from "../../protocol/generated/v0_3ProtoJson.ts"
import * as v1 from "../../protocol/generated/v1.ts"
import * as AgentCards from "./AgentCards.ts"
import { optional } from "./Messages.ts"
import { finalForSend, type FinalRule } from "./Tasks.ts"

type Json = { readonly [key: string]: unknown }

const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s === "" ? undefined : s)

// --- Enums ---

/**
 * 1.0 state -> 0.3 proto name: the same names, but CANCELLED with two Ls.
 *
 * @since 0.1.0
 * @category Output
 */
export const toProtoState = (state: v1.TaskState): string =>
  state === "TASK_STATE_CANCELED" ? "TASK_STATE_CANCELLED" : state

// --- Output (1.0 -> 0.3 ProtoJSON) ---

/**
 * @since 0.1.0
 * @category Output
 */
export const fromV1Part = (part: v1.Part): Json => {
  if ("text" in part) return { text: part.text }
  if ("raw" in part) return { file: { fileWithBytes: part.raw, ...optional("mimeType", part.mediaType) } }
  if ("url" in part) return { file: { fileWithUri: part.url, ...optional("mimeType", part.mediaType) } }
  return { data: { data: Predicate.isReadonlyObject(part.data) ? part.data : { value: part.data } } }
}

/**
 * @since 0.1.0
 * @category Output
 */
export const fromV1Message = (message: v1.Message): Json => ({
  messageId: message.messageId,
  role: message.role,
  content: message.parts.map(fromV1Part),
  ...optional("contextId", message.contextId),
  ...optional("taskId", message.taskId),
  ...optional("metadata", message.metadata),
  ...optional("extensions", message.extensions)
})

/**
 * @since 0.1.0
 * @category Output
 */
export const fromV1TaskStatus = (status: v1.TaskStatus): Json => ({
  state: toProtoState(status.state),
  ...optional("message", status.message === undefined ? undefined : fromV1Message(status.message)),
  ...optional("timestamp", status.timestamp)
})

/**
 * @since 0.1.0
 * @category Output
 */
export const fromV1Artifact = (artifact: v1.Artifact): Json => ({
  artifactId: artifact.artifactId,
  parts: artifact.parts.map(fromV1Part),
  ...optional("name", artifact.name),
  ...optional("description", artifact.description),
  ...optional("metadata", artifact.metadata),
  ...optional("extensions", artifact.extensions)
})

/**
 * @since 0.1.0
 * @category Output
 */
export const fromV1Task = (task: v1.Task): Json => ({
  id: task.id,
  contextId: task.contextId ?? "",
  status: fromV1TaskStatus(task.status),
  ...optional("artifacts", task.artifacts?.map(fromV1Artifact)),
  ...optional("history", task.history?.map(fromV1Message)),
  ...optional("metadata", task.metadata)
})

/**
 * @since 0.1.0
 * @category Output
 */
export const fromV1SendMessageResponse = (response: v1.SendMessageResponse): Json =>
  "task" in response ? { task: fromV1Task(response.task) } : { message: fromV1Message(response.message) }

/**
 * @since 0.1.0
 * @category Output
 */
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

/**
 * @since 0.1.0
 * @category Output
 */
export const configName = (taskId: string, configId: string): string =>
  `tasks/${taskId}/pushNotificationConfigs/${configId}`

/**
 * @since 0.1.0
 * @category Output
 */
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

/**
 * The 0.3 proto AgentCard for a 1.0 card (see AgentCards for the endpoint and field rules).
 *
 * @since 0.1.0
 * @category Output
 */
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

/**
 * What a request's message must carry. The proto lets every field be absent (proto3), as a response's message may
 * be; a request without these is refused, as a 0.3 JSON-RPC one is.
 */
const RequestMessage = Schema.Struct({
  message: Schema.Struct({ messageId: Schema.String, role: Schema.Unknown, content: Schema.Unknown })
})

/**
 * A 0.3 REST TaskPushNotificationConfig.
 *
 * @since 0.1.0
 * @category Input
 */
export const ProtoTaskPushConfig = Proto.TaskPushNotificationConfig

const nonEmptyList = <A>(
  list: ReadonlyArray<A> | undefined
) => (list !== undefined && list.length > 0 ? list : undefined)

const toV1Part = (part: Proto.Part): v1.Part => {
  if ("text" in part) return { text: part.text }
  if ("data" in part) return { data: part.data.data }
  const file = part.file
  const mediaType = optional("mediaType", nonEmpty(file.mimeType))
  return "fileWithUri" in file ? { url: file.fileWithUri, ...mediaType } : { raw: file.fileWithBytes, ...mediaType }
}

const toV1Message = (m: Proto.Message): v1.Message => ({
  messageId: m.messageId ?? "",
  role: m.role ?? "ROLE_UNSPECIFIED",
  parts: (m.content ?? []).map(toV1Part),
  ...optional("contextId", nonEmpty(m.contextId)),
  ...optional("taskId", nonEmpty(m.taskId)),
  ...optional("metadata", m.metadata),
  ...optional("extensions", nonEmptyList(m.extensions))
})

const toV1PushConfig = (config: Proto.PushNotificationConfig, taskId?: string): v1.TaskPushNotificationConfig => ({
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

const decodeSend = FieldViolations.decoder(Proto.SendMessageRequest)
const checkRequestMessage = FieldViolations.decoder(RequestMessage)

/**
 * A 0.3 REST `message:send` / `message:stream` body as a 1.0 SendMessageRequest.
 *
 * @since 0.1.0
 * @category Input
 */
export const decodeSendMessageRequest = (body: unknown): Result.Result<v1.SendMessageRequest, InvalidParams> => {
  const decoded = Result.flatMap(decodeSend(body), (request) => Result.map(checkRequestMessage(request), () => request))
  return Result.map(decoded, (request) => {
    const config = request.configuration
    return {
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
    }
  })
}

const decodeConfig = FieldViolations.decoder(ProtoTaskPushConfig)

/**
 * A 0.3 REST push config body (the TaskPushNotificationConfig itself, or wrapped as `{ config }`) for a task.
 * Without an id, the task id is the config id (as 0.3 servers did).
 *
 * @since 0.1.0
 * @category Input
 */
export const decodeTaskPushConfig = (
  body: unknown,
  taskId: string
): Result.Result<v1.TaskPushNotificationConfig, InvalidParams> => {
  const unwrapped = Predicate.isReadonlyObject(body) && Predicate.isReadonlyObject(body["config"])
    ? body["config"]
    : body
  return Result.map(decodeConfig(unwrapped), (config) => {
    const translated = toV1PushConfig(config.pushNotificationConfig, taskId)
    return { ...translated, id: translated.id ?? taskId }
  })
}

// --- Client side: requests to a 0.3 REST server, and its responses ---

/**
 * The body of `message:send` / `message:stream` for a 1.0 request (ROLE_UNSPECIFIED goes out as ROLE_USER).
 *
 * @since 0.1.0
 * @category Client side
 */
export const toProtoSendMessageRequest = (request: v1.SendMessageRequest): Json => {
  const config = request.configuration
  const push = config?.taskPushNotificationConfig
  return {
    message: fromV1Message({
      ...request.message,
      role: request.message.role === "ROLE_UNSPECIFIED" ? "ROLE_USER" : request.message.role
    }),
    // `blocking` is a proto3 bool: always written, so the server cannot read an absent one as false.
    configuration: {
      blocking: config?.returnImmediately !== true,
      ...optional("acceptedOutputModes", config?.acceptedOutputModes),
      ...optional("historyLength", config?.historyLength),
      ...optional("pushNotification", push === undefined ? undefined : fromV1PushConfig(push)["pushNotificationConfig"])
    },
    ...optional("metadata", request.metadata)
  }
}

/** 0.3 spells it CANCELLED (1.0's CANCELED, which some 0.3 servers write, is read as it: the overlay). */
const toV1State = (state: Proto.TaskState): v1.TaskState =>
  state === "TASK_STATE_CANCELLED" ? "TASK_STATE_CANCELED" : state

/**
 * A 0.3 REST Task.
 *
 * @since 0.1.0
 * @category Client side
 */
export const ProtoTask = Proto.Task

/**
 * A 0.3 REST SendMessageResponse.
 *
 * @since 0.1.0
 * @category Client side
 */
export const ProtoSendMessageResponse = Proto.SendMessageResponse

/**
 * A 0.3 REST stream event (a StreamResponse).
 *
 * @since 0.1.0
 * @category Client side
 */
export const ProtoStreamResponse = Proto.StreamResponse

/**
 * A 0.3 REST ListTaskPushNotificationConfigResponse.
 *
 * @since 0.1.0
 * @category Client side
 */
export const ProtoListPushConfigs = Proto.ListTaskPushNotificationConfigResponse

// Proto3 writers omit empty and zero fields: what may be absent reads as its default.
const responseStatus = (s: Proto.TaskStatus | undefined): v1.TaskStatus => ({
  state: s?.state === undefined ? "TASK_STATE_UNSPECIFIED" : toV1State(s.state),
  ...optional("message", s?.message === undefined ? undefined : toV1Message(s.message)),
  ...optional("timestamp", nonEmpty(s?.timestamp))
})

const responseArtifact = (a: Proto.Artifact): v1.Artifact => ({
  artifactId: a.artifactId ?? "",
  parts: (a.parts ?? []).map(toV1Part),
  ...optional("name", nonEmpty(a.name)),
  ...optional("description", nonEmpty(a.description)),
  ...optional("metadata", a.metadata),
  ...optional("extensions", nonEmptyList(a.extensions))
})

/**
 * @since 0.1.0
 * @category Client side
 */
export const toV1Task = (t: Proto.Task): v1.Task => ({
  id: t.id,
  contextId: t.contextId ?? "",
  status: responseStatus(t.status),
  ...optional("artifacts", nonEmptyList(t.artifacts)?.map(responseArtifact)),
  ...optional("history", nonEmptyList(t.history)?.map(toV1Message)),
  ...optional("metadata", t.metadata)
})

/**
 * @since 0.1.0
 * @category Client side
 */
export const toV1SendMessageResponse = (r: Proto.SendMessageResponse): v1.SendMessageResponse =>
  "task" in r ? { task: toV1Task(r.task) } : { message: toV1Message(r.message) }

/**
 * @since 0.1.0
 * @category Client side
 */
export const toV1StreamResponse = (r: Proto.StreamResponse): v1.StreamResponse => {
  if ("task" in r) return { task: toV1Task(r.task) }
  if ("message" in r) return { message: toV1Message(r.message) }
  if ("statusUpdate" in r) {
    const e = r.statusUpdate
    return {
      statusUpdate: {
        taskId: e.taskId,
        contextId: e.contextId ?? "",
        status: responseStatus(e.status),
        ...optional("metadata", e.metadata)
      }
    }
  }
  const e = r.artifactUpdate
  return {
    artifactUpdate: {
      taskId: e.taskId,
      contextId: e.contextId ?? "",
      artifact: responseArtifact(e.artifact),
      ...optional("append", e.append),
      ...optional("lastChunk", e.lastChunk),
      ...optional("metadata", e.metadata)
    }
  }
}

const configNamePattern = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/

/**
 * A 0.3 REST TaskPushNotificationConfig (task and config ids from its `name`, else the given task).
 *
 * @since 0.1.0
 * @category Client side
 */
export const toV1TaskPushConfig = (
  c: Proto.TaskPushNotificationConfig,
  taskId: string
): v1.TaskPushNotificationConfig => {
  const named = c.name === undefined ? null : configNamePattern.exec(c.name)
  const translated = toV1PushConfig(c.pushNotificationConfig, named?.[1] ?? taskId)
  const id = translated.id ?? nonEmpty(named?.[2])
  return id === undefined ? translated : { ...translated, id }
}

const decodeProtoCard = Schema.decodeUnknownOption(Proto.AgentCard)
const decodeCard03 = Schema.decodeUnknownOption(v0_3.AgentCard)
const decodeSchemes = Schema.decodeUnknownOption(Schema.Record(Schema.String, v1.SecurityScheme))
const decodeV1Requirements = Schema.decodeUnknownOption(Schema.Array(v1.SecurityRequirement))
const decodeRequirements = (security: ReadonlyArray<Proto.Security> | undefined) =>
  security === undefined ? Option.none() : decodeV1Requirements(security)

/**
 * A 0.3 proto AgentCard (`GET /v1/card`, JSON or proto field names) as a 1.0 card: read like a 0.3 JSON card
 * (AgentCards), except the security fields, which the proto already writes in the 1.0 forms (member-discriminated
 * schemes, `{ schemes }` requirements; left out when 1.0 cannot read them). None when it is not a card: not the
 * proto's AgentCard (the generated Schema), or not a 0.3 card.
 *
 * @since 0.1.0
 * @category Client side
 */
export const toV1AgentCard = (json: unknown): Option.Option<v1.AgentCard> =>
  Option.flatMap(
    decodeProtoCard(json),
    ({ security, securitySchemes, skills = [], ...rest }) =>
      Option.map(decodeCard03({ ...rest, skills: skills.map(({ security: _, ...skill }) => skill) }), (card03) => {
        const card = AgentCards.toV1AgentCard(card03)
        const schemes = securitySchemes === undefined ? Option.none() : decodeSchemes(securitySchemes)
        const requirements = decodeRequirements(security)
        return {
          ...card,
          skills: card.skills.map((skill, i) => {
            const own = decodeRequirements(skills[i]?.security)
            return Option.isSome(own) ? { ...skill, securityRequirements: own.value } : skill
          }),
          ...(Option.isSome(schemes) ? { securitySchemes: schemes.value } : {}),
          ...(Option.isSome(requirements) ? { securityRequirements: requirements.value } : {})
        }
      })
  )
