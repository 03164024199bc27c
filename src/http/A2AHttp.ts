/**
 * The A2A HTTP server: the agent card, JSON-RPC and HTTP+JSON/REST routes on Effect's HttpRouter.
 *
 * - `routes(options)` adds the routes to the HttpRouter in context, so an application can mount A2A on its
 *   own router next to its other routes.
 * - `notFound` answers every other path with a Status-shaped 404.
 *
 * Serving them on Node (host, port, timeouts, graceful shutdown) is `NodeA2AServer.serve`, in the Node entry
 * point: this module runs wherever Effect's HttpRouter does.
 *
 * All of them need the RequestHandler, Auth and AgentCardConfig services.
 *
 * @example
 * ```ts
 * import { A2AHttp } from "effect-a2a/http"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 * import { HttpRouter } from "effect/http"
 * import { Layer } from "effect"
 *
 * // the routes and the Status-shaped 404 on your own HttpRouter
 * const app = HttpRouter.serve(Layer.mergeAll(A2AHttp.routes({ restPath: "/a2a" }), A2AHttp.notFound)).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as HttpMiddleware from "effect/http/HttpMiddleware"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerError from "effect/http/HttpServerError"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { AgentCardConfig } from "../server/AgentCardConfig.ts"
import type { Auth } from "../server/Auth.ts"
import type { RequestHandler } from "../server/RequestHandler.ts"
import * as HttpBindingOptions from "./HttpBindingOptions.ts"
import * as HttpCallContext from "./HttpCallContext.ts"
import * as AgentCardRoute from "./internal/AgentCardRoute.ts"
import * as JsonRpcBinding from "./internal/JsonRpcBinding.ts"
import * as RestBinding from "./internal/RestBinding.ts"

/**
 * The services the routes run on.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements = RequestHandler | Auth | AgentCardConfig

/**
 * Adds the A2A routes to the HttpRouter: the public card at `cardPath`, JSON-RPC at `jsonRpcPath` and REST
 * below `restPath` (see HttpBindingOptions for the defaults). The OpenAPI document of the REST routes is
 * `ApiDocs.documentRoutes` (effect-a2a/pages).
 *
 * @since 0.1.0
 * @category routes
 */
export const routes = (
  options: HttpBindingOptions.HttpBindingOptions = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const resolved = HttpBindingOptions.resolve(options)
      const env = yield* HttpCallContext.makeEnv(resolved)
      const proxies = resolved.trustedProxies
      const behindProxies = <E, R>(
        handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ) => proxies === undefined ? handler : HttpMiddleware.xForwardedHeaders({ trustedProxies: proxies })(handler)

      if (resolved.cardPath !== undefined) {
        yield* router.add("GET", resolved.cardPath, behindProxies(AgentCardRoute.handler(env)))
        // Editions whose clients look elsewhere (A2A 0.1 / 0.2: /.well-known/agent.json); the last one naming a
        // path is served there.
        const byPath = new Map(
          env.editions.flatMap((e) => e.card.path === undefined ? [] : [[e.card.path, e] as const])
        )
        for (const [path, edition] of byPath) {
          if (path !== resolved.cardPath) {
            yield* router.add("GET", path, behindProxies(AgentCardRoute.handler(env, edition)))
          }
        }
        // The key the card's signatures name by a jku path (CardSigner), at that path.
        const keys = env.card.publishedKeys
        if (Option.isSome(keys)) {
          yield* router.add("GET", keys.value.path, AgentCardRoute.keysHandler(keys.value.jwks, env))
        }
      }
      if (resolved.jsonRpcPath !== undefined) {
        yield* router.add("POST", resolved.jsonRpcPath, behindProxies(JsonRpcBinding.handler(env)))
      }
      if (resolved.restPath !== undefined) {
        const rest = resolved.restPath === "/" ? router : router.prefixed(resolved.restPath)
        yield* rest.addAll(RestBinding.routes(env, behindProxies))
        // Other protocol versions bring REST routes of their own (A2A 0.3: under /v1 of the same base).
        for (const edition of env.editions) {
          yield* rest.addAll(edition.restRoutes(env, behindProxies))
        }
      }
    })
  )

/**
 * Answers with a google.rpc.Status what the router itself refuses before any route runs: a path whose
 * percent-encoding is malformed (`/tasks/%ZZ`, `%C0%AF`: no route can match it, RFC 3986 section 2.1) is a 400.
 */
const routerRefusals = HttpRouter.middleware(
  (app) =>
    Effect.catchCause(app, (cause) => {
      const error = Cause.findErrorOption(cause)
      return Option.isSome(error) && HttpServerError.isHttpServerError(error.value) &&
          error.value.reason._tag === "RouteNotFound"
        ? Effect.succeed(RestBinding.routeNotFound(error.value.reason.request))
        : Effect.failCause(cause)
    }),
  { global: true }
)

/**
 * A google.rpc.Status 404 for every request no other route takes (400 for a path the router cannot decode), so
 * that no error goes out without a body.
 *
 * @since 0.1.0
 * @category routes
 */
export const notFound: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.mergeAll(
  HttpRouter.add("*", "*", RestBinding.notFoundHandler),
  routerRefusals
)
