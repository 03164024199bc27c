/**
 * A2A 0.3 <-> 1.0: roles, parts and messages (spec 1.0 Appendix A.2.1).
 *
 * 0.3 parts are discriminated by `kind` (`text` | `file` | `data`), a file carrying `{bytes | uri, name,
 * mimeType}`; 1.0 parts are discriminated by their member (`text` | `raw` | `url` | `data`) with flat
 * `filename` / `mediaType`. Both sides keep base64 bytes as strings, so bytes pass through unchanged.
 *
 * What 0.3 cannot express, and what happens to it going 1.0 -> 0.3:
 * - `mediaType` / `filename` of a text or data part: dropped (0.3 TextPart / DataPart have no such fields).
 * - a data part whose value is not a JSON object (0.3 DataPart.data is an object): sent as `{ "value": v }` with
 *   `metadata.data_part_compat: true` (the convention of the official SDKs), and unwrapped again on the way
 *   back. On a data part, the metadata key `data_part_compat` is therefore reserved.
 * - `ROLE_UNSPECIFIED`: 0.3 only knows `user` and `agent`; the caller says which one stands in for it.
 * Every other field maps one to one, so 1.0 -> 0.3 -> 1.0 is the identity on the rest.
 */
import * as Predicate from "effect/Predicate"
import type * as v0_3 from "../../protocol/generated/v0_3.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { normalizeBase64 } from "./WireInput.ts"

/**
 * Metadata flag marking a non-object data value wrapped as `{ value }` for 0.3 (shared with the official SDKs).
 *
 * @since 0.1.0
 * @category constants
 */
export const DATA_PART_COMPAT_FLAG = "data_part_compat"

/**
 * `{ key: value }` when the value is set, `{}` otherwise (exactOptionalPropertyTypes-friendly spreading).
 *
 * @since 0.1.0
 * @category utils
 */
export const optional = <K extends string, A>(key: K, value: A | undefined): { readonly [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: A }

// --- Role ---

/**
 * Translates an A2A 0.3 `Role` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Role = (role: v0_3.Message["role"]): v1.Role => role === "user" ? "ROLE_USER" : "ROLE_AGENT"

/**
 * `unspecified` is what ROLE_UNSPECIFIED becomes (0.3 has no such value).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1Role = (role: v1.Role, unspecified: v0_3.Message["role"]): v0_3.Message["role"] =>
  role === "ROLE_USER" ? "user" : role === "ROLE_AGENT" ? "agent" : unspecified

// --- Part ---

/**
 * Translates an A2A 0.3 `Part` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Part = (part: v0_3.Part): v1.Part => {
  const metadata = optional("metadata", part.metadata)
  switch (part.kind) {
    case "text":
      return { text: part.text, ...metadata }
    case "file": {
      const file = part.file
      const common = { ...optional("filename", file.name), ...optional("mediaType", file.mimeType), ...metadata }
      // 1.0 bytes are standard padded base64; 0.3 peers may send either alphabet, padded or not.
      return "bytes" in file
        ? { raw: normalizeBase64(file.bytes) ?? file.bytes, ...common }
        : { url: file.uri, ...common }
    }
    case "data": {
      const meta = part.metadata
      if (meta !== undefined && meta[DATA_PART_COMPAT_FLAG] === true) {
        const keys = Object.keys(part.data)
        const { [DATA_PART_COMPAT_FLAG]: _, ...rest } = meta
        const value = keys.length === 1 && keys[0] === "value" ? part.data["value"] : part.data
        return { data: value, ...(Object.keys(rest).length > 0 ? { metadata: rest } : {}) }
      }
      return { data: part.data, ...metadata }
    }
  }
}

/**
 * Translates an A2A 1.0 `Part` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1Part = (part: v1.Part): v0_3.Part => {
  const metadata = optional("metadata", part.metadata)
  if ("text" in part) return { kind: "text", text: part.text, ...metadata }
  if ("raw" in part || "url" in part) {
    const common = { ...optional("name", part.filename), ...optional("mimeType", part.mediaType) }
    return {
      kind: "file",
      file: "raw" in part ? { bytes: part.raw, ...common } : { uri: part.url, ...common },
      ...metadata
    }
  }
  if (Predicate.isReadonlyObject(part.data)) return { kind: "data", data: part.data, ...metadata }
  return {
    kind: "data",
    data: { value: part.data },
    metadata: { ...part.metadata, [DATA_PART_COMPAT_FLAG]: true }
  }
}

// --- Message ---

/**
 * Translates an A2A 0.3 `Message` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Message = (message: v0_3.Message): v1.Message => ({
  messageId: message.messageId,
  role: toV1Role(message.role),
  parts: message.parts.map(toV1Part),
  ...optional("contextId", message.contextId),
  ...optional("taskId", message.taskId),
  ...optional("referenceTaskIds", message.referenceTaskIds),
  ...optional("extensions", message.extensions),
  ...optional("metadata", message.metadata)
})

/**
 * `unspecifiedRole` stands in for ROLE_UNSPECIFIED: "agent" for what a server emits, "user" for what a client
 * sends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1Message = (
  message: v1.Message,
  unspecifiedRole: v0_3.Message["role"] = "agent"
): v0_3.Message => ({
  kind: "message",
  messageId: message.messageId,
  role: fromV1Role(message.role, unspecifiedRole),
  parts: message.parts.map(fromV1Part),
  ...optional("contextId", message.contextId),
  ...optional("taskId", message.taskId),
  ...optional("referenceTaskIds", message.referenceTaskIds),
  ...optional("extensions", message.extensions),
  ...optional("metadata", message.metadata)
})
