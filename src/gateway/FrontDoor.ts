/**
 * The gateway's front door: every registered agent served as an A2A agent under `/agents/{name}`, and the catalog
 * at `GET /agents`. An agent's routes are the server's own bindings (`A2AHttp.routes`: its card at
 * `/agents/{name}/.well-known/agent-card.json`, JSON-RPC at `/agents/{name}`, HTTP+JSON below it, and the older
 * versions of the editions in context) over a ForwardingHandler, built when the agent is first called and kept until
 * its registration changes. Its card is the upstream card with its interfaces pointing at the gateway and the
 * gateway's own security (the upstream's schemes and signatures are the gateway's business, not the caller's). An
 * agent of kind `rest-passthrough` is served by a server of its own in the gateway (RestPassthrough's executor, its
 * tasks in memory: each lasts one call).
 *
 * Access: the caller is authenticated with the gateway's Auth; an agent with an `allow` list is seen and called only
 * by the principals it names, and for everyone else it does not exist (404, in the catalog as on its URL). An agent
 * without one is everyone's (its operations still need the gateway's credentials, its card is public).
 *
 * @example
 * ```ts
 * import { FrontDoor, GatewayRegistry, GatewayStore } from "effect-a2a/gateway"
 * import { A2AHttp } from "effect-a2a/http"
 * import { Auth } from "effect-a2a/server"
 * import { Layer } from "effect"
 * import { FetchHttpClient, HttpRouter } from "effect/http"
 *
 * const app = HttpRouter.serve(Layer.mergeAll(FrontDoor.routes, A2AHttp.notFound)).pipe(
 *   Layer.provide(GatewayRegistry.layer().pipe(Layer.provide(GatewayStore.layerMemory))),
 *   Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as A2AHttp from "../http/A2AHttp.ts"
import { NativeRelay } from "../http/NativeRelay.ts"
import { MethodNotFound, toHttpError, Unavailable } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as A2AServer from "../server/A2AServer.ts"
import * as AgentCardConfig from "../server/AgentCardConfig.ts"
import { Auth, type AuthRequest, type Principal } from "../server/Auth.ts"
import * as Observability from "../server/Observability.ts"
import { RequestHandler } from "../server/RequestHandler.ts"
import * as ByteRelay from "./ByteRelay.ts"
import * as ForwardingHandler from "./ForwardingHandler.ts"
import { GatewayRegistry, type Health } from "./GatewayRegistry.ts"
import type { StoredAgent } from "./GatewayStore.ts"
import * as CardTemplate from "./internal/CardTemplate.ts"
import * as RestPassthrough from "./RestPassthrough.ts"

/**
 * Whether `principal` may see and call the agent (undefined: nobody authenticated, which only an agent open to
 * everyone lets through, to its public card and its 401s).
 *
 * @since 0.2.0
 * @category guards
 */
export const mayCall = (
  agent: { readonly allow: ReadonlyArray<string> | undefined },
  principal: Principal | undefined
): boolean => agent.allow === undefined || (principal !== undefined && agent.allow.includes(principal.id))

/**
 * The base path an agent is served under.
 *
 * @since 0.2.0
 * @category utils
 */
export const agentPath = (name: string): `/${string}` => `/agents/${name}`

/**
 * The card template the front door serves for an agent: the upstream card without its interfaces (the bindings list
 * the gateway's), its security (the gateway's Auth decides) or its signatures (they covered the upstream card). It
 * keeps the upstream's `extendedAgentCard`: the front door forwards GetExtendedAgentCard (see ForwardingHandler).
 *
 * @since 0.2.0
 * @category utils
 */
export const cardTemplate = (card: v1.AgentCard): AgentCardConfig.CardTemplate => CardTemplate.of(card)

const hidden = (request: HttpServerRequest.HttpServerRequest) => {
  const error = toHttpError(
    new MethodNotFound({ message: `No A2A operation at ${request.method} ${request.url.split("?")[0]}` })
  )
  return HttpServerResponse.jsonUnsafe(error.body, { status: error.status })
}

const noQuery: Readonly<Record<string, string>> = Object.freeze({})

