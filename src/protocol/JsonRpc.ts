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
import { type A2AError, InvalidRequest, type JsonRpcErrorObject, toJsonRpcError } from "./A2AError.ts"

/** A request id: string, number or null. `undefined` marks a notification (no `id` member at all). */
export type JsonRpcId = string | number | null

export interface JsonRpcRequest {
  readonly id: JsonRpcId | undefined
  readonly method: string
  /**
   * The `params` member: an object (by-name), an array (by-position, which no A2A method takes: the binding answers
   * -32602), or undefined when absent.
   */
  readonly params: Readonly<Record<string, unknown>> | ReadonlyArray<unknown> | undefined
}

/** An envelope that is not a valid Request object, with the id to answer with (null when unknown). */
export interface EnvelopeError {
  readonly id: JsonRpcId
  readonly error: InvalidRequest
}

export const isNotification = (request: JsonRpcRequest): boolean => request.id === undefined

const invalid = (id: JsonRpcId, message: string): Result.Result<never, EnvelopeError> =>
  Result.fail({ id, error: new InvalidRequest({ message }) })

/**
 * Validates one request object. JSON-RPC 2.0 (section 4) allows `params` by name (an object) or by position (an
 * array): both make a valid Request. A2A's methods take theirs by name (spec 9.3), so by-position params are the
 * method's invalid params (-32602), decided by the binding once it knows the method; any other `params` value is
 * an invalid envelope (-32600).
 */
export const parseRequest = (u: unknown): Result.Result<JsonRpcRequest, EnvelopeError> => {
  if (!Predicate.isReadonlyObject(u)) return invalid(null, "Invalid Request: expected a JSON-RPC 2.0 request object")
  const rawId = u["id"]
  const hasId = "id" in u
  // An id of the wrong type cannot be echoed back, so the error carries null (JSON-RPC 2.0, section 5).
  if (hasId && rawId !== null && typeof rawId !== "string" && !(typeof rawId === "number" && Number.isFinite(rawId))) {
    return invalid(null, "Invalid Request: 'id' must be a string, a number or null")
  }
  const id: JsonRpcId = hasId ? (rawId as JsonRpcId) : null
  if (u["jsonrpc"] !== "2.0") return invalid(id, "Invalid Request: 'jsonrpc' must be exactly \"2.0\"")
  const method = u["method"]
  if (typeof method !== "string") return invalid(id, "Invalid Request: 'method' must be a string")
  if (method.length === 0) return invalid(id, "Invalid Request: 'method' must not be empty")
  const params = u["params"]
  if ("params" in u && !Predicate.isReadonlyObject(params) && !Array.isArray(params)) {
    return invalid(id, "Invalid Request: 'params' must be an object or an array")
  }
  return Result.succeed({
    id: hasId ? (rawId as JsonRpcId) : undefined,
    method,
    params: params as JsonRpcRequest["params"]
  })
}

/** The wire form of a success response. */
export interface JsonRpcSuccess<A = unknown> {
  readonly jsonrpc: "2.0"
  readonly id: JsonRpcId
  readonly result: A
}

/** The wire form of an error response. */
export interface JsonRpcFailure {
  readonly jsonrpc: "2.0"
  readonly id: JsonRpcId
  readonly error: JsonRpcErrorObject
}

export type JsonRpcResponse<A = unknown> = JsonRpcSuccess<A> | JsonRpcFailure

export const success = <A>(id: JsonRpcId, result: A): JsonRpcSuccess<A> => ({ jsonrpc: "2.0", id, result })

export const failure = (id: JsonRpcId, error: A2AError): JsonRpcFailure => ({
  jsonrpc: "2.0",
  id,
  error: toJsonRpcError(error)
})

// The hot path writes envelopes as strings around an already serialized result, so a result is stringified
// exactly once, without building a wrapper object first.
const idJson = (id: JsonRpcId): string => (typeof id === "string" ? JSON.stringify(id) : String(id))

/** `JSON.stringify(success(id, result))`, without the intermediate object. */
export const encodeSuccess = (id: JsonRpcId, result: unknown): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"result":${JSON.stringify(result) ?? "null"}}`

/** `JSON.stringify(failure(id, error))`. */
export const encodeFailure = (id: JsonRpcId, error: A2AError): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(toJsonRpcError(error))}}`
