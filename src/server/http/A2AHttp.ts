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
 */
import * as Effect from "effect/Effect"
import * as HttpMiddleware from "effect/http/HttpMiddleware"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Layer from "effect/Layer"
import type { AgentCardConfig } from "../AgentCardConfig.ts"
import type { Auth } from "../Auth.ts"
import type { RequestHandler } from "../RequestHandler.ts"
import * as AgentCardRoute from "./AgentCardRoute.ts"
import * as V03Edge from "./compat/V03Edge.ts"
import * as V03Rest from "./compat/V03Rest.ts"
import * as HttpBindingOptions from "./HttpBindingOptions.ts"
import * as HttpCallContext from "./HttpCallContext.ts"
import * as JsonRpcBinding from "./JsonRpcBinding.ts"
import * as RestBinding from "./RestBinding.ts"

/** The services the routes run on. */
export type Requirements = RequestHandler | Auth | AgentCardConfig

/**
 * Adds the A2A routes to the HttpRouter: the public card at `cardPath`, JSON-RPC at `jsonRpcPath`, REST
 * below `restPath` (see HttpBindingOptions for the defaults).
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
      }
      if (resolved.jsonRpcPath !== undefined) {
        yield* router.add("POST", resolved.jsonRpcPath, behindProxies(JsonRpcBinding.handler(env)))
      }
      if (resolved.restPath !== undefined) {
        const rest = resolved.restPath === "/" ? router : router.prefixed(resolved.restPath)
        yield* rest.addAll(RestBinding.routes(env, behindProxies))
        // A2A 0.3 REST lives under /v1 of the same base (compat/V03Rest).
        if (env.edges.has(V03Edge.VERSION)) yield* rest.addAll(V03Rest.routes(env, behindProxies))
      }
    })
  )

/** A google.rpc.Status 404 for every request no other route takes. */
export const notFound: Layer.Layer<never, never, HttpRouter.HttpRouter> = HttpRouter.add(
  "*",
  "*",
  RestBinding.notFoundHandler
)
