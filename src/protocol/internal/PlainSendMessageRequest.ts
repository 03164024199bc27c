/**
 * The common form of a SendMessageRequest, decoded by hand: what `v1.SendMessageRequest` (the generated Schema)
 * makes of it, in one pass and without the Schema's generic machinery. Every SendMessage and SendStreamingMessage
 * pays for its decode, and the Schema's, with its ProtoJSON normalisation and the oneof narrowing of every Part,
 * costs more CPU and garbage per request.
 *
 * The common form: plain objects with the JSON (camelCase) field names, no `null` where null means "not set",
 * strings, booleans and int32 numbers where the Schema wants them, text, url or data parts. Anything else (proto
 * field names, nulls, enum numbers, decimal strings, raw parts, a push config, anything invalid) is `undefined`:
 * the Schema decides it, and reports what is wrong. A test holds the two to the same answer
 * (test/protocol/PlainSendMessageRequest.test.ts): on input decoded here the result equals the Schema's, key order
 * included (objects are built in the Schema's field order, unknown fields dropped, arrays and maps copied).
 */
import type * as v1 from "../generated/v1.ts"
import { isPlainObject } from "./JsonObject.ts"

/** A google.protobuf.Struct: a shallow copy of a plain object; undefined when it holds a key assignment would mangle. */
const struct = (u: unknown): Record<string, unknown> | undefined => {
  if (!isPlainObject(u)) return undefined
  const out: Record<string, unknown> = {}
  for (const key in u) {
    const value = u[key]
    if (key === "__proto__" || value === undefined) return undefined
    out[key] = value
  }
  return out
}

/** A copy of an array of strings; undefined when it is not one. */
const strings = (u: unknown): Array<string> | undefined => {
  if (!Array.isArray(u)) return undefined
  const out = new Array<string>(u.length)
  for (let i = 0; i < u.length; i++) {
    const s: unknown = u[i]
    if (typeof s !== "string") return undefined
    out[i] = s
  }
  return out
}

const isInt32 = (u: unknown): u is number =>
  Number.isInteger(u) && (u as number) >= -2147483648 && (u as number) <= 2147483647

type Member = "text" | "url" | "data"

/** A Part with exactly one of `text`, `url`, `data`; its fields in the Schema's order (the member, then the rest). */
const part = (u: unknown): v1.Part | undefined => {
  if (!isPlainObject(u)) return undefined
  let member: Member | undefined
  let filename: string | undefined
  let mediaType: string | undefined
  let metadata: unknown
  for (const key in u) {
    const value = u[key]
    // never from JSON; the Schema tells an undefined field from an absent one
    if (value === undefined) return undefined
    switch (key) {
      case "text":
      case "url":
        if (member !== undefined || typeof value !== "string") return undefined
        member = key
        break
      case "data":
        // google.protobuf.Value: null is a value here
        if (member !== undefined) return undefined
        member = key
        break
      case "filename":
        if (typeof value !== "string") return undefined
        filename = value
        break
      case "mediaType":
        if (typeof value !== "string") return undefined
        mediaType = value
        break
      case "metadata":
        metadata = value
        break
      // `raw` (base64, normalised by the Schema), the proto name `media_type`: the Schema's
      case "raw":
      case "media_type":
      case "__proto__":
        return undefined
    }
  }
  if (member === undefined) return undefined
  const out: Record<string, unknown> = { [member]: u[member] }
  if (filename !== undefined) out["filename"] = filename
  if (mediaType !== undefined) out["mediaType"] = mediaType
  if (metadata !== undefined) {
    const copy = struct(metadata)
    if (copy === undefined) return undefined
    out["metadata"] = copy
  }
  return out as v1.Part
}

const isRole = (u: unknown): u is v1.Role => u === "ROLE_USER" || u === "ROLE_AGENT" || u === "ROLE_UNSPECIFIED"

