/**
 * The JSON-RPC 2.0 binding (spec 9): one POST endpoint for all eleven methods, SSE for the streaming ones.
 *
 * Per request: authenticate (before the body is read, so unauthenticated clients cannot make the server
 * buffer their bodies), read and parse the body once, negotiate the version, then dispatch each request
 * object. Errors follow JSON-RPC 2.0 exactly: -32700 for bad JSON, -32600 for a malformed envelope, -32601
 * for an unknown method, -32602 when the method's schema rejects the params (with field violations).
 * Notifications are run but never answered; a batch is answered with an array, without streaming methods.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import { type A2AError, InvalidParams, InvalidRequest, MethodNotFound } from "../../protocol/A2AError.ts"
import * as JsonRpc from "../../protocol/JsonRpc.ts"
import type { Principal } from "../../server/Auth.ts"
import type { CallContext } from "../../server/CallContext.ts"
import { matchEffectEager } from "../../server/internal/EagerMatch.ts"
import { type MethodTable, resultJson } from "../../server/MethodTable.ts"
import * as HttpCallContext from "../HttpCallContext.ts"
import { fromCause, JSON_CONTENT_TYPE, jsonRpcError } from "./HttpErrors.ts"
import * as SseResponse from "./SseResponse.ts"

/** Requests in one batch beyond this are refused as a whole (one entry's worth of work each). */
export const MAX_BATCH_SIZE = 100

/** How many entries of a batch run at once. */
const BATCH_CONCURRENCY = 16

type Call = Result.Result<{ readonly ctx: CallContext; readonly table: MethodTable }, A2AError>

type Outcome =
  | { readonly _tag: "Json"; readonly body: string }
  | { readonly _tag: "None" }
  | {
    readonly _tag: "Stream"
    readonly id: JsonRpc.JsonRpcId
    readonly stream: Stream.Stream<unknown, A2AError>
  }

const none: Outcome = { _tag: "None" }
const json = (body: string): Outcome => ({ _tag: "Json", body })

/**
 * Runs one request object of a call and hands its outcome to `k`; never fails (every error becomes an error
 * response, or none). `k` is the rest of the answer, so a single request's answer takes no step after its
 * operation's. `byMethod` gives the call of a method that names its version, when the request names none.
 */
const dispatch = <B, R>(
  env: HttpCallContext.BindingEnv,
  call: Call,
  byMethod: ((method: string) => Call | undefined) | undefined,
  u: unknown,
  inBatch: boolean,
  k: (outcome: Outcome) => Effect.Effect<B, never, R>
): Effect.Effect<B, never, R> => {
  const parsed = JsonRpc.parseRequest(u)
  if (Result.isFailure(parsed)) {
    env.refused(BINDING, parsed.failure.error)
    return k(json(JsonRpc.encodeFailure(parsed.failure.id, parsed.failure.error)))
  }
  const request = parsed.success
  const served = byMethod?.(request.method) ?? call
  const notification = JsonRpc.isNotification(request)
  const id = request.id ?? null
  if (Result.isFailure(served)) return refused(env, notification, id, k, served.failure)
  const { ctx, table } = served.success
  const operation = table.operations.get(request.method)
  if (operation === undefined) {
    return refused(env, notification, id, k, new MethodNotFound({ message: `Method not found: ${request.method}` }))
  }
  if (Array.isArray(request.params)) {
    return refused(
      env,
      notification,
      id,
      k,
      new InvalidParams({
        message: `Invalid params: ${request.method} takes its params by name (an object), not by position (an array)`
      })
    )
  }
  const params = request.params ?? {}
  if (operation._tag === "Streaming") {
    const prepared = operation.prepare(params)
    if (Result.isFailure(prepared)) return refused(env, notification, id, k, prepared.failure)
    if (inBatch) {
      return refused(
        env,
        notification,
        id,
        k,
        new InvalidRequest({ message: `${request.method} streams its result and cannot be part of a batch` })
      )
    }
    // Nobody would read the events of a streaming notification.
    if (notification) return k(none)
    return k({ _tag: "Stream", id, stream: prepared.success(env.handler, ctx) })
  }
  const prepared = operation.prepare(params)
  if (Result.isFailure(prepared)) return refused(env, notification, id, k, prepared.failure)
  return Effect.matchCauseEffect(prepared.success(env.handler, ctx), {
    onSuccess: (result) =>
      k(notification ? none : json(JsonRpc.encodeSuccessJson(id, resultJson(operation, result) ?? "null"))),
    onFailure: (cause) => Effect.flatMap(fromCause(cause), (error) => k(failure(notification, id, error)))
  })
}

/** The outcome of a request that failed: an error response, or none for a notification. */
const failure = (notification: boolean, id: JsonRpc.JsonRpcId, error: A2AError): Outcome =>
  notification ? none : json(JsonRpc.encodeFailure(id, error))

/** Refused before the operation runs (its own errors are counted with it): a function, not a closure per request. */
const refused = <B, R>(
  env: HttpCallContext.BindingEnv,
  notification: boolean,
  id: JsonRpc.JsonRpcId,
  k: (outcome: Outcome) => Effect.Effect<B, never, R>,
  error: A2AError
): Effect.Effect<B, never, R> => {
  env.refused(BINDING, error)
  return k(failure(notification, id, error))
}

