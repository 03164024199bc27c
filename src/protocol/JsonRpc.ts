/**
 * JSON-RPC 2.0 envelopes (https://www.jsonrpc.org/specification, spec 9): validating a request object,
 * and writing response objects. Pure functions on parsed JSON; the HTTP binding does the I/O. Validation
 * follows JSON-RPC 2.0 to the letter because clients rely on the codes: a malformed envelope is -32600
 * (Invalid Request), never -32602, which is kept for params the method's schema rejects.
 *
 * @example
 * ```ts
 * import { JsonRpc } from "effect-a2a/protocol"
 *
 * const parsed = JsonRpc.parseRequest({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t-1" } })
 * JsonRpc.encodeSuccess(1, { ok: true }) // '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}'
 * ```
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaIssue from "effect/SchemaIssue"
import { type A2AError, InvalidRequest, type JsonRpcErrorObject, toJsonRpcError } from "./A2AError.ts"
import { isPlainObject } from "./internal/JsonObject.ts"

/**
 * A request id: string, number or null. `undefined` marks a notification (no `id` member at all).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcId = string | number | null

/**
 * A JSON-RPC 2.0 request, as read from the envelope.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonRpcRequest {
  readonly id: JsonRpcId | undefined
  readonly method: string
  /**
   * The `params` member: an object (by-name), an array (by-position, which no A2A method takes: the binding answers
   * -32602), or undefined when absent.
   */
  readonly params: Readonly<Record<string, unknown>> | ReadonlyArray<unknown> | undefined
}

/**
 * An envelope that is not a valid Request object, with the id to answer with (null when unknown).
 *
 * @since 0.1.0
 * @category errors
 */
export interface EnvelopeError {
  readonly id: JsonRpcId
  readonly error: InvalidRequest
}

/**
 * Whether a request is a notification (it has no id, and gets no answer).
 *
 * @since 0.1.0
 * @category guards
 */
export const isNotification = (request: JsonRpcRequest): boolean => request.id === undefined

/**
 * A request id as JSON-RPC 2.0 allows it (section 4): a string, a number or null.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcIdSchema = Schema.Union([Schema.String, Schema.Finite, Schema.Null])

/**
 * A Request object (JSON-RPC 2.0 section 4). `params` may be by name (an object) or by position (an array): both
 * make a valid Request. A2A's methods take theirs by name (spec 9.3), so by-position params are the method's
 * invalid params (-32602), which the binding decides once it knows the method. `id` is declared first: when it is
 * invalid it is the issue reported, and otherwise it can be echoed in the error.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestEnvelope = Schema.Struct({
  id: Schema.optionalKey(JsonRpcIdSchema),
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.NonEmptyString,
  params: Schema.optionalKey(Schema.Union([Schema.Array(Schema.Unknown), Schema.Record(Schema.String, Schema.Unknown)]))
})

const decodeEnvelope = Schema.decodeUnknownResult(RequestEnvelope)

/** The first member of the envelope an issue is about ("" for the envelope itself). */
const memberOf = (issue: SchemaIssue.Issue): PropertyKey => {
  switch (issue._tag) {
    case "Pointer":
      return issue.path[0] ?? memberOf(issue.issue)
    case "Composite":
      return issue.issues[0] === undefined ? "" : memberOf(issue.issues[0])
    case "Encoding":
      return memberOf(issue.issue)
    default:
      return ""
  }
}

/**
 * The request when `u` is a plain object (what JSON.parse makes) that `RequestEnvelope` accepts, checked by hand;
 * undefined for anything else, which the Schema then decides (and names the member at fault). Every request pays
 * for this check, so it is the Schema's rules written out once: a generic decode of the envelope costs more than
 * the rest of the envelope's handling together.
 */
const wellFormed = (u: unknown): JsonRpcRequest | undefined => {
  if (!isPlainObject(u) || u["jsonrpc"] !== "2.0") return undefined
  const method = u["method"]
  if (typeof method !== "string" || method.length === 0) return undefined
  const id = u["id"]
  if (id === undefined) {
    if (Object.hasOwn(u, "id")) return undefined
  } else if (id !== null && typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) {
    return undefined
  }
  const params = u["params"]
  if (params === undefined) {
    if (Object.hasOwn(u, "params")) return undefined
    return { id, method, params }
  }
  return Array.isArray(params) || isPlainObject(params) ? { id, method, params } : undefined
}