const message = (u: unknown): v1.Message | undefined => {
  if (!isPlainObject(u)) return undefined
  let contextId: string | undefined
  let extensions: unknown
  let messageId: string | undefined
  let metadata: unknown
  let parts: unknown
  let referenceTaskIds: unknown
  let role: v1.Role | undefined
  let taskId: string | undefined
  for (const key in u) {
    const value = u[key]
    // never from JSON; the Schema tells an undefined field from an absent one
    if (value === undefined) return undefined
    switch (key) {
      case "contextId":
        if (typeof value !== "string") return undefined
        contextId = value
        break
      case "extensions":
        extensions = value
        break
      case "messageId":
        if (typeof value !== "string") return undefined
        messageId = value
        break
      case "metadata":
        metadata = value
        break
      case "parts":
        parts = value
        break
      case "referenceTaskIds":
        referenceTaskIds = value
        break
      case "role":
        if (!isRole(value)) return undefined
        role = value
        break
      case "taskId":
        if (typeof value !== "string") return undefined
        taskId = value
        break
      case "context_id":
      case "message_id":
      case "reference_task_ids":
      case "task_id":
      case "__proto__":
        return undefined
    }
  }
  if (messageId === undefined || role === undefined || !Array.isArray(parts) || parts.length === 0) return undefined
  const decodedParts = new Array<v1.Part>(parts.length)
  for (let i = 0; i < parts.length; i++) {
    const p = part(parts[i])
    if (p === undefined) return undefined
    decodedParts[i] = p
  }
  const out: Record<string, unknown> = {}
  if (contextId !== undefined) out["contextId"] = contextId
  if (extensions !== undefined) {
    const copy = strings(extensions)
    if (copy === undefined) return undefined
    out["extensions"] = copy
  }
  out["messageId"] = messageId
  if (metadata !== undefined) {
    const copy = struct(metadata)
    if (copy === undefined) return undefined
    out["metadata"] = copy
  }
  out["parts"] = decodedParts
  if (referenceTaskIds !== undefined) {
    const copy = strings(referenceTaskIds)
    if (copy === undefined) return undefined
    out["referenceTaskIds"] = copy
  }
  out["role"] = role
  if (taskId !== undefined) out["taskId"] = taskId
  return out as unknown as v1.Message
}

const configuration = (u: unknown): v1.SendMessageConfiguration | undefined => {
  if (!isPlainObject(u)) return undefined
  let acceptedOutputModes: unknown
  let historyLength: number | undefined
  let returnImmediately: boolean | undefined
  for (const key in u) {
    const value = u[key]
    // never from JSON; the Schema tells an undefined field from an absent one
    if (value === undefined) return undefined
    switch (key) {
      case "acceptedOutputModes":
        acceptedOutputModes = value
        break
      case "historyLength":
        if (!isInt32(value)) return undefined
        historyLength = value
        break
      case "returnImmediately":
        if (typeof value !== "boolean") return undefined
        returnImmediately = value
        break
      // a push config (its own message, rare on this path), the A2A 1.1 draft's condition and the proto names: the
      // Schema's
      case "taskPushNotificationConfig":
      case "ifGenerationMatch":
      case "if_generation_match":
      case "accepted_output_modes":
      case "history_length":
      case "return_immediately":
      case "task_push_notification_config":
      case "__proto__":
        return undefined
    }
  }
  const out: Record<string, unknown> = {}
  if (acceptedOutputModes !== undefined) {
    const copy = strings(acceptedOutputModes)
    if (copy === undefined) return undefined
    out["acceptedOutputModes"] = copy
  }
  if (historyLength !== undefined) out["historyLength"] = historyLength
  if (returnImmediately !== undefined) out["returnImmediately"] = returnImmediately
  return out as v1.SendMessageConfiguration
}

/** The request `u` is, when it is in the common form; undefined when the Schema must decide. */
export const decode = (u: unknown): v1.SendMessageRequest | undefined => {
  if (!isPlainObject(u)) return undefined
  let config: unknown
  let msg: unknown
  let metadata: unknown
  let tenant: string | undefined
  for (const key in u) {
    const value = u[key]
    // never from JSON; the Schema tells an undefined field from an absent one
    if (value === undefined) return undefined
    switch (key) {
      case "configuration":
        config = value
        break
      case "message":
        msg = value
        break
      case "metadata":
        metadata = value
        break
      case "tenant":
        if (typeof value !== "string") return undefined
        tenant = value
        break
      case "__proto__":
        return undefined
    }
  }
  const out: Record<string, unknown> = {}
  if (config !== undefined) {
    const decoded = configuration(config)
    if (decoded === undefined) return undefined
    out["configuration"] = decoded
  }
  const decodedMessage = message(msg)
  if (decodedMessage === undefined) return undefined
  out["message"] = decodedMessage
  if (metadata !== undefined) {
    const copy = struct(metadata)
    if (copy === undefined) return undefined
    out["metadata"] = copy
  }
  if (tenant !== undefined) out["tenant"] = tenant
  return out as unknown as v1.SendMessageRequest
}