const authRequestOf = (request: HttpServerRequest.HttpServerRequest): AuthRequest => {
  const question = request.url.indexOf("?")
  // most calls have no query: no parser for them
  if (question === -1) return { headers: request.headers, query: noQuery }
  return { headers: request.headers, query: Object.fromEntries(new URLSearchParams(request.url.slice(question))) }
}

// A host name or address with an optional port, nothing else: a hostile Host header puts nothing into the catalog.
const HOST = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/

const originOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const given = request.headers["host"] ?? ""
  const host = HOST.test(given) ? given : "localhost"
  return `${request.protocol ?? "http"}://${host}`
}

/** The health a caller sees: whether the agent answers and how fast, not why it does not (that is the operators'). */
const forCallers = (health: Health): Health => ({
  reachable: health.reachable,
  lastCardFetch: health.lastCardFetch,
  latencyMillis: health.latencyMillis,
  lastCall: health.lastCall
})

/** One agent's routes, built for one registration (revision). */
interface Served {
  readonly revision: string
  readonly scope: Scope.Closeable
  readonly app: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    unknown,
    Scope.Scope | HttpServerRequest.HttpServerRequest
  >
  /** The byte relay, for an agent whose calls may take it (ByteRelay). */
  readonly relay: ((request: HttpServerRequest.HttpServerRequest) => Effect.Effect<ByteRelay.Outcome>) | undefined
}

/**
 * The catalog entry of an agent: its name, its URL at the gateway, its card as the gateway serves it, its health
 * (whether it is reachable, latency and last contact; why it is not, and its last error, are for the admin API).
 *
 * @since 0.2.0
 * @category models
 */
export interface CatalogEntry {
  readonly name: string
  readonly url: string
  readonly kind: string
  readonly card: v1.AgentCard
  readonly health: Health
}

/**
 * The front door's routes on the HttpRouter in context: `GET /agents` and everything under `/agents/{name}`.
 *
 * @since 0.2.0
 * @category routes
 */
export const routes: Layer.Layer<
  never,
  never,
  HttpRouter.HttpRouter | GatewayRegistry | Auth | HttpClient.HttpClient
