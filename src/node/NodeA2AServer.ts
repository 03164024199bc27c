/**
 * The A2A server on Node: `A2AHttp.routes` (card, JSON-RPC, REST, 1.0 and 0.3) and the Status-shaped 404
 * served by Node's HTTP server, with its timeouts and a graceful shutdown.
 *
 * - `serve(options)` listens on `host:port` (default 127.0.0.1:8080).
 * - `layerConfig(overrides)` is `serve` configured from the environment (HOST, PORT, A2A_*).
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 *
 * NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 */
// By subpath: the package barrel loads every platform module (Redis, undici, ws...) into the process.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import type { ServeError } from "effect/http/HttpServerError"
import * as Layer from "effect/Layer"
import * as NetAddress from "effect/net/NetAddress"
import * as Option from "effect/Option"
import { createServer } from "node:http"
import * as A2AHttp from "../server/http/A2AHttp.ts"
import * as HttpBindingOptions from "../server/http/HttpBindingOptions.ts"
import * as ServerShutdown from "../server/http/ServerShutdown.ts"
import * as NodeNativeHttp from "./NodeNativeHttp.ts"

export interface ServeOptions extends HttpBindingOptions.HttpBindingOptions {
  /** Address to listen on. Default "127.0.0.1"; "0.0.0.0" or "::" listen on every interface. */
  readonly host?: string | undefined
  /** Port to listen on; 0 picks a free one. Default 8080. */
  readonly port?: number | undefined
  /** Longest time to receive one request (headers and body); Node answers 408 after it. Default 30 s. */
  readonly requestTimeout?: Duration.Input | undefined
  /**
   * On shutdown, how long in-flight requests may take to finish before they are interrupted (open streams
   * then end). Default 10 s.
   */
  readonly shutdownTimeout?: Duration.Input | undefined
}

export const DEFAULT_HOST = "127.0.0.1"
export const DEFAULT_PORT = 8080

/** The base URL of a listening server, for humans: a wildcard address is shown as localhost. */
export const baseUrl = (address: NetAddress.SocketAddress): string => {
  if (!NetAddress.isInetAddress(address)) return HttpServer.formatAddress(address)
  if (NetAddress.isUnspecified(address.address)) return `http://localhost:${address.port}`
  return HttpServer.formatAddress(address)
}

const logListening = (options: HttpBindingOptions.ResolvedOptions) =>
  Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const base = options.publicUrl ?? baseUrl(server.address)
    const card = options.cardPath !== undefined ? `; agent card: ${base}${options.cardPath}` : ""
    yield* Effect.logInfo(`A2A server listening on ${baseUrl(server.address)}${card}`)
  })

/**
 * Serves the A2A routes (and the 404 fallback) on a Node HTTP server. The layer's scope is the server's
 * lifetime: closing it stops accepting connections, lets in-flight requests finish for `shutdownTimeout`,
 * then interrupts what is left (which ends open streams). Request logging is off: nothing is written per
 * request.
 */
export const serve = (
  options: ServeOptions = {}
): Layer.Layer<HttpServer.HttpServer, ServeError, A2AHttp.Requirements> => {
  const requestTimeout = Duration.toMillis(Duration.fromInputUnsafe(options.requestTimeout ?? Duration.seconds(30)))
  const server = NodeHttpServer.layer(
    () =>
      createServer({
        requestTimeout,
        headersTimeout: Math.min(requestTimeout, 15_000),
        keepAliveTimeout: 5_000
      }),
    {
      host: options.host ?? DEFAULT_HOST,
      port: options.port ?? DEFAULT_PORT,
      gracefulShutdownTimeout: options.shutdownTimeout ?? Duration.seconds(10)
    }
  )
  // No response middleware here, so event streams can be written straight to Node's response.
  const app = HttpRouter.serve(
    Layer.mergeAll(
      A2AHttp.routes({ ...options, directStreams: options.directStreams ?? true }).pipe(
        Layer.provide(NodeNativeHttp.layer)
      ),
      A2AHttp.notFound
    ),
    {
      disableLogger: true,
      disableListenLog: true
    }
  )
  // Built last so it is released first: open streams end, then the server waits for the other requests.
  return ServerShutdown.raiseOnRelease.pipe(
    Layer.provideMerge(Layer.mergeAll(app, Layer.effectDiscard(logListening(HttpBindingOptions.resolve(options))))),
    Layer.provideMerge(server),
    Layer.provideMerge(ServerShutdown.layer)
  )
}

/**
 * `HOST` (default 127.0.0.1), `PORT` (default 8080), `A2A_REQUEST_TIMEOUT` and `A2A_SHUTDOWN_TIMEOUT`
 * (durations, e.g. "10 seconds"), plus the binding settings of HttpBindingOptions.config.
 */
export const serveConfig: Config.Config<ServeOptions> = Config.all({
  host: Config.String("HOST").pipe(Config.withDefault(DEFAULT_HOST)),
  // Not Config.Port: 0 (a free port) is a valid choice here.
  port: Config.Int("PORT").pipe(
    Config.mapEffect((port) =>
      port >= 0 && port <= 65535
        ? Effect.succeed(port)
        : Effect.fail(HttpBindingOptions.invalidConfig(`PORT must be between 0 and 65535, got ${port}`))
    ),
    Config.withDefault(DEFAULT_PORT)
  ),
  requestTimeout: Config.option(Config.Duration("A2A_REQUEST_TIMEOUT")),
  shutdownTimeout: Config.option(Config.Duration("A2A_SHUTDOWN_TIMEOUT")),
  binding: HttpBindingOptions.config
}).pipe(Config.map(({ binding, host, port, requestTimeout, shutdownTimeout }): ServeOptions => ({
  ...binding,
  host,
  port,
  requestTimeout: Option.getOrUndefined(requestTimeout),
  shutdownTimeout: Option.getOrUndefined(shutdownTimeout)
})))

/** `serve` configured from the environment; `overrides` win over it (e.g. command-line flags). */
export const layerConfig = (
  overrides: ServeOptions = {}
): Layer.Layer<HttpServer.HttpServer, ServeError | Config.ConfigError, A2AHttp.Requirements> =>
  Layer.unwrap(Effect.gen(function*() {
    const fromEnv = yield* serveConfig
    return serve({ ...fromEnv, ...withoutUndefined(overrides) })
  }))

const withoutUndefined = <A extends object>(a: A): Partial<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>
