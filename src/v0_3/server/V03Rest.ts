/**
 * The A2A 0.3 HTTP+JSON binding (spec 0.3 section 3.2.3 and the `google.api.http` routes of its proto), next
 * to the 1.0 REST routes under the same base path: `/v1/message:send`, `/v1/message:stream`, `/v1/tasks/{id}`,
 * `/v1/tasks/{id}:cancel`, `/v1/tasks/{id}:subscribe` (GET, and POST as the 0.3 text has it),
 * `/v1/tasks/{id}/pushNotificationConfigs[/{configId}]` and `/v1/card`. Bodies are 0.3 ProtoJSON
 * (v0_3/protocol/ProtoJson), translated onto the same RequestHandler; responses are `application/json`;
 * streams are SSE whose events are bare StreamResponse objects; errors are the 0.3 bare `{ code, message,
 * data }` (the JSON-RPC code) with the HTTP status of the error table, and an SSE `error` event mid-stream.
 *
 * These routes are 0.3 by construction: a request to them must negotiate 0.3 (no `A2A-Version`, or 0.x).
 * While 0.3 is served, the literal `v1` segment takes these paths, so `v1` cannot be used as a tenant.
 *
 * @example
 * ```ts
 * import { A2AError } from "effect-a2a/protocol"
 * import { V03Rest } from "effect-a2a/v0_3"
 *
 * // a 0.3 REST error body: { code, message, data }
 * V03Rest.errorBody(new A2AError.TaskNotFound({ message: "Task t-1 not found" }))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as EditionKit from "../../http/EditionKit.ts"
import * as HttpCallContext from "../../http/HttpCallContext.ts"
import type { RouteHandler } from "../../http/HttpEdition.ts"
import {
  type A2AError,
  detailsOf,
  errorTable,
  InvalidRequest,
  MethodNotFound,
  VersionNotSupported
} from "../../protocol/A2AError.ts"
import * as FieldViolations from "../../protocol/FieldViolations.ts"
import type { CallContext } from "../../server/CallContext.ts"
import type { RequestHandler } from "../../server/RequestHandler.ts"
import * as RestQuery from "../protocol/internal/RestQuery.ts"
import * as ProtoJson from "../protocol/ProtoJson.ts"
import * as Tasks from "../protocol/Tasks.ts"
import { allPushConfigs, VERSION } from "./V03MethodTable.ts"

type Handler = RequestHandler["Service"]
type RouteParams = Readonly<Record<string, string | undefined>>

/** What a route runs once its request is read. */
type Operation =
  | { readonly _tag: "Unary"; readonly run: (h: Handler, ctx: CallContext) => Effect.Effect<unknown, A2AError> }
  | { readonly _tag: "Stream"; readonly run: (h: Handler, ctx: CallContext) => Stream.Stream<unknown, A2AError> }

type Resolve = (
  request: HttpServerRequest.HttpServerRequest,
  params: RouteParams,
  searchParams: HttpCallContext.SearchParams,
  env: HttpCallContext.BindingEnv
) => Effect.Effect<Operation, EditionKit.HttpFailure>

const unary = (run: (h: Handler, ctx: CallContext) => Effect.Effect<unknown, A2AError>): Operation => ({
  _tag: "Unary",
  run
})
const streaming = (run: (h: Handler, ctx: CallContext) => Stream.Stream<unknown, A2AError>): Operation => ({
  _tag: "Stream",
  run
})

// --- Errors: the 0.3 bare error body ---

/**
 * `{ code, message, data }` with the JSON-RPC code; `data` carries the same details as 1.0 errors.
 *
 * @since 0.1.0
 * @category utils
 */
export const errorBody = (error: A2AError) => ({
  code: errorTable[error._tag].jsonRpcCode,
  message: error.message,
  data: detailsOf(error)
})

/** Mid-stream failures: an `error` event carrying the bare error body. */
const errorEvent = (error: A2AError): Uint8Array => EditionKit.sseEvent(JSON.stringify(errorBody(error)), "error")

const errorResponse = (error: A2AError, status?: number | undefined, headers?: Record<string, string> | undefined) =>
  EditionKit.errorResponse(error, errorBody(error), { status, headers })