> = HttpRouter.use((
  router
) =>
  Effect.gen(function*() {
    const registry = yield* GatewayRegistry
    const auth = yield* Auth
    // Each agent's routes get a router of their own: not the gateway's (in context), nor one memoized with it.
    const context = Context.omit(Layer.CurrentMemoMap, HttpRouter.HttpRouter)(
      yield* Effect.context<HttpClient.HttpClient>()
    )
    const served = new Map<string, Served>()
    const relayOn = yield* ByteRelay.Enabled
    const native = yield* NativeRelay
    const traced = yield* Observability.isEnabled

    const principalOf = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.map(Effect.option(auth.authenticate(authRequestOf(request))), Option.getOrUndefined)

    /** What answers the agent's operations: the forwarding handler, or (a REST passthrough) a server of its own. */
    const servicesFor = (stored: StoredAgent) =>
      Effect.gen(function*() {
        const template = cardTemplate(stored.card)
        if (stored.kind === "rest-passthrough") {
          const headers = yield* registry.headersOf(stored)
          const executor = yield* RestPassthrough.executor({
            url: stored.url,
            headers,
            observe: (observation) => registry.report(stored.name, observation)
          }).pipe(
            Effect.provideContext(context)
          )
          return { relay: undefined, layer: A2AServer.layer({ card: template, executor, auth }) }
        }
        const connected = yield* registry.connect(stored)
        const target = relayOn ? connected.relay : undefined
        const relay = target === undefined ? undefined : ByteRelay.make({
          name: stored.name,
          basePath: agentPath(stored.name),
          target,
          secrets: connected.secrets,
          report: (observation) => registry.report(stored.name, observation),
          traced,
          native
        })
        // the relay needs the HttpClient only: providing it alone spares a copy of the whole context per call
        const client = Context.get(context, HttpClient.HttpClient)
        return {
          relay: relay === undefined
            ? undefined
            : (request: HttpServerRequest.HttpServerRequest) =>
              Effect.provideService(relay(request), HttpClient.HttpClient, client),
          layer: Layer.mergeAll(
            Layer.succeed(RequestHandler, ForwardingHandler.make(connected, auth)),
            Layer.succeed(AgentCardConfig.AgentCardConfig, AgentCardConfig.make({ card: template }, auth)),
            Layer.succeed(Auth, auth)
          )
        }
      })

    const build = (stored: StoredAgent) =>
      Effect.gen(function*() {
        const services = yield* servicesFor(stored)
        const path = agentPath(stored.name)
        const scope = yield* Scope.make()
        const agentLayer = Layer.mergeAll(
          A2AHttp.routes({ cardPath: `${path}/.well-known/agent-card.json`, jsonRpcPath: path, restPath: path }),
          A2AHttp.notFound
        ).pipe(Layer.provide(services.layer))
        const app = yield* HttpRouter.toHttpEffect(agentLayer).pipe(
          Effect.provideContext(context),
          Effect.provideService(Scope.Scope, scope)
        )
        const entry: Served = { revision: stored.revision, scope, app, relay: services.relay }
        const previous = served.get(stored.name)
        served.set(stored.name, entry)
        if (previous !== undefined) yield* Scope.close(previous.scope, Exit.void)
        return entry
      })

    const appFor = (stored: StoredAgent) => {
      const kept = served.get(stored.name)
      return kept !== undefined && kept.revision === stored.revision ? Effect.succeed(kept) : build(stored)
    }

    const unavailable = (message: string) => {
      const error = toHttpError(new Unavailable({ message }))
      return HttpServerResponse.jsonUnsafe(error.body, { status: error.status })
    }

    const dispatch = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const name = decodeURIComponent(request.url.slice("/agents/".length).split(/[/?#]/)[0] ?? "")
      const found = yield* Effect.result(registry.lookup(name))
      if (found._tag === "Failure") return unavailable(found.failure.message)
      const stored = found.success
      if (Option.isNone(stored)) {
        const gone = served.get(name)
        if (gone !== undefined) {
          served.delete(name)
          yield* Scope.close(gone.scope, Exit.void)
        }
        return hidden(request)
      }
      // Only an `allow` list or the relay needs the caller here: otherwise the agent's own routes authenticate
      // every operation anyway (a second check per call would be wasted work).
      const principal = stored.value.allow !== undefined ? yield* principalOf(request) : undefined
      if (stored.value.allow !== undefined && !mayCall(stored.value, principal)) return hidden(request)
      const entry = yield* Effect.result(appFor(stored.value))
      if (entry._tag === "Failure") return unavailable(entry.failure.message)
      let forward = request
      // The relay only for a caller the gateway lets in: the full path answers everyone else (401 in its binding).
      if (entry.success.relay !== undefined && (principal ?? (yield* principalOf(request))) !== undefined) {
        const outcome = yield* entry.success.relay(request)
        if (outcome._tag === "Answered") return outcome.response
        forward = outcome.request
      }
      return yield* entry.success.app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, forward),
        Effect.catchCause((cause) => Effect.succeed(unavailable(Cause.pretty(cause).split("\n")[0] ?? "failed")))
      )
    })

    const catalog = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const principal = yield* principalOf(request)
      const skill = new URLSearchParams(request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "")
        .get("skill")
      const listed = yield* Effect.result(registry.list)
      if (listed._tag === "Failure") return unavailable(listed.failure.message)
      const origin = originOf(request)
      const agents: Array<CatalogEntry> = listed.success
        .filter((agent) => mayCall(agent, principal))
        .filter((agent) => skill === null || agent.card.skills.some((s) => s.tags.includes(skill)))
        .map((agent) => {
          const url = `${origin}${agentPath(agent.name)}`
          const card = AgentCardConfig.make({ card: cardTemplate(agent.card) }, auth).publicCard([
            { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
            { url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }
          ])
          return { name: agent.name, url, kind: agent.kind, card, health: forCallers(agent.health) }
        })
      return HttpServerResponse.jsonUnsafe({ agents })
    })

    // One route: the router's `/agents/*` takes `/agents` itself too.
    yield* router.add(
      "*",
      "/agents/*",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const path = request.url.split("?")[0]!
        return path === "/agents" || path === "/agents/"
          ? request.method === "GET" ? catalog : Effect.succeed(hidden(request))
          : dispatch
      })
    )
  })
)
