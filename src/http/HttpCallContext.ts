/**
 * What every HTTP binding does before an operation runs: authenticate the caller (spec 7.4), negotiate the
 * protocol version (spec 3.6.2) and so pick the version's table, read the `A2A-Extensions` service parameter
 * (spec 3.2.6), and build the CallContext the RequestHandler sees. The services are resolved once, when the
 * routes are built; per request this is a few header reads.
 *
 * @example
 * ```ts
 * import { HttpCallContext } from "effect-a2a/http"
 * import { Effect } from "effect"
 *
 * // the protocol versions served beside 1.0 in this context (A2A 0.3 once A2A03.layer is provided)
 * const editions = Effect.map(Effect.service(HttpCallContext.HttpEditions), (list) => list.map((e) => e.methods.version))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { A2AError, Unauthenticated, VersionNotSupported } from "../protocol/A2AError.ts"
import * as Version from "../protocol/Version.ts"
import { A2A11 } from "../server/A2A11.ts"
import { AgentCardConfig } from "../server/AgentCardConfig.ts"
import { Auth, type ClientCertificate, type Principal } from "../server/Auth.ts"
import * as CallContext from "../server/CallContext.ts"
import { type MethodTable, v11Methods, v1Methods } from "../server/MethodTable.ts"
import * as Observability from "../server/Observability.ts"
import { RequestHandler } from "../server/RequestHandler.ts"
import type { ResolvedOptions, ServedOptions } from "./HttpBindingOptions.ts"
import type { HttpEdition } from "./HttpEdition.ts"
import * as PublicInterfaces from "./internal/PublicInterfaces.ts"
import * as RequestBody from "./internal/RequestBody.ts"
import * as SseResponse from "./internal/SseResponse.ts"
import { NativeHttp } from "./NativeHttp.ts"
import { ServerShutdown } from "./ServerShutdown.ts"

/**
 * Query parameters as the router parsed them.
 *
 * @since 0.1.0
 * @category models
 */
export type SearchParams = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * The header a client names the extensions it activates in (spec 3.2.6), lower-cased.
 *
 * @since 0.1.0
 * @category constants
 */
export const EXTENSIONS_HEADER = "a2a-extensions"

/**
 * The services and settings the bindings share, resolved once.
 *
 * @since 0.1.0
 * @category models
 */
export interface BindingEnv {
  readonly options: ServedOptions
  readonly handler: RequestHandler["Service"]
  readonly auth: Auth["Service"]
  readonly card: AgentCardConfig["Service"]
  readonly tables: ReadonlyMap<string, MethodTable>
  /** The editions served beside 1.0 (their versions are among `tables`). */
  readonly editions: ReadonlyArray<HttpEdition<BindingEnv>>
  /**
   * The tables whose JSON-RPC method names name their version (MethodTable.methodsNameVersion), by method: a request that
   * names no version and calls one of them is theirs.
   */
  readonly tablesByMethod: ReadonlyMap<string, MethodTable>
  readonly interfaces: PublicInterfaces.PublicInterfaces
  /** Extension URIs the agent card declares; only these are echoed as activated. */
  readonly supportedExtensions: ReadonlySet<string>
  /** What the open event streams share (keep-alive pings, the end at shutdown). */
  readonly sse: SseResponse.Hub
  /** Reads a request body as JSON under the options' limits. */
  readonly readJson: RequestBody.Reader
  /** Counts a request refused before any operation ran (see Observability.refusals; nothing when uninstrumented). */
  readonly refused: (binding: string, error: A2AError) => void
  /** The verified client certificate of a request, when the Auth reads one and the runtime can tell. */
  readonly clientCertificate:
    | ((request: HttpServerRequest.HttpServerRequest) => ClientCertificate | undefined)
    | undefined
}

/**
 * The protocol versions served beside 1.0, in the order the card lists their interfaces after 1.0's. None by
 * default; `effect-a2a/v0_3` provides A2A 0.3, `effect-a2a/v0_1` 0.3 and 0.1 (one list: a layer that provides it
 * replaces what another provided). A version listed in the options without an edition is not served.
 *
 * @since 0.1.0
 * @category services
 */