const invalid = (id: JsonRpcId, message: string): Result.Result<never, EnvelopeError> =>
  Result.fail({ id, error: new InvalidRequest({ message }) })

/**
 * Validates one request object against `RequestEnvelope`. A malformed envelope is -32600 with a message naming
 * the member at fault, and the request's id when that id is itself valid (JSON-RPC 2.0 section 5: null when it
 * cannot be known).
 *
 * @since 0.1.0
 * @category utils
 */
export const parseRequest = (u: unknown): Result.Result<JsonRpcRequest, EnvelopeError> => {
  const valid = wellFormed(u)
  if (valid !== undefined) return Result.succeed(valid)
  const decoded = decodeEnvelope(u)
  if (Result.isSuccess(decoded)) {
    const { id, method, params } = decoded.success
    return Result.succeed({ id, method, params })
  }
  if (!Predicate.isReadonlyObject(u)) return invalid(null, "Invalid Request: expected a JSON-RPC 2.0 request object")
  const member = memberOf(decoded.failure.issue)
  if (member === "id") return invalid(null, "Invalid Request: 'id' must be a string, a number or null")
  const id = "id" in u ? (u["id"] as JsonRpcId) : null
  switch (member) {
    case "jsonrpc":
      return invalid(id, "Invalid Request: 'jsonrpc' must be exactly \"2.0\"")
    case "method":
      return invalid(
        id,
        typeof u["method"] === "string"
          ? "Invalid Request: 'method' must not be empty"
          : "Invalid Request: 'method' must be a string"
      )
    case "params":
      return invalid(id, "Invalid Request: 'params' must be an object or an array")
    default:
      return invalid(id, "Invalid Request: expected a JSON-RPC 2.0 request object")
  }
}

/**
 * The wire form of a success response.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonRpcSuccess<A = unknown> {
  readonly jsonrpc: "2.0"
  readonly id: JsonRpcId
  readonly result: A
}

/**
 * The wire form of an error response.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonRpcFailure {
  readonly jsonrpc: "2.0"
  readonly id: JsonRpcId
  readonly error: JsonRpcErrorObject
}

/**
 * A JSON-RPC 2.0 response: a success or a failure.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcResponse<A = unknown> = JsonRpcSuccess<A> | JsonRpcFailure

/**
 * A JSON-RPC success response.
 *
 * @since 0.1.0
 * @category constructors
 */
export const success = <A>(id: JsonRpcId, result: A): JsonRpcSuccess<A> => ({ jsonrpc: "2.0", id, result })

/**
 * A JSON-RPC failure response for an A2A error.
 *
 * @since 0.1.0
 * @category constructors
 */
export const failure = (id: JsonRpcId, error: A2AError): JsonRpcFailure => ({
  jsonrpc: "2.0",
  id,
  error: toJsonRpcError(error)
})

// The hot path writes envelopes as strings around an already serialized result, so a result is stringified
// exactly once, without building a wrapper object first.
const idJson = (id: JsonRpcId): string => (typeof id === "string" ? JSON.stringify(id) : String(id))

/**
 * `JSON.stringify(success(id, result))`, without the intermediate object.
 *
 * @since 0.1.0
 * @category conversions
 */
export const encodeSuccess = (id: JsonRpcId, result: unknown): string =>
  encodeSuccessJson(id, JSON.stringify(result) ?? "null")

/**
 * `encodeSuccess` of a result already written as JSON text.
 *
 * @since 0.1.0
 * @category conversions
 */
export const encodeSuccessJson = (id: JsonRpcId, resultJson: string): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"result":${resultJson}}`

/**
 * `JSON.stringify(failure(id, error))`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const encodeFailure = (id: JsonRpcId, error: A2AError): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(toJsonRpcError(error))}}`