const events = { encode: (event: unknown) => EditionKit.sseEvent(JSON.stringify(event)), encodeError: errorEvent }

const failed = (headers: Record<string, string> | undefined) => (error: A2AError) =>
  errorResponse(error, undefined, headers)

const notFound = (request: HttpServerRequest.HttpServerRequest): EditionKit.HttpFailure => ({
  error: new MethodNotFound({ message: `No A2A 0.3 operation at ${request.method} ${request.url.split("?")[0]}` })
})

// --- Request parameters ---

const fromResult = <A>(result: Result.Result<A, A2AError>): Effect.Effect<A, EditionKit.HttpFailure> =>
  Result.isSuccess(result) ? Effect.succeed(result.success) : Effect.fail({ error: result.failure })

const decodeHistoryLength = Schema.decodeUnknownResult(RestQuery.HistoryLength)

/** `historyLength` (or `history_length`) from the query (RestQuery.HistoryLength). */
const historyLength = (search: HttpCallContext.SearchParams): Result.Result<number | undefined, A2AError> => {
  const raw = search["historyLength"] ?? search["history_length"]
  if (raw === undefined) return Result.succeed(undefined)
  return Result.mapError(
    decodeHistoryLength(raw),
    (e) =>
      new InvalidRequest({ message: FieldViolations.fromIssue(e.issue)[0]?.description ?? "Invalid historyLength" })
  )
}

const subscribe = (id: string) =>
  streaming((h, ctx) =>
    EditionKit.mapEvents(
      h.subscribeToTask({ id }, ctx),
      (e) => ProtoJson.fromV1StreamResponse(e, Tasks.finalForSubscription)
    )
  )

const send: Resolve = (request, _params, _search, env) =>
  Effect.flatMap(
    EditionKit.readObject(env, request),
    (body) =>
      Effect.map(fromResult(ProtoJson.decodeSendMessageRequest(body)), (req) =>
        unary((h, ctx) => Effect.map(h.sendMessage(req, ctx), ProtoJson.fromV1SendMessageResponse)))
  )

const stream: Resolve = (request, _params, _search, env) =>
  Effect.flatMap(
    EditionKit.readObject(env, request),
    (body) =>
      Effect.map(fromResult(ProtoJson.decodeSendMessageRequest(body)), (req) =>
        streaming((h, ctx) =>
          EditionKit.mapEvents(h.sendStreamingMessage(req, ctx), (e) =>
            ProtoJson.fromV1StreamResponse(e, Tasks.finalForSend))
        ))
  )

const getTaskOrSubscribe: Resolve = (request, _params, search) => {
  const split = EditionKit.splitVerb(request.url)
  if (split === undefined) return Effect.fail(notFound(request))
  if (split.verb === "subscribe") return Effect.succeed(subscribe(split.id))
  if (split.verb !== undefined) return Effect.fail(notFound(request))
  return Effect.map(fromResult(historyLength(search)), (length) =>
    unary((h, ctx) =>
      Effect.map(
        h.getTask({ id: split.id, ...(length !== undefined ? { historyLength: length } : {}) }, ctx),
        ProtoJson.fromV1Task
      )
    ))
}

/**
 * POST /v1/tasks/{id}:cancel and :subscribe. Their body carries nothing more than the path, but it is read as every
 * other body is (a JSON media type, valid JSON, an object; empty is fine), as the 1.0 routes do.
 */
const taskVerb: Resolve = (request, _params, _search, env) => {
  const split = EditionKit.splitVerb(request.url)
  if (split?.verb === "cancel") {
    const id = split.id
    return Effect.as(
      EditionKit.readObject(env, request),
      unary((h, ctx) => Effect.map(h.cancelTask({ id }, ctx), ProtoJson.fromV1Task))
    )
  }
  if (split?.verb === "subscribe") return Effect.as(EditionKit.readObject(env, request), subscribe(split.id))
  return Effect.fail(notFound(request))
}

const taskId = (params: RouteParams) => params["id"] ?? ""