const jsonResponse = (body: string, headers: Record<string, string> | undefined) =>
  HttpServerResponse.text(body, { contentType: JSON_CONTENT_TYPE, headers })

const noContent = (headers: Record<string, string> | undefined) => HttpServerResponse.empty({ status: 204, headers })

// Apart from the handler: an open stream holds its encoders, which should hold nothing but the id.
const encoders = (id: JsonRpc.JsonRpcId) => ({
  encode: (event: unknown) => SseResponse.frame(JsonRpc.encodeSuccess(id, event)),
  encodeError: (error: A2AError) => SseResponse.frame(JsonRpc.encodeFailure(id, error))
})

// The SSE response of a streaming method: each event a full JSON-RPC response with the request's id (spec
// 9.4.2); a failure before the first event is a plain JSON-RPC error response instead.
const failed = (id: JsonRpc.JsonRpcId, headers: Record<string, string> | undefined) => (error: A2AError) =>
  jsonRpcError(id, error, { headers })

const BINDING = "JSONRPC"

/** The error response to a request refused as a whole, counted (Observability). */
const refusal = (
  env: HttpCallContext.BindingEnv,
  error: A2AError,
  options?: Parameters<typeof jsonRpcError>[2]
): HttpServerResponse.HttpServerResponse => {
  env.refused(BINDING, error)
  return jsonRpcError(null, error, options)
}

/**
 * The calls of a request that names no version, for the methods that name theirs (BindingEnv.tablesByMethod): each
 * table's call context is made once per request.
 */
const methodCalls = (
  env: HttpCallContext.BindingEnv,
  request: HttpServerRequest.HttpServerRequest,
  principal: Principal
) => {
  const calls = new Map<MethodTable, Call>()
  return (method: string): Call | undefined => {
    const table = env.tablesByMethod.get(method)
    if (table === undefined) return undefined
    let call = calls.get(table)
    if (call === undefined) {
      call = Result.succeed({ table, ctx: HttpCallContext.make(env, request, principal, table, "JSONRPC") })
      calls.set(table, call)
    }
    return call
  }
}

/** The answer to a call whose caller is authenticated and whose body is read: one response, a batch's, or a stream. */
const answer = (
  env: HttpCallContext.BindingEnv,
  request: HttpServerRequest.HttpServerRequest,
  searchParams: HttpCallContext.SearchParams,
  principal: Principal,
  payload: unknown
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope> => {
  const call: Call = Result.map(
    HttpCallContext.negotiate(env, request, searchParams),
    (table) => ({ table, ctx: HttpCallContext.make(env, request, principal, table, "JSONRPC") })
  )
  const headers = Result.isSuccess(call) ? HttpCallContext.responseHeaders(env, call.success.ctx) : undefined
  const byMethod = env.tablesByMethod.size > 0 && HttpCallContext.namesNoVersion(request, searchParams)
    ? methodCalls(env, request, principal)
    : undefined

  if (Array.isArray(payload)) {
    if (payload.length === 0) {
      return Effect.succeed(
        refusal(env, new InvalidRequest({ message: "Invalid Request: empty batch" }), { headers })
      )
    }
    if (payload.length > MAX_BATCH_SIZE) {
      return Effect.succeed(refusal(
        env,
        new InvalidRequest({ message: `Invalid Request: a batch holds at most ${MAX_BATCH_SIZE} requests` }),
        { headers }
      ))
    }
    return Effect.map(
      Effect.forEach(payload, (u) => dispatch(env, call, byMethod, u, true, Effect.succeed), {
        concurrency: BATCH_CONCURRENCY
      }),
      (outcomes) => {
        const bodies = outcomes.flatMap((o) => o._tag === "Json" ? [o.body] : [])
        return bodies.length === 0 ? noContent(headers) : jsonResponse(`[${bodies.join(",")}]`, headers)
      }
    )
  }

  return dispatch(env, call, byMethod, payload, false, (outcome) => {
    switch (outcome._tag) {
      case "Json":
        return Effect.succeed(jsonResponse(outcome.body, headers))
      case "None":
        return Effect.succeed(noContent(headers))
      case "Stream":
        return SseResponse.answerOf(HttpCallContext.streamAnswer(
          env,
          outcome.stream,
          encoders(outcome.id),
          headers,
          failed(outcome.id, headers)
        ))
    }
  })
}

type Requirements = HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams

/**
 * The handler of the JSON-RPC endpoint: authenticate, read the body, answer. A pipeline rather than a generator:
 * every request runs it, and each step of a generator costs more than a step of a pipeline; an Auth that answers at
 * once (`Effect.succeed`) costs no step (EagerMatch).
 */
export const handler = (
  env: HttpCallContext.BindingEnv
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Requirements | Scope.Scope> =>
  Effect.contextWith((services: Context.Context<Requirements>) => {
    const request = Context.get(services, HttpServerRequest.HttpServerRequest)
    const searchParams = Context.get(services, HttpServerRequest.ParsedSearchParams)
    return matchEffectEager(HttpCallContext.authenticate(env, request, searchParams), {
      onFailure: (error) => Effect.succeed(refusal(env, error)),
      onSuccess: (principal) =>
        Effect.matchEffect(env.readJson(request), {
          onFailure: (failure) => Effect.succeed(refusal(env, failure.error, { status: failure.status })),
          onSuccess: (payload) => answer(env, request, searchParams, principal, payload)
        })
    })
  })
