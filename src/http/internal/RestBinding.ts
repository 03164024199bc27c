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
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { type A2AError, MethodNotFound, toHttpError } from "../../protocol/A2AError.ts"
import * as QueryParams from "../../protocol/internal/QueryParams.ts"
import * as Operations from "../../protocol/Operations.ts"
import { matchEffectEager } from "../../server/internal/EagerMatch.ts"
import { type OperationName, resultJson } from "../../server/MethodTable.ts"
import * as HttpCallContext from "../HttpCallContext.ts"
import type { RouteHandler } from "../HttpEdition.ts"
import {
  A2A_JSON_CONTENT_TYPE,
  fromCause,
  type HttpFailure,
  JSON_CONTENT_TYPE,
  restError,
  restFailure
} from "./HttpErrors.ts"
import * as RequestBody from "./RequestBody.ts"
import * as RestPath from "./RestPath.ts"
import * as SseResponse from "./SseResponse.ts"

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

/** The query decoder of each operation that reads its request from the query string (QueryParams). */
const queryDecoders = new Map(
  Operations.all.flatMap((op) => op.rest.query === undefined ? [] : [[op.name, QueryParams.decoder(op.rest.query)]])
)

const fromQuery = (
  name: OperationName,
  searchParams: HttpCallContext.SearchParams
): Effect.Effect<Readonly<Record<string, unknown>>, HttpFailure> => {
  const decoded = queryDecoders.get(name)!(searchParams)
  return Result.isSuccess(decoded) ? Effect.succeed(decoded.success) : Effect.fail({ error: decoded.failure })
}

const notFound = (request: HttpServerRequest.HttpServerRequest): HttpFailure => ({
  error: new MethodNotFound({
    message: `No A2A operation at ${request.method} ${request.url.split("?")[0]}`
  })
})

const objectBody = (
  request: HttpServerRequest.HttpServerRequest,
  read: RequestBody.Reader
): Effect.Effect<Readonly<Record<string, unknown>>, HttpFailure> => RequestBody.readObject(read, request)

// --- Routes, from the operations table ---

/**
 * The routes of one method and router path: the operation each custom verb names ("" for none). Verbs share the
 * path segment of the id they follow (`/tasks/{id}:cancel`), which a path router cannot split, so such routes read
 * the verb from the raw segment (`RestPath.splitVerb`), and `idField` names the field the segment's id fills.
 */
interface RouteGroup {
  readonly method: Operations.RestRoute["method"]
  readonly path: `/${string}`
  readonly operations: Map<string, Operations.Any>
  idField: string | undefined
}

/** A table path as the router reads it: `{field}` segments as parameters, a literal `:` escaped. */
const routerPath = (path: string): `/${string}` =>
  path.split("/").map((segment) =>
    segment.startsWith("{") && segment.endsWith("}") ? `:${segment.slice(1, -1)}` : segment.replaceAll(":", "::")
  ).join("/") as `/${string}`

const groups = (): ReadonlyArray<RouteGroup> => {
  const out = new Map<string, RouteGroup>()
  const add = (method: Operations.RestRoute["method"], op: Operations.Any) => {
    // `/tasks/{id}:cancel`: the router matches `/tasks/:id`; the verb and id come from the raw segment.
    const verbRoute = /^(.*)\/\{([A-Za-z]+)\}:([A-Za-z]+)$/.exec(op.rest.path)
    const path = verbRoute !== null ? routerPath(`${verbRoute[1]}/{${verbRoute[2]}}`) : routerPath(op.rest.path)
    const lastField = /\{([A-Za-z]+)\}$/.exec(op.rest.path)
    const key = `${method} ${path}`
    const group = out.get(key) ?? { method, path, operations: new Map(), idField: undefined }
    out.set(key, group)
    group.operations.set(verbRoute?.[3] ?? "", op)
    group.idField ??= verbRoute?.[2] ?? lastField?.[1]
  }
  for (const op of Operations.all) {
    add(op.rest.method, op)
    for (const method of op.rest.alsoAnsweredOn ?? []) add(method, op)
  }
  return [...out.values()]
}

/** The request of the operation a matched route names: path fields, then query, then body, under the tenant. */
const resolveIn = (group: RouteGroup): Resolve => {
  const verbs = group.operations.size > 1 || !group.operations.has("")
  return (request, params, searchParams, read) => {
    let op = group.operations.get("")
    const fields: Record<string, unknown> = {}
    for (const name in params) {
      if (name !== "tenant" && params[name] !== undefined) fields[name] = params[name]
    }
    if (verbs || op === undefined) {
      const split = RestPath.splitVerb(request.url)
      if (split === undefined) return Effect.fail(RestPath.malformed(request))
      op = group.operations.get(split.verb ?? "")
      if (group.idField !== undefined) fields[group.idField] = split.id
    }
    if (op === undefined) return Effect.fail(notFound(request))
    const name = op.name
    const tenant = params["tenant"]
    // Path fields over query or body fields, the tenant over all (a query or body of no fields is the common case).
    const assemble = (base: Readonly<Record<string, unknown>>): Resolved => {
      let input = fields
      for (const _ in base) {
        input = { ...base, ...fields }
        break
      }
      if (tenant !== undefined) input.tenant = tenant
      return { name, input }
    }
    if (op.rest.body) return Effect.map(objectBody(request, read), assemble)
    if (op.rest.query !== undefined) return Effect.mapEager(fromQuery(name, searchParams), assemble)
    return Effect.succeed(assemble({}))
  }
}

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
const errorEvent = (error: A2AError): Uint8Array => SseResponse.frame(JSON.stringify(toHttpError(error).body), "error")

