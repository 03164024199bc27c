/**
 * The A2A server as a web-standard handler, `(request: Request) => Promise<Response>`, for every runtime that
 * speaks `fetch`: Bun (`Bun.serve`), Deno (`Deno.serve`), Cloudflare Workers and Vercel Edge
 * (`export default { fetch }`), and frameworks that take one (Hono, or Express and Fastify through a small
 * adapter). The same routes as on Node: the card (with the origin each request's Host header names), JSON-RPC and
 * REST, SSE streams (a stream ends, and stops its subscription, when the client goes away), push delivery
 * over `fetch`, authentication, extensions, and A2A 0.3 when its wing is given (`layers: A2A03.server`).
 *
 * - `make(options)` builds the server from the agent, card, stores (memory by default), auth and binding options.
 * - `fromLayer(server, options)` serves an already composed server core (any `A2AServer.Services` layer).
 *
 * The returned `dispose()` ends open streams and releases the layers (stores, push deliveries) once.
 * Nothing here imports a `node:` module.
 *
 * @example
 * ```ts
 * import { A2AWeb } from "effect-a2a/web"
 * import { DemoAgent } from "effect-a2a/server"
 *
 * const a2a = A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make() })
 *
 * // Deno.serve(a2a.handler), Bun.serve({ fetch: a2a.handler }), or a Worker:
 * export default { fetch: a2a.handler }
 * ```
 *
 * @since 0.1.0
 */
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as A2AHttp from "../http/A2AHttp.ts"
import type * as HttpBindingOptions from "../http/HttpBindingOptions.ts"
import * as ServerShutdown from "../http/ServerShutdown.ts"
import * as HostedMcpOption from "../mcp/internal/HostedMcpOption.ts"
import * as A2AServer from "../server/A2AServer.ts"
import type * as AgentCardConfig from "../server/AgentCardConfig.ts"
import * as AgentExecutor from "../server/AgentExecutor.ts"
import * as Auth from "../server/Auth.ts"
import * as EventBus from "../server/EventBus.ts"
import * as MemoryPushConfigStore from "../server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../server/memory/MemoryTaskStore.ts"
import * as GuardedRequestHandler from "../server/push/GuardedRequestHandler.ts"
import type * as PushConfigStore from "../server/PushConfigStore.ts"
import * as PushNotifier from "../server/PushNotifier.ts"
import type * as TaskStore from "../server/TaskStore.ts"
import * as WebPush from "./WebPush.ts"

/**
 * A web-standard handler and the release of what it holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface WebHandler {
  /** Answers one HTTP request: the agent card, the A2A bindings, and whatever else the options serve. */
  readonly handler: (request: Request) => Promise<Response>
  /** Ends open streams and releases the layers; every call returns the same promise. */
  readonly dispose: () => Promise<void>
}

/**
 * Options of the web handler: the agent, its card, authentication, stores, push delivery,
 * further layers, MCP, and the HTTP binding's options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<E = never> extends AgentCardConfig.AgentCardOptions, HttpBindingOptions.HttpBindingOptions {
  /** The agent: an executor, or a layer that builds one. */
  readonly executor: AgentExecutor.AgentExecutor["Service"] | Layer.Layer<AgentExecutor.AgentExecutor, E>
  /** Authentication: an Auth, or a layer building one (e.g. `Auth.layerJwt`). Default none (anonymous). */
  readonly auth?: Auth.Auth["Service"] | Layer.Layer<Auth.Auth, E> | undefined
  /**
   * Where tasks and push configs are kept; default memory (`MemoryTaskStore`, `MemoryPushConfigStore`). Stores
   * that bring an EventBus (several processes on one database) replace the in-process one.
   */
  readonly stores?: Layer.Layer<TaskStore.TaskStore | PushConfigStore.PushConfigStore, E> | undefined
  /**
   * Webhook push over `fetch` (WebPush), when the card declares `pushNotifications`; false to keep configs but
   * deliver nothing. Default WebPush's defaults.
   */
  readonly push?: WebPush.Options | false | undefined
  /** More layers for the server: the A2A 0.3 wing (`A2A03.server` from effect-a2a/v0_3), your own references. */
  readonly layers?: Layer.Layer<never, E> | undefined
  /** Also serve the agent as an MCP tool at `/mcp` (or the options' path), behind the same Auth (HostedMcp). */
  readonly mcp?: HostedMcpOption.McpOption
}

const memoryStores: Layer.Layer<TaskStore.TaskStore | PushConfigStore.PushConfigStore> = Layer.merge(
  MemoryTaskStore.layer,
  MemoryPushConfigStore.layer
)

/**
 * The server core of `make`: RequestHandler (push URLs guarded), AgentCardConfig and Auth.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E = never>(options: Options<E>): Layer.Layer<A2AServer.Services, E> => {
  const stores = Layer.merge(EventBus.layerInProcess, options.stores ?? memoryStores)
  const executor = "execute" in options.executor ? AgentExecutor.layer(options.executor) : options.executor
  const auth = options.auth === undefined
    ? Layer.succeed(Auth.Auth, Auth.none)
    : "authenticate" in options.auth
    ? Layer.succeed(Auth.Auth, options.auth)
    : options.auth
  const extra = options.layers ?? Layer.empty
  const push = options.card.capabilities?.pushNotifications === true ? options.push ?? {} : false
  const core = A2AServer.layerCore(options).pipe(Layer.provide(executor))
  const withPush = push !== false
    ? GuardedRequestHandler.layer.pipe(
      Layer.provideMerge(core),
      Layer.provideMerge(WebPush.layer(push).pipe(Layer.provide(stores)))
    )
    : core.pipe(Layer.provide(PushNotifier.layerNoop))
  return withPush.pipe(
    Layer.provide(stores),
    Layer.provideMerge(auth),
    Layer.provideMerge(extra)
  )
}

/**
 * Serves a server core (RequestHandler, AgentCardConfig, Auth: `A2AServer.layer`, `layer` above, or your own
 * composition) as a web handler, with the routes placed by `options` and a Status-shaped 404 for other paths.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLayer = <E>(
  server: Layer.Layer<A2AHttp.Requirements, E>,
  options: HttpBindingOptions.HttpBindingOptions & { readonly mcp?: HostedMcpOption.McpOption } = {}
): WebHandler => {
  const routes = Layer.mergeAll(A2AHttp.routes(options), HostedMcpOption.routes(options.mcp), A2AHttp.notFound)
  // Released first when the handler is disposed: open streams end before the layers under them go.
  const app = ServerShutdown.raiseOnRelease.pipe(
    Layer.provideMerge(routes),
    Layer.provide(server),
    Layer.provideMerge(ServerShutdown.layer)
  )
  const { dispose, handler } = HttpRouter.toWebHandler(app, { disableLogger: true })
  return { handler: (request) => handler(request), dispose }
}

/**
 * The A2A server as a web handler: `layer(options)` served by `fromLayer`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E = never>(options: Options<E>): WebHandler => fromLayer(layer(options), options)