export const HttpEditions = Context.Reference<ReadonlyArray<HttpEdition<BindingEnv>>>("effect-a2a/http/Editions", {
  defaultValue: () => []
})

/**
 * Resolves what the bindings share once, when their routes are added: the services, the editions and method
 * tables served, the public interfaces, the event-stream hub and the body reader.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeEnv = (
  options: ResolvedOptions
): Effect.Effect<BindingEnv, never, RequestHandler | Auth | AgentCardConfig | Scope.Scope> =>
  Effect.gen(function*() {
    const handler = yield* RequestHandler
    const auth = yield* Auth
    const card = yield* AgentCardConfig
    // Only a fallback for Host-less requests: absent when the routes are mounted outside an HttpServer.
    const server = yield* Effect.serviceOption(HttpServer.HttpServer)
    const shutdown = yield* Effect.serviceOption(ServerShutdown)
    const native = yield* NativeHttp
    const wanted = (table: MethodTable) => options.versions === undefined || options.versions.includes(table.version)
    const editions = (yield* HttpEditions).filter((edition) => wanted(edition.methods))
    // The A2A 1.1 draft, when the server turns it on, after 1.0 so that the card still leads with 1.0.
    const draft = (yield* A2A11).enabled ? [v11Methods] : []
    const tables = new Map(
      [v1Methods, ...draft, ...editions.map((edition) => edition.methods)].filter(wanted).map((table) =>
        [table.version, table] as const
      )
    )
    const served: ServedOptions = { ...options, versions: [...tables.keys()] }
    const tablesByMethod = new Map(
      editions.flatMap(({ methods: table }) =>
        table.methodsNameVersion === true ? [...table.operations.keys()].map((method) => [method, table] as const) : []
      )
    )
    return {
      options: served,
      handler,
      auth,
      card,
      tables,
      editions,
      tablesByMethod,
      interfaces: PublicInterfaces.make(
        served,
        Option.map(server, (s) => s.address),
        new Set(editions.flatMap(({ methods: table }) => table.jsonRpcOnly === true ? [table.version] : []))
      ),
      supportedExtensions: new Set((card.capabilities.extensions ?? []).flatMap((e) => e.uri ?? [])),
      sse: yield* SseResponse.makeHub({
        keepAlive: options.keepAliveInterval,
        direct: options.directStreams ? native?.directResponse : undefined,
        shutdown: Option.match(shutdown, { onNone: () => Effect.never, onSome: Deferred.await })
      }),
      readJson: RequestBody.reader({ maxBytes: options.maxBodyBytes, maxDepth: options.maxJsonDepth }, native),
      clientCertificate: auth.readsClientCertificate === true ? native?.clientCertificate : undefined,
      refused: yield* Observability.refusals
    }
  })

const firstValues = (params: SearchParams): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const key in params) {
    const value = params[key]
    const first = typeof value === "string" ? value : value?.[0]
    if (first !== undefined) out[key] = first
  }
  return out
}

/**
 * Authenticates an HTTP request with the Auth service, or fails with the A2A error to answer.
 *
 * @since 0.1.0
 * @category utils
 */
export const authenticate = (
  env: BindingEnv,
  request: HttpServerRequest.HttpServerRequest,
  searchParams: SearchParams
): Effect.Effect<Principal, Unauthenticated> =>
  env.clientCertificate === undefined
    ? env.auth.authenticate({ headers: request.headers, query: firstValues(searchParams) })
    : env.auth.authenticate({
      headers: request.headers,
      query: firstValues(searchParams),
      clientCertificate: env.clientCertificate(request)
    })

/**
 * Whether a request names no protocol version (which means 0.3, unless its method names one: MethodTable.methodsNameVersion).
 *
 * @since 0.1.0
 * @category utils
 */
export const namesNoVersion = (request: HttpServerRequest.HttpServerRequest, searchParams: SearchParams): boolean => {
  const raw = Version.fromHttp(request.headers, searchParams)
  return raw === undefined || raw.trim() === ""
}

/**
 * The table for the requested version, or the error naming the versions served.
 *
 * @since 0.1.0
 * @category utils
 */
