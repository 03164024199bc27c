/**
 * The HTTP+JSON/REST binding (spec 11): the routes of spec 11.3, each also below a `/{tenant}` segment (the
 * proto's additional bindings), request parameters from the path, the query (spec 11.5) or the JSON body,
 * responses as JSON, streams as SSE with bare StreamResponse events, and errors as google.rpc.Status with an
 * ErrorInfo detail (spec 11.6).
 *
 * Custom verbs (`/tasks/{id}:cancel`) share a path segment with the id, which a path router cannot split,
 * so `/tasks/{id}` routes read the verb from the raw segment: the last unescaped `:` starts it, and an
 * escaped one (`%3A`) stays part of the id.
 */
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import {
  type A2AError,
  type FieldViolation,
  InvalidParams,
  InvalidRequest,
  MethodNotFound,
  toHttpError
} from "../../protocol/A2AError.ts"
import * as HttpCallContext from "./HttpCallContext.ts"
import {
  A2A_JSON_CONTENT_TYPE,
  fromCause,
  type HttpFailure,
  JSON_CONTENT_TYPE,
  restError,
  restFailure
} from "./HttpErrors.ts"
import type { OperationName } from "./Operations.ts"
import type * as RequestBody from "./RequestBody.ts"
import * as Sse from "./Sse.ts"

type RouteParams = Readonly<Record<string, string | undefined>>

/** Where an operation's request comes from, once the route has matched. */
interface Resolved {
  readonly name: OperationName
  readonly input: Readonly<Record<string, unknown>>
}

type Resolve = (
  request: HttpServerRequest.HttpServerRequest,
  params: RouteParams,
  searchParams: HttpCallContext.SearchParams,
  read: RequestBody.Reader
) => Effect.Effect<Resolved, HttpFailure>

// --- Request parameters (spec 11.5) ---

type QueryType = "string" | "int32" | "bool"

/**
 * Query parameters to request fields: camelCase names, numbers as decimal strings, booleans as
 * `true`/`false`, a scalar given once. Unknown parameters are ignored (`A2A-Version`, an API key...). A value
 * of the wrong form is a field violation; the schema then checks the rest of the request.
 */
const fromQuery = (
  spec: Readonly<Record<string, QueryType>>,
  searchParams: HttpCallContext.SearchParams
): Effect.Effect<Record<string, unknown>, HttpFailure> => {
  const out: Record<string, unknown> = {}
  const violations: Array<FieldViolation> = []
  for (const name in spec) {
    const raw = searchParams[name]
    if (raw === undefined) continue
    if (typeof raw !== "string" && raw.length !== 1) {
      violations.push({ field: name, description: `Expected a single value, got ${raw.length}` })
      continue
    }
    const value = typeof raw === "string" ? raw : raw[0]!
    switch (spec[name]) {
      case "int32":
        if (/^-?\d{1,10}$/.test(value)) out[name] = Number(value)
        else violations.push({ field: name, description: `Expected an integer, got ${JSON.stringify(value)}` })
        break
      case "bool":
        if (value === "true" || value === "false") out[name] = value === "true"
        else violations.push({ field: name, description: `Expected true or false, got ${JSON.stringify(value)}` })
        break
      default:
        out[name] = value
    }
  }
  if (violations.length === 0) return Effect.succeed(out)
  return Effect.fail({
    error: new InvalidParams({
      message: `Invalid parameters: ${violations.map((v) => v.field).join(", ")}`,
      fieldViolations: violations
    })
  })
}

const notFound = (request: HttpServerRequest.HttpServerRequest): HttpFailure => ({
  error: new MethodNotFound({
    message: `No A2A operation at ${request.method} ${request.url.split("?")[0]}`
  })
})

const emptyObject = () => ({})

const objectBody = (
  request: HttpServerRequest.HttpServerRequest,
  read: RequestBody.Reader
): Effect.Effect<Readonly<Record<string, unknown>>, HttpFailure> =>
  Effect.flatMap(
    read(request, emptyObject),
    (body) =>
      typeof body === "object" && body !== null && !Array.isArray(body)
        ? Effect.succeed(body as Readonly<Record<string, unknown>>)
        : Effect.fail<HttpFailure>({ error: new InvalidRequest({ message: "The request body must be a JSON object" }) })
  )

const withTenant = (input: Readonly<Record<string, unknown>>, params: RouteParams) =>
  params["tenant"] === undefined ? input : { ...input, tenant: params["tenant"] }

