/**
 * Schema decode failures as google.rpc.BadRequest field violations (spec 3.3.2, 9.5): every problem of a
 * request, each with the path of the offending field (`message.parts[0].text`) and what was expected.
 *
 * @example
 * ```ts
 * import { FieldViolations } from "effect-a2a/protocol"
 * import { SendMessageRequest } from "effect-a2a/protocol/v1"
 *
 * const decode = FieldViolations.decoder(SendMessageRequest)
 * decode({ message: { role: "ROLE_USER" } }) // Failure(InvalidParams listing message.messageId, message.parts)
 * ```
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { type FieldViolation, InvalidParams } from "./A2AError.ts"
import * as v1 from "./generated/v1.ts"
import * as PlainGetTaskRequest from "./internal/PlainGetTaskRequest.ts"
import * as PlainSendMessageRequest from "./internal/PlainSendMessageRequest.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

// A violation echoes part of the client's input; long values are cut so an error stays small.
const MAX_DESCRIPTION = 300

const truncate = (s: string): string => (s.length > MAX_DESCRIPTION ? `${s.slice(0, MAX_DESCRIPTION - 1)}…` : s)

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * `["message", "parts", 0, "text"]` -> `message.parts[0].text` (google.rpc.BadRequest field path syntax).
 *
 * @since 0.1.0
 * @category utils
 */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`
    else {
      const key = typeof segment === "symbol" ? String(segment) : segment
      out += identifier.test(key) ? (out === "" ? key : `.${key}`) : `[${JSON.stringify(key)}]`
    }
  }
  return out
}

// How many required keys a union member found missing: the member that lacks the fewest is the one the
// input meant (a Part with a `text` key is a text part, whatever else is wrong with it).
const missingKeys = (issue: SchemaIssue.Issue): number => {
  switch (issue._tag) {
    case "MissingKey":
      return 1
    case "Pointer":
    case "Encoding":
    case "Filter":
      return missingKeys(issue.issue)
    case "Composite":
    case "AnyOf":
      return issue.issues.reduce((n, i) => n + missingKeys(i), 0)
    default:
      return 0
  }
}

interface Flat {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * Flattens an issue into (path, message) pairs with Effect's standard messages, except that a union that
 * failed in every member reports only the members closest to the input, instead of every member's
 * complaints (which for a oneof would list each alternative's missing key).
 */
const flatten = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Array<Flat> => {
  switch (issue._tag) {
    case "Pointer":
      return flatten(issue.issue, [...path, ...issue.path])
    case "Encoding":
      return flatten(issue.issue, path)
    case "Composite":
      return issue.issues.flatMap((i) => flatten(i, path))
    case "AnyOf": {
      if (issue.issues.length < 2) break
      const scores = issue.issues.map(missingKeys)
      const best = Math.min(...scores)
      return issue.issues.filter((_, i) => scores[i] === best).flatMap((i) => flatten(i, path))
    }
  }
  return formatter(issue).issues.map((i) => ({
    path: [...path, ...(i.path ?? []).map((s) => (typeof s === "object" ? s.key : s))],
    message: i.message
  }))
}

/**
 * The violations of one schema issue, with `prefix` before every field path (e.g. the params' name).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromIssue = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<PropertyKey> = []): Array<FieldViolation> => {
  const seen = new Set<string>()
  const out: Array<FieldViolation> = []
  for (const i of flatten(issue, prefix)) {
    const field = formatPath(i.path)
    const description = truncate(i.message)
    const key = `${field}\u0000${description}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ field, description })
  }
  return out
}

/**
 * InvalidParams for a schema issue: a short message naming the fields, every violation in the details.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toInvalidParams = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<PropertyKey> = []): InvalidParams => {
  const fieldViolations = fromIssue(issue, prefix)
  const fields = [...new Set(fieldViolations.map((v) => v.field || "(root)"))]
  const first = fieldViolations[0]
  const message = fieldViolations.length === 1 && first !== undefined
    ? `Invalid parameters: ${first.field || "(root)"}: ${first.description}`
    : `Invalid parameters: ${fields.slice(0, 5).join(", ")}${fields.length > 5 ? ", …" : ""}`
  return new InvalidParams({ message, fieldViolations })
}

/**
 * Hand-written decoders of the commonest requests' usual form, tried before the Schema (the server decodes one for
 * every SendMessage, SendStreamingMessage and GetTask): what they return is what the Schema would, which a test
 * holds them to; undefined leaves the input to the Schema.
 */
const plainDecoderOf = (schema: unknown): ((input: unknown) => unknown) | undefined =>
  schema === v1.SendMessageRequest
    ? PlainSendMessageRequest.decode
    : schema === v1.GetTaskRequest
    ? PlainGetTaskRequest.decode
    : undefined

/**
 * A decoder that reports every violation at once (`errors: "all"`) and fails with InvalidParams. Build it
 * once per schema and reuse it: the parsers are compiled on creation. A valid request is decoded once, in the
 * default mode that stops at the first issue (cheaper); only an invalid one is decoded again to list them all.
 *
 * @since 0.1.0
 * @category utils
 */
export const decoder = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  prefix: ReadonlyArray<PropertyKey> = []
) => {
  const decodeFirst = Schema.decodeUnknownResult(schema)
  const decodeAll = Schema.decodeUnknownResult(schema, { errors: "all" })
  const plain = plainDecoderOf(schema)
  return (input: unknown): Result.Result<S["Type"], InvalidParams> => {
    if (plain !== undefined) {
      const fast = plain(input)
      if (fast !== undefined) return Result.succeed(fast as S["Type"])
    }
    const decoded = decodeFirst(input)
    return Result.isSuccess(decoded)
      ? Result.succeed(decoded.success)
      : Result.mapError(decodeAll(input), (e) => toInvalidParams(e.issue, prefix))
  }
}