export const negotiate = (
  env: BindingEnv,
  request: HttpServerRequest.HttpServerRequest,
  searchParams: SearchParams
): Result.Result<MethodTable, VersionNotSupported> => {
  const raw = Version.fromHttp(request.headers, searchParams)
  return Result.map(Version.negotiate(raw, env.options.versions), (version) => env.tables.get(version)!)
}

/** The extensions the caller names, in every header its version reads them from, each once. */
const extensionsOf = (
  headers: HttpServerRequest.HttpServerRequest["headers"],
  table: MethodTable
): ReadonlyArray<string> => {
  // Most calls name none.
  if (table.extensionHeaders.length === 1 && headers[table.extensionHeaders[0]!] === undefined) return []
  const uris = table.extensionHeaders.flatMap((name) => CallContext.parseExtensions(headers[name]))
  return table.extensionHeaders.length === 1 ? uris : [...new Set(uris)]
}

/**
 * The CallContext of one HTTP request: who called (Auth), the protocol version asked and the extensions activated.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  env: BindingEnv,
  request: HttpServerRequest.HttpServerRequest,
  principal: Principal,
  table: MethodTable,
  binding: "JSONRPC" | "HTTP+JSON"
): CallContext.CallContext => {
  const headers = request.headers
  const origin = env.interfaces.origin(request)
  return CallContext.make({
    principal,
    requestedVersion: table.version,
    extensions: extensionsOf(headers, table),
    headers,
    interfaces: env.interfaces.forOrigin(origin),
    origin,
    binding
  })
}

/**
 * Response headers for a call: `A2A-Extensions` lists the requested extensions this agent supports, i.e.
 * the ones active for the response. Absent when none is.
 *
 * @since 0.1.0
 * @category utils
 */
export const responseHeaders = (
  env: BindingEnv,
  ctx: CallContext.CallContext
): Record<string, string> | undefined => {
  if (ctx.extensions.length === 0 || env.supportedExtensions.size === 0) return undefined
  const active = ctx.extensions.filter((uri) => env.supportedExtensions.has(uri))
  return active.length === 0 ? undefined : { [EXTENSIONS_HEADER]: active.join(",") }
}

/**
 * What a route knows about its call once the caller is authenticated and the version negotiated.
 *
 * @since 0.1.0
 * @category models
 */
export interface RouteCall {
  readonly table: MethodTable
  readonly ctx: CallContext.CallContext
  readonly headers: Record<string, string> | undefined
}

/**
 * A REST route's prologue: authenticate (before the body is read), negotiate the version, build the call context.
 *
 * @since 0.1.0
 * @category utils
 */
export const forRoute = (
  env: BindingEnv,
  request: HttpServerRequest.HttpServerRequest,
  searchParams: SearchParams
): Effect.Effect<RouteCall, Unauthenticated | VersionNotSupported> =>
  // An Auth that answers at once (`Effect.succeed`, the anonymous one) costs no step of the run loop.
  Effect.flatMapEager(authenticate(env, request, searchParams), (principal) => {
    const table = negotiate(env, request, searchParams)
    if (Result.isFailure(table)) return Effect.fail(table.failure)
    const ctx = make(env, request, principal, table.success, "HTTP+JSON")
    return Effect.succeed({ table: table.success, ctx, headers: responseHeaders(env, ctx) })
  })

/**
 * A streaming operation's answer (Sse.Answer): its event stream, framed by `events`, or the error response
 * `failed` makes when it fails before its first event. Call it with module-level `events` and a `failed` made
 * outside any handler's generator: an open stream holds them for as long as it lasts.
 *
 * @since 0.1.0
 * @category utils
 */
export const streamAnswer = <A>(
  env: BindingEnv,
  stream: Stream.Stream<A, A2AError>,
  events: { readonly encode: (event: A) => Uint8Array; readonly encodeError: (error: A2AError) => Uint8Array },
  headers: Record<string, string> | undefined,
  failed: (error: A2AError) => HttpServerResponse.HttpServerResponse
): SseResponse.Answer =>
  SseResponse.openResponse(env.sse, stream, { window: env.options.firstEventWindow, ...events, headers }, failed)