/** The raw last path segment, split at its last unescaped `:` into the id and the custom verb. */
const splitVerb = (url: string): { readonly id: string; readonly verb: string | undefined } | undefined => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  const segment = path.slice(path.lastIndexOf("/") + 1)
  const colon = segment.lastIndexOf(":")
  try {
    return colon === -1
      ? { id: decodeURIComponent(segment), verb: undefined }
      : { id: decodeURIComponent(segment.slice(0, colon)), verb: segment.slice(colon + 1) }
  } catch {
    return undefined
  }
}

const resolved = (name: OperationName, input: Readonly<Record<string, unknown>>): Effect.Effect<Resolved> =>
  Effect.succeed({ name, input })

const bodyOperation = (name: OperationName): Resolve => (request, params, _search, read) =>
  Effect.map(objectBody(request, read), (body) => ({ name, input: withTenant(body, params) }))

const getTaskQuery = { historyLength: "int32" } as const
const listTasksQuery = {
  contextId: "string",
  status: "string",
  pageSize: "int32",
  pageToken: "string",
  historyLength: "int32",
  statusTimestampAfter: "string",
  includeArtifacts: "bool"
} as const
const listConfigsQuery = { pageSize: "int32", pageToken: "string" } as const

/** GET /tasks/{id} and GET /tasks/{id}:subscribe (the proto binds subscribe to GET, the spec text to POST). */
const getTaskOrSubscribe: Resolve = (request, params, searchParams) => {
  const split = splitVerb(request.url)
  if (split === undefined) return Effect.fail(notFound(request))
  if (split.verb === undefined) {
    return Effect.map(
      fromQuery(getTaskQuery, searchParams),
      (query) => ({ name: "GetTask", input: withTenant({ ...query, id: split.id }, params) })
    )
  }
  if (split.verb === "subscribe") return resolved("SubscribeToTask", withTenant({ id: split.id }, params))
  return Effect.fail(notFound(request))
}

/** POST /tasks/{id}:cancel and POST /tasks/{id}:subscribe. */
const taskVerb: Resolve = (request, params, _search, read) => {
  const split = splitVerb(request.url)
  const name: OperationName | undefined = split?.verb === "cancel"
    ? "CancelTask"
    : split?.verb === "subscribe"
    ? "SubscribeToTask"
    : undefined
  if (split === undefined || name === undefined) return Effect.fail(notFound(request))
  return Effect.map(
    objectBody(request, read),
    (body) => ({ name, input: withTenant({ ...body, id: split.id }, params) })
  )
}

const taskId = (params: RouteParams) => params["id"] ?? ""

const routeTable: ReadonlyArray<readonly [HttpRouter.Route<never>["method"], `/${string}`, Resolve]> = [
  ["POST", "/message::send", bodyOperation("SendMessage")],
  ["POST", "/message::stream", bodyOperation("SendStreamingMessage")],
  [
    "GET",
    "/tasks",
    (_r, params, search) =>
      Effect.map(
        fromQuery(listTasksQuery, search),
        (query) => ({ name: "ListTasks", input: withTenant(query, params) })
      )
  ],
  ["GET", "/tasks/:id", getTaskOrSubscribe],
  ["POST", "/tasks/:id", taskVerb],
  [
    "POST",
    "/tasks/:id/pushNotificationConfigs",
    (request, params, _s, read) =>
      Effect.map(objectBody(request, read), (body) => ({
        name: "CreateTaskPushNotificationConfig",
        input: withTenant({ ...body, taskId: taskId(params) }, params)
      }))
  ],
  [
    "GET",
    "/tasks/:id/pushNotificationConfigs",
    (_r, params, search) =>
      Effect.map(fromQuery(listConfigsQuery, search), (query) => ({
        name: "ListTaskPushNotificationConfigs",
        input: withTenant({ ...query, taskId: taskId(params) }, params)
      }))
  ],
  [
    "GET",
    "/tasks/:id/pushNotificationConfigs/:configId",
    (_r, params) =>
      resolved(
        "GetTaskPushNotificationConfig",
        withTenant({ taskId: taskId(params), id: params["configId"] ?? "" }, params)
      )
  ],
  [
    "DELETE",
    "/tasks/:id/pushNotificationConfigs/:configId",
    (_r, params) =>
      resolved(
        "DeleteTaskPushNotificationConfig",
        withTenant({ taskId: taskId(params), id: params["configId"] ?? "" }, params)
      )
  ],
  ["GET", "/extendedAgentCard", (_r, params) => resolved("GetExtendedAgentCard", withTenant({}, params))]
]

