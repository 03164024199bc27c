/**
 * Reading A2A 0.3 wire values (request params on a server, results on a client): older shapes are accepted,
 * then the generated 0.3 Schemas decide, and whatever they reject is an InvalidParams naming every offending
 * field in 0.3 terms.
 *
 * Leniency towards 0.1 / 0.2 peers, on input only (output is always the requested version's form):
 * - a part with `type` (`text` | `file` | `data`) and no `kind` is read as if `type` were `kind`;
 * - the message of `message/send` / `message/stream` params may omit `kind: "message"`.
 * File bytes must be base64 (the 0.3 schema does not say so, 1.0 does); the URL-safe alphabet and missing
 * padding are accepted and normalised, as 1.0 ProtoJSON parsers do.
 */
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { type FieldViolation, InvalidParams } from "../../protocol/A2AError.ts"
import * as FieldViolations from "../../protocol/FieldViolations.ts"
import type * as v0_3 from "../../protocol/generated/v0_3.ts"

const partKinds: ReadonlySet<unknown> = new Set(["text", "file", "data"])

/** A part with a legacy `type` discriminator, read as `kind`. */
const normalizePart = (part: unknown): unknown =>
  Predicate.isReadonlyObject(part) && part["kind"] === undefined && partKinds.has(part["type"])
    ? { ...part, kind: part["type"] }
    : part

/**
 * Every `parts` array below `value` with legacy parts normalised. Objects and arrays are copied only where
 * something changes; depth is bounded because the input is parsed JSON of bounded size.
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeParts = (value: unknown): unknown => {
  if (Array.isArray(value)) {
    let out: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const next = normalizeParts(item)
      if (next !== item) {
        out ??= value.slice()
        out[i] = next
      }
    }
    return out ?? value
  }
  if (!Predicate.isReadonlyObject(value)) return value
  let out: Record<string, unknown> | undefined
  for (const key in value) {
    const item = value[key]
    let next = normalizeParts(item)
    if (key === "parts" && Array.isArray(next)) {
      const parts: Array<unknown> = next
      const normalized = parts.map(normalizePart)
      if (normalized.some((p, i) => p !== parts[i])) next = normalized
    }
    if (next !== item) {
      out ??= { ...value }
      out[key] = next
    }
  }
  return out ?? value
}

/**
 * `message/send` params as 0.3 expects them, with the leniency above.
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeSendParams = (params: unknown): unknown => {
  const normalized = normalizeParts(params)
  if (!Predicate.isReadonlyObject(normalized)) return normalized
  const message = normalized["message"]
  return Predicate.isReadonlyObject(message) && message["kind"] === undefined
    ? { ...normalized, message: { ...message, kind: "message" } }
    : normalized
}

const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/**
 * Standard padded base64 for base64 in either alphabet, padded or not; undefined when it is not base64.
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeBase64 = (s: string): string | undefined => {
  if (!base64.test(s)) return undefined
  const standard = s.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "")
  if (standard.length % 4 === 1) return undefined
  return standard.padEnd(Math.ceil(standard.length / 4) * 4, "=")
}

/**
 * Violations of the base64 rule in a message's parts, with their 0.3 field paths.
 *
 * @since 0.1.0
 * @category utils
 */
export const checkMessageBytes = (message: v0_3.Message, path: string): ReadonlyArray<FieldViolation> =>
  message.parts.flatMap((part, i) =>
    part.kind === "file" && "bytes" in part.file && normalizeBase64(part.file.bytes) === undefined
      ? [{ field: `${path}.parts[${i}].file.bytes`, description: "Must be base64-encoded bytes" }]
      : []
  )

/**
 * A decoder for 0.3 params: `prepare` normalises the input, the Schema checks it, `check` adds semantic
 * violations. Build it once per Schema.
 *
 * @since 0.1.0
 * @category utils
 */
export const decoder = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  options: {
    readonly prepare?: ((u: unknown) => unknown) | undefined
    readonly check?: ((value: S["Type"]) => ReadonlyArray<FieldViolation>) | undefined
  } = {}
) => {
  const decode = FieldViolations.decoder(schema)
  const prepare = options.prepare ?? normalizeParts
  const check = options.check
  return (input: unknown): Result.Result<S["Type"], InvalidParams> => {
    const decoded = decode(prepare(input))
    if (Result.isFailure(decoded) || check === undefined) return decoded
    const violations = check(decoded.success)
    if (violations.length === 0) return decoded
    const first = violations[0]!
    return Result.fail(
      new InvalidParams({
        message: violations.length === 1
          ? `Invalid parameters: ${first.field}: ${first.description}`
          : `Invalid parameters: ${[...new Set(violations.map((v) => v.field))].join(", ")}`,
        fieldViolations: violations
      })
    )
  }
}