const events = { encode: SseResponse.jsonEvent, encodeError: errorEvent }

const failed = (headers: Record<string, string> | undefined) => (error: A2AError) => restError(error, { headers })

/** A response to a request refused before its operation ran, counted (Observability). */
const refused = (
  env: HttpCallContext.BindingEnv,
  response: HttpServerResponse.HttpServerResponse,
  error: A2AError
): HttpServerResponse.HttpServerResponse => {
  env.refused("HTTP+JSON", error)
  return response
}

type RouteRequirements =
  | HttpServerRequest.HttpServerRequest
  | HttpServerRequest.ParsedSearchParams
  | HttpRouter.RouteContext

/** The operation's answer, once the call is made and its request resolved. */
const run = (
  env: HttpCallContext.BindingEnv,
  request: HttpServerRequest.HttpServerRequest,
  { ctx, table, headers }: HttpCallContext.RouteCall,
  input: Resolved
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope> => {
  const operation = table.byName(input.name)
  if (operation._tag === "Streaming") {
    const prepared = operation.prepare(input.input)
    if (Result.isFailure(prepared)) {
      return Effect.succeed(refused(env, restError(prepared.failure, { headers }), prepared.failure))
    }
    return SseResponse.answerOf(
      HttpCallContext.streamAnswer(env, prepared.success(env.handler, ctx), events, headers, failed(headers))
    )
  }
  const prepared = operation.prepare(input.input)
  if (Result.isFailure(prepared)) {
    return Effect.succeed(refused(env, restError(prepared.failure, { headers }), prepared.failure))
  }
  return Effect.matchCauseEffect(prepared.success(env.handler, ctx), {
    onFailure: (cause) => Effect.map(fromCause(cause), (error) => restError(error, { headers })),
    onSuccess: (result) =>
      Effect.succeed(
        HttpServerResponse.text(resultJson(operation, result) ?? "", {
          contentType: contentTypeFor(request),
          headers
        })
      )
  })
}

/**
 * One REST route's handler: authenticate, negotiate, resolve the request, run the operation, respond. A pipeline
 * rather than a generator: every request runs it, and each step of a generator costs more than a step of a pipeline;
 * the steps already done when they are made (an Auth's `Effect.succeed`, a request read from the path and query)
 * continue at once (EagerMatch).
 */
const handle = (
  env: HttpCallContext.BindingEnv,
  resolve: Resolve
): RouteHandler =>
  Effect.contextWith((services: Context.Context<RouteRequirements>) => {
    const request = Context.get(services, HttpServerRequest.HttpServerRequest)
    const searchParams = Context.get(services, HttpServerRequest.ParsedSearchParams)
    const params = Context.get(services, HttpRouter.RouteContext).params
    return matchEffectEager(HttpCallContext.forRoute(env, request, searchParams), {
      onFailure: (error) => Effect.succeed(refused(env, restError(error), error)),
      onSuccess: (call) =>
        matchEffectEager(resolve(request, params, searchParams, env.readJson), {
          onFailure: (failure) => Effect.succeed(refused(env, restFailure(failure, call.headers), failure.error)),
          onSuccess: (input) => run(env, request, call, input)
        })
    })
  })

/**
 * What a request the router found no route for is answered: 400 when its path cannot be decoded (RFC 3986 section
 * 2.1), else 404; a google.rpc.Status either way.
 */
export const routeNotFound = (request: HttpServerRequest.HttpServerRequest): HttpServerResponse.HttpServerResponse =>
  restFailure(RestPath.isMalformed(request.url) ? RestPath.malformed(request) : notFound(request))

/** A 404 google.rpc.Status for a path no operation lives at. */
export const notFoundHandler: Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest
> = HttpServerRequest.HttpServerRequest.use((request) => Effect.succeed(restFailure(notFound(request))))

/** The REST routes, relative to the binding's base path; `wrap` applies middleware to each handler. */
export const routes = (
  env: HttpCallContext.BindingEnv,
  wrap: (handler: RouteHandler) => RouteHandler = (handler) => handler
): ReadonlyArray<HttpRouter.Route<never, never>> => {
  const out: Array<HttpRouter.Route<never, never>> = []
  for (const { method, path, ...group } of groups()) {
    const handler = wrap(handle(env, resolveIn({ method, path, ...group })))
    out.push(HttpRouter.route(method, path, handler))
    if (env.options.tenantPaths) out.push(HttpRouter.route(method, `/:tenant${path}`, handler))
  }
  return out
}