const routeTable: ReadonlyArray<readonly [HttpRouter.Route<never>["method"], `/${string}`, Resolve]> = [
  ["POST", "/v1/message::send", send],
  ["POST", "/v1/message::stream", stream],
  ["GET", "/v1/tasks/:id", getTaskOrSubscribe],
  ["POST", "/v1/tasks/:id", taskVerb],
  [
    "POST",
    "/v1/tasks/:id/pushNotificationConfigs",
    (request, params, _search, env) =>
      Effect.flatMap(
        EditionKit.readObject(env, request),
        (body) =>
          Effect.map(fromResult(ProtoJson.decodeTaskPushConfig(body, taskId(params))), (config) =>
            unary((h, ctx) =>
              Effect.map(h.createTaskPushNotificationConfig(config, ctx), ProtoJson.fromV1PushConfig)
            ))
      )
  ],
  [
    "GET",
    "/v1/tasks/:id/pushNotificationConfigs",
    (_request, params) =>
      Effect.succeed(unary((h, ctx) =>
        Effect.map(allPushConfigs(h, taskId(params), ctx), (configs) => ({
          configs: configs.map(ProtoJson.fromV1PushConfig),
          nextPageToken: ""
        }))
      ))
  ],
  [
    "GET",
    "/v1/tasks/:id/pushNotificationConfigs/:configId",
    (_request, params) =>
      Effect.succeed(unary((h, ctx) =>
        Effect.map(
          h.getTaskPushNotificationConfig({ taskId: taskId(params), id: params["configId"] ?? "" }, ctx),
          ProtoJson.fromV1PushConfig
        )
      ))
  ],
  [
    "DELETE",
    "/v1/tasks/:id/pushNotificationConfigs/:configId",
    (_request, params) =>
      Effect.succeed(
        unary((h, ctx) =>
          Effect.as(
            h.deleteTaskPushNotificationConfig({ taskId: taskId(params), id: params["configId"] ?? "" }, ctx),
            {}
          )
        )
      )
  ],
  [
    "GET",
    "/v1/card",
    () => Effect.succeed(unary((h, ctx) => Effect.map(h.getExtendedAgentCard({}, ctx), ProtoJson.fromV1AgentCard)))
  ]
]

const notThisVersion = (version: string) =>
  new VersionNotSupported({
    message: `The /v1 HTTP+JSON routes are A2A 0.3 and this request asked for ${version}; A2A 1.0 REST is served ` +
      "without the /v1 prefix",
    metadata: { requestedVersion: version, supportedVersions: VERSION }
  })

/** One route: authenticate, check the version is 0.3, read the request, run it, answer in 0.3 shapes. */
const handle = (
  env: HttpCallContext.BindingEnv,
  resolve: Resolve
): RouteHandler =>
  EditionKit.answering(Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const searchParams = yield* HttpServerRequest.ParsedSearchParams
    const params = yield* HttpRouter.params
    const call = yield* Effect.result(HttpCallContext.forRoute(env, request, searchParams))
    if (Result.isFailure(call)) return errorResponse(call.failure)
    const { ctx, table, headers } = call.success
    if (table.version !== VERSION) return errorResponse(notThisVersion(table.version))

    const operation = yield* Effect.result(resolve(request, params, searchParams, env))
    if (Result.isFailure(operation)) return errorResponse(operation.failure.error, operation.failure.status, headers)

    if (operation.success._tag === "Stream") {
      return HttpCallContext.streamAnswer(
        env,
        operation.success.run(env.handler, ctx),
        events,
        headers,
        failed(headers)
      )
    }
    const result = yield* Effect.result(
      operation.success.run(env.handler, ctx).pipe(Effect.catchCause((cause) => Effect.flip(EditionKit.errorOf(cause))))
    )
    if (Result.isFailure(result)) return errorResponse(result.failure, undefined, headers)
    return HttpServerResponse.text(JSON.stringify(result.success), {
      contentType: EditionKit.JSON_CONTENT_TYPE,
      headers
    })
  }))

/**
 * The 0.3 REST routes, relative to the REST base path; `wrap` applies middleware to each handler.
 *
 * @since 0.1.0
 * @category routes
 */
export const routes = (
  env: HttpCallContext.BindingEnv,
  wrap: (handler: RouteHandler) => RouteHandler = (handler) => handler
): ReadonlyArray<HttpRouter.Route<never, never>> =>
  routeTable.map(([method, path, resolve]) => HttpRouter.route(method, path, wrap(handle(env, resolve))))