// --- Responses ---

/** `application/a2a+json` (spec 11.1) unless the client only accepts plain JSON. */
const contentTypeFor = (request: HttpServerRequest.HttpServerRequest): string => {
  const accept = request.headers["accept"]
  return accept === undefined || accept.includes("a2a+json") || accept.includes("*/*") ||
      !accept.includes("application/json")
    ? A2A_JSON_CONTENT_TYPE
    : JSON_CONTENT_TYPE
}

// Mid-stream failures: an `error` event carrying the same Status body as an error response.
const errorEvent = (error: A2AError): Uint8Array => Sse.frame(JSON.stringify(toHttpError(error).body), "error")

const events = { encode: Sse.jsonEvent, encodeError: errorEvent }

const failed = (headers: Record<string, string> | undefined) => (error: A2AError) => restError(error, { headers })

/** One REST route's handler: authenticate, negotiate, resolve the request, run the operation, respond. */
const handle = (
  env: HttpCallContext.BindingEnv,
  resolve: Resolve
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams | HttpRouter.RouteContext | Scope.Scope
> =>
  Sse.answering(Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const searchParams = yield* HttpServerRequest.ParsedSearchParams
    const params = yield* HttpRouter.params
    const call = yield* Effect.result(HttpCallContext.forRoute(env, request, searchParams))
    if (Result.isFailure(call)) return restError(call.failure)
    const { ctx, edge, headers } = call.success

    const input = yield* Effect.result(resolve(request, params, searchParams, env.readJson))
    if (Result.isFailure(input)) return restFailure(input.failure, headers)
    const operation = edge.byName(input.success.name)

    if (operation._tag === "Streaming") {
      const prepared = operation.prepare(input.success.input)
      if (Result.isFailure(prepared)) return restError(prepared.failure, { headers })
      return HttpCallContext.streamAnswer(env, prepared.success(env.handler, ctx), events, headers, failed(headers))
    }
    const prepared = operation.prepare(input.success.input)
    if (Result.isFailure(prepared)) return restError(prepared.failure, { headers })
    const result = yield* Effect.result(
      prepared.success(env.handler, ctx).pipe(Effect.catchCause((cause) => Effect.flip(fromCause(cause))))
    )
    if (Result.isFailure(result)) return restError(result.failure, { headers })
    return HttpServerResponse.text(JSON.stringify(result.success), { contentType: contentTypeFor(request), headers })
  }))

/** Whether a path (before `?`) has a `%` not followed by two hex digits, or escapes that are not UTF-8. */
const malformedPath = (url: string): boolean => {
  const q = url.indexOf("?")
  try {
    decodeURIComponent(q === -1 ? url : url.slice(0, q))
    return false
  } catch {
    return true
  }
}

/**
 * What a request the router found no route for is answered: 400 when its path cannot be decoded (RFC 3986 section
 * 2.1), else 404; a google.rpc.Status either way.
 */
export const routeNotFound = (request: HttpServerRequest.HttpServerRequest): HttpServerResponse.HttpServerResponse =>
  malformedPath(request.url)
    ? restFailure({
      status: 400,
      error: new InvalidRequest({
        message: `The request path is not validly percent-encoded: ${request.method} ${request.url.split("?")[0]}`
      })
    })
    : restFailure(notFound(request))

/** A 404 google.rpc.Status for a path no operation lives at. */
export const notFoundHandler: Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest
> = HttpServerRequest.HttpServerRequest.use((request) => Effect.succeed(restFailure(notFound(request))))

type RouteHandler = ReturnType<typeof handle>

/** The REST routes, relative to the binding's base path; `wrap` applies middleware to each handler. */
export const routes = (
  env: HttpCallContext.BindingEnv,
  wrap: (handler: RouteHandler) => RouteHandler = (handler) => handler
): ReadonlyArray<HttpRouter.Route<never, never>> => {
  const out: Array<HttpRouter.Route<never, never>> = []
  for (const [method, path, resolve] of routeTable) {
    const handler = wrap(handle(env, resolve))
    out.push(HttpRouter.route(method, path, handler))
    if (env.options.tenantPaths) out.push(HttpRouter.route(method, `/:tenant${path}`, handler))
  }
  return out
}
