/**
 * The A2A server on Node: `A2AHttp.routes` (card, JSON-RPC, REST, 1.0 and 0.3) and the Status-shaped 404
 * served by Node's HTTP server, with its timeouts and a graceful shutdown.
 *
 * - `serve(options)` listens on `host:port` (default 127.0.0.1:8080); with `grpcPort` it also serves gRPC there
 *   (effect-a2a/grpc, loaded only then: @grpc/grpc-js must be installed) and the card lists it.
 * - `layerConfig(overrides)` is `serve` configured from the environment (HOST, PORT, A2A_*).
 * - `devUi: true` also serves the browser dev UI (DevUi, effect-a2a/pages) at `/_dev`.
 * - `apiDocs` (on by default) serves the HTTP+JSON binding's OpenAPI document at `/openapi.json` (the option
 *   `openApiPath`) and a page that shows it (ApiDocs, effect-a2a/pages) at `/docs`.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import * as Layer from "effect/Layer"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 *
 * NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
// By subpath: the package barrel loads every platform module (Redis, undici, ws...) into the process.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import { ServeError } from "effect/http/HttpServerError"
import * as Layer from "effect/Layer"
import * as NetAddress from "effect/net/NetAddress"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { readFileSync } from "node:fs"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { Server as NetServer } from "node:net"
import * as A2AHttp from "../http/A2AHttp.ts"
import * as HttpBindingOptions from "../http/HttpBindingOptions.ts"
import * as ServerShutdown from "../http/ServerShutdown.ts"
import * as HostedMcpOption from "../mcp/internal/HostedMcpOption.ts"
import * as ApiDocs from "../pages/ApiDocs.ts"
import * as DevUi from "../pages/DevUi.ts"
import type * as ServerTls from "../server/ServerTls.ts"
import * as ShutdownDeadline from "../server/ShutdownDeadline.ts"
import * as IdleMemoryRelease from "./IdleMemoryRelease.ts"
import { http } from "./internal/NodeHttpModule.ts"
import * as NodeNativeHttp from "./NodeNativeHttp.ts"
import * as YoungGenerationBound from "./YoungGenerationBound.ts"

/**
 * How the server listens and what it serves: the binding options and those of Node's server.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServeOptions extends HttpBindingOptions.HttpBindingOptions {
  /** Address to listen on. Default "127.0.0.1"; "0.0.0.0" or "::" listen on every interface. */
  readonly host?: string | undefined
  /** Port to listen on; 0 picks a free one. Default 8080. */
  readonly port?: number | undefined
  /**
   * How many connections the kernel holds for the server before it accepts them (the listen backlog; Linux caps it
   * at `net.core.somaxconn`). Past it a new connection's SYN is dropped and the client sends it again only after its
   * retransmission timeout (a second or more), so a burst of connections larger than this waits that long. Default
   * `DEFAULT_BACKLOG`.
   *
   * @since 0.2.0
   */
  readonly backlog?: number | undefined
  /** Longest time to receive one request (headers and body); Node answers 408 after it. Default 30 s. */
  readonly requestTimeout?: Duration.Input | undefined
  /**
   * On shutdown, how long in-flight requests may take to finish (open event streams end at once). A blocking
   * SendMessage still waiting then answers its task as it is; the rest is interrupted a second later. Default 10 s.
   */
  readonly shutdownTimeout?: Duration.Input | undefined
  /** Serve HTTPS instead of HTTP (see TlsOptions). */
  readonly tls?: TlsOptions | undefined
  /** Also serve the browser dev UI (DevUi) at `/_dev`. Default false. */
  readonly devUi?: boolean | undefined
  /**
   * Serve the OpenAPI document of the HTTP+JSON binding at `openApiPath` (default "/openapi.json") and the page
   * that shows it (ApiDocs) at `/docs`, when REST is mounted. Default true.
   */
  readonly apiDocs?: boolean | undefined
  /**
   * Where the OpenAPI document is served (ApiDocs.documentRoutes), or false for nowhere. Default "/openapi.json"
   * when `apiDocs` is on, nowhere otherwise.
   */
  readonly openApiPath?: `/${string}` | false | undefined
  /**
   * Also serve the agent as an MCP tool (streamable HTTP) at `/mcp` (or the options' path), on this port and behind
   * the same Auth (HostedMcp). Default false.
   */
  readonly mcp?: HostedMcpOption.McpOption
  /**
   * Once started, and once a spell of load ends, give the heap V8 grew back to the system (IdleMemoryRelease):
   * without it the RSS start-up or a burst left stays for good. Options, or true for the defaults. Default off: it
   * runs a full collection in the whole process (a pause while no request comes), the application's to choose;
   * `effect-a2a serve` turns it on.
   */
  readonly releaseMemoryWhenIdle?: boolean | IdleMemoryRelease.Options | undefined
  /**
   * Keep the process's resident memory low, for an application that embeds the server on plain `node`: turns on
   * `releaseMemoryWhenIdle` (unless that option is given) and holds V8's young generation at 8 MiB semi-spaces
   * (YoungGenerationBound, as `node --max-semi-space-size=8` does from the start). The price: a pause for a full
   * collection when the server goes quiet, and more, smaller young-generation collections under load. Default off.
   */
  readonly lowMemory?: boolean | undefined
}

/**
 * HTTPS: the server's certificate and key (PEM), and whose client certificates it checks (ServerTls).
 *
 * @since 0.1.0
 * @category models
 */
export type TlsOptions = ServerTls.TlsOptions

/**
 * The address the server listens on unless told otherwise: loopback only.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_HOST = "127.0.0.1"
/**
 * The port the server listens on unless told otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PORT = 8080
/**
 * The listen backlog unless `backlog` says otherwise: room for a burst of a few thousand connections opened at once
 * (Node's own default, 511, drops the SYNs past it, and those clients wait a retransmission timeout). The kernel
 * caps it at its own limit (`net.core.somaxconn` on Linux).
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_BACKLOG = 4096
/**
 * How long a stopping server lets what is in flight end, unless `shutdownTimeout` says otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_SHUTDOWN_TIMEOUT = Duration.seconds(10)

/**
 * The base URL of a listening server, for humans: a wildcard address is shown as localhost.
 *
 * @since 0.1.0
 * @category utils
 */
export const baseUrl = (address: NetAddress.SocketAddress, secure = false): string => {
  const url = !NetAddress.isInetAddress(address)
    ? HttpServer.formatAddress(address)
    : NetAddress.isUnspecified(address.address)
    ? `http://localhost:${address.port}`
    : HttpServer.formatAddress(address)
  return secure ? url.replace(/^http:/, "https:") : url
}

const logListening = (
  options: HttpBindingOptions.ResolvedOptions,
  secure: boolean,
  devUi: boolean,
  apiDocs: `/${string}` | undefined,
  mcpPath: string | undefined
) =>
  Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const base = options.publicUrl ?? baseUrl(server.address, secure)
    const card = options.cardPath !== undefined ? `; agent card: ${base}${options.cardPath}` : ""
    yield* Effect.logInfo(`A2A server listening on ${baseUrl(server.address, secure)}${card}`)
    if (devUi) yield* Effect.logInfo(`Dev UI: ${base}${DevUi.DEFAULT_PATH}`)
    if (apiDocs !== undefined) {
      yield* Effect.logInfo(`API docs: ${base}${ApiDocs.DEFAULT_PATH} (OpenAPI: ${base}${apiDocs})`)
    }
    if (mcpPath !== undefined) yield* Effect.logInfo(`MCP endpoint: ${base}${mcpPath}`)
  })

/** Node's server: HTTP, or HTTPS with `tls`. */
const nodeServer = (requestTimeout: number, tls: TlsOptions | undefined): NetServer => {
  const options = { requestTimeout, headersTimeout: Math.min(requestTimeout, 15_000), keepAliveTimeout: 5_000 }
  if (tls === undefined) return http.createServer(options)
  const clients = tls.clientCertificates ?? "none"
  return createHttpsServer({
    ...options,
    cert: tls.cert,
    key: Redacted.value(tls.key),
    ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
    requestCert: clients !== "none",
    rejectUnauthorized: clients === "require"
  })
}

/** How long after the shutdown deadline the answers written then have to leave before requests are cut. */
const ANSWER_GRACE = Duration.seconds(1)

/** Longest wait, once a shutdown begins, for kept-alive clients to be told `Connection: close` (see `serve`). */
const MAX_DRAIN = Duration.millis(500)

/**
 * Serves the A2A routes (and the 404 fallback) on a Node HTTP server. The layer's scope is the server's
 * lifetime. When it closes:
 * 1. open event streams end (clients may resubscribe on another node), and every request from then on is
 *    answered with `Connection: close`, so a kept-alive client sends nothing more on its connection;
 * 2. for up to half a second, while connections remain, the server still answers what arrives on them, so busy
 *    clients hear that close instead of having a request cut by the close of their connection;
 * 3. the server stops listening and closes idle connections; requests in flight get what is left of
 *    `shutdownTimeout` to finish, after which a blocking SendMessage still waiting answers its task as it is then
 *    (ShutdownDeadline); what remains a second later is interrupted.
 * Request logging is off: nothing is written per request.
 *
 * @since 0.1.0
 * @category layers
 */
export const serve = (
  options: ServeOptions = {}
): Layer.Layer<HttpServer.HttpServer, ServeError, A2AHttp.Requirements> =>
  options.grpcPort === undefined ? serveHttp(options) : Layer.unwrap(Effect.gen(function*() {
    const host = options.host ?? DEFAULT_HOST
    // Loaded here, so the Node runner does not load grpc-js for a server without gRPC.
    const GrpcServer = yield* Effect.tryPromise({
      try: () => import("../grpc/GrpcServer.ts"),
      catch: (cause) => new ServeError({ cause })
    })
    // With HTTPS, gRPC speaks TLS too, with the same certificate.
    const grpc = yield* GrpcServer.make({
      host,
      port: options.grpcPort ?? 0,
      shutdownTimeout: options.shutdownTimeout,
      tls: options.tls
    })
      .pipe(Effect.mapError((cause) => new ServeError({ cause })))
    yield* Effect.logInfo(
      `A2A gRPC server listening on ${host}:${grpc.port}${options.tls !== undefined ? " (TLS)" : ""}`
    )
    // the card lists the port bound (grpcPort 0 picks one)
    return serveHttp({ ...options, grpcPort: grpc.port, grpcTls: options.tls !== undefined })
  }))

const serveHttp = (
  options: ServeOptions
): Layer.Layer<HttpServer.HttpServer, ServeError, A2AHttp.Requirements> => {
  const requestTimeout = Duration.toMillis(Duration.fromInputUnsafe(options.requestTimeout ?? Duration.seconds(30)))
  const shutdownTimeout = Duration.fromInputUnsafe(options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT)
  const drainFor = Duration.min(MAX_DRAIN, Duration.divideUnsafe(shutdownTimeout, 4))
  // The API docs need the REST routes they describe.
  const apiDocs = options.apiDocs !== false && options.restPath !== false
  const binding: HttpBindingOptions.HttpBindingOptions = { ...options, directStreams: options.directStreams ?? true }
  const resolved = HttpBindingOptions.resolve(binding)
  const openApiPath = options.restPath === false || options.openApiPath === false
    ? undefined
    : options.openApiPath ?? (apiDocs ? ApiDocs.DEFAULT_DOCUMENT_PATH : undefined)
  // The page, where there is a document for it to show.
  const docsPage = apiDocs && openApiPath !== undefined
  // Built anew each time the layer is: `listening` is this build's server.
  const served = Layer.unwrap(Effect.sync(() => {
    let listening: NetServer | undefined
    const server = NodeHttpServer.layer(
      () => {
        listening = nodeServer(requestTimeout, options.tls)
        // The platform serves HTTP/1.1 and HTTP/2 servers alike through the members they share.
        return listening as Server
      },
      {
        host: options.host ?? DEFAULT_HOST,
        port: options.port ?? DEFAULT_PORT,
        backlog: options.backlog ?? DEFAULT_BACKLOG,
        gracefulShutdownTimeout: Duration.sum(shutdownTimeout, ANSWER_GRACE)
      }
    )
    const app = HttpRouter.serve(
      Layer.mergeAll(
        A2AHttp.routes(binding).pipe(Layer.provide(NodeNativeHttp.layer)),
        options.devUi === true ? DevUi.routes({ cardPath: resolved.cardPath }) : Layer.empty,
        openApiPath !== undefined ? ApiDocs.documentRoutes({ ...binding, openApiPath }) : Layer.empty,
        docsPage ? ApiDocs.routes({ documentPath: openApiPath }) : Layer.empty,
        HostedMcpOption.routes(options.mcp),
        A2AHttp.notFound
      ),
      {
        disableLogger: true,
        disableListenLog: true
      }
    )
    // Runs once the shutdown has begun (released after the signal is raised, before the server closes).
    const drain = Layer.effectDiscard(
      Effect.flatMap(ShutdownDeadline.ShutdownDeadline, (deadline) =>
        Effect.addFinalizer(() =>
          Effect.gen(function*() {
            const closing = closeConnections(listening)
            // On a timer that does not keep the process alive once everything else has stopped.
            setTimeout(() => Deferred.doneUnsafe(deadline, Exit.void), Duration.toMillis(shutdownTimeout)).unref()
            yield* untilQuiet(listening, closing, Duration.toMillis(drainFor))
          })
        ))
    )
    const lowMemory = options.lowMemory === true
    const release = options.releaseMemoryWhenIdle ?? lowMemory
    const idleRelease = release === false ? Layer.empty : Layer.effectDiscard(
      Effect.suspend(() =>
        listening === undefined
          ? Effect.void
          : IdleMemoryRelease.watch(listening, release === true ? {} : release)
      )
    )
    // Built last so they are released first: the signal, then the drain, then the server's own close.
    return ServerShutdown.raiseOnRelease.pipe(
      Layer.provideMerge(drain),
      Layer.provideMerge(
        Layer.mergeAll(
          app,
          idleRelease,
          lowMemory ? Layer.effectDiscard(YoungGenerationBound.hold()) : Layer.empty,
          Layer.effectDiscard(logListening(
            resolved,
            options.tls !== undefined,
            options.devUi === true,
            docsPage ? openApiPath : undefined,
            HostedMcpOption.pathOf(options.mcp)
          ))
        )
      ),
      Layer.provideMerge(server)
    )
  }))
  return served.pipe(Layer.provideMerge(ServerShutdown.layer))
}

/** When the last request arrived (performance.now()), once a shutdown has begun. */
interface Closing {
  lastRequest: number
}

/**
 * From now on every response says `Connection: close`, so a kept-alive client sends nothing more on its
 * connection. A listener in front of the application's (nothing is added while the server runs normally); a
 * response already under way keeps its keep-alive, and the client's next request, if any, gets the close.
 */
const closeConnections = (server: NetServer | undefined): Closing => {
  const closing: Closing = { lastRequest: performance.now() }
  server?.prependListener("request", (_request: IncomingMessage, response: ServerResponse) => {
    closing.lastRequest = performance.now()
    response.setHeader("connection", "close")
  })
  return closing
}

/** Requests this far apart mean the clients have heard the close (or are idle): the drain can end. */
const QUIET_MS = 50

/**
 * Waits while clients still send requests on open connections (each answered with `Connection: close`), for at
 * most `ms`: it ends once the server has no connection left or no request came for QUIET_MS. On Node's own timers:
 * the shutdown of a real server takes real time, whatever clock the application's effects run with.
 */
const untilQuiet = (server: NetServer | undefined, closing: Closing, ms: number): Effect.Effect<void> =>
  server === undefined ? Effect.void : Effect.callback<void>((resume) => {
    const until = performance.now() + ms
    let timer: ReturnType<typeof setTimeout> | undefined
    const check = () => {
      server.getConnections((error, count) => {
        const now = performance.now()
        if (error !== null || count === 0 || now >= until || now - closing.lastRequest >= QUIET_MS) {
          resume(Effect.void)
        } else timer = setTimeout(check, 10)
      })
    }
    timer = setTimeout(check, 10)
    return Effect.sync(() => clearTimeout(timer))
  })

const BOOLEAN_WORDS = ["true", "false", "yes", "no", "on", "off", "1", "0"] as const

/** A switch from the environment: one of BOOLEAN_WORDS (any case). */
const switchConfig = (name: string): Config.Config<boolean> =>
  Config.String(name).pipe(
    Config.mapEffect((raw) => {
      const word = raw.trim().toLowerCase()
      return (BOOLEAN_WORDS as ReadonlyArray<string>).includes(word)
        ? Effect.succeed(["true", "yes", "on", "1"].includes(word))
        : Effect.fail(
          HttpBindingOptions.invalidConfig(`${name} must be one of ${BOOLEAN_WORDS.join(", ")}, got "${raw}"`)
        )
    })
  )

/**
 * `A2A_DEV_UI`: whether to serve the dev UI; one of BOOLEAN_WORDS (any case).
 *
 * @since 0.1.0
 * @category config
 */
export const devUiConfig: Config.Config<boolean> = switchConfig("A2A_DEV_UI")

/**
 * `A2A_API_DOCS`: whether to serve the OpenAPI document and its page; one of BOOLEAN_WORDS (any case).
 *
 * @since 0.1.0
 * @category config
 */
export const apiDocsConfig: Config.Config<boolean> = switchConfig("A2A_API_DOCS")

/**
 * `A2A_RELEASE_MEMORY_WHEN_IDLE`: whether to give the heap back once a spell of load ends (IdleMemoryRelease); one
 * of BOOLEAN_WORDS (any case).
 *
 * @since 0.1.0
 * @category config
 */
export const releaseMemoryWhenIdleConfig: Config.Config<boolean> = switchConfig("A2A_RELEASE_MEMORY_WHEN_IDLE")

/**
 * `A2A_LOW_MEMORY`: whether to keep the process's resident memory low (`lowMemory`); one of BOOLEAN_WORDS (any case).
 *
 * @since 0.2.0
 * @category config
 */
export const lowMemoryConfig: Config.Config<boolean> = switchConfig("A2A_LOW_MEMORY")

/** The contents of the PEM file whose path the variable `name` holds. */
const pemFile = (name: string): Config.Config<string> =>
  Config.String(name).pipe(Config.mapEffect((path) =>
    Effect.try({
      try: () => readFileSync(path, "utf8"),
      catch: (error) =>
        HttpBindingOptions.invalidConfig(
          `${name}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`
        )
    })
  ))

/**
 * HTTPS from `A2A_TLS_CERT` and `A2A_TLS_KEY` (PEM file paths, both or neither), `A2A_TLS_CA` (the CAs client
 * certificates must chain to) and `A2A_TLS_CLIENT_CERT` (none, request or require; default none).
 *
 * @since 0.1.0
 * @category config
 */
export const tlsConfig: Config.Config<TlsOptions | undefined> = Config.all({
  cert: Config.option(pemFile("A2A_TLS_CERT")),
  key: Config.option(pemFile("A2A_TLS_KEY")),
  ca: Config.option(pemFile("A2A_TLS_CA")),
  clientCertificates: Config.Literals(["none", "request", "require"], "A2A_TLS_CLIENT_CERT").pipe(
    Config.withDefault("none" as const)
  )
}).pipe(Config.mapEffect(({ ca, cert, clientCertificates, key }) => {
  if (Option.isNone(cert) && Option.isNone(key)) {
    return clientCertificates === "none" && Option.isNone(ca)
      ? Effect.succeed(undefined)
      : Effect.fail(
        HttpBindingOptions.invalidConfig("A2A_TLS_CA and A2A_TLS_CLIENT_CERT need A2A_TLS_CERT and A2A_TLS_KEY")
      )
  }
  if (Option.isNone(cert) || Option.isNone(key)) {
    return Effect.fail(HttpBindingOptions.invalidConfig("A2A_TLS_CERT and A2A_TLS_KEY go together: set both"))
  }
  return Effect.succeed<TlsOptions>({
    cert: cert.value,
    key: Redacted.make(key.value),
    ca: Option.getOrUndefined(ca),
    clientCertificates
  })
}))

/**
 * `HOST` (default 127.0.0.1), `PORT` (default 8080), `A2A_LISTEN_BACKLOG` (default DEFAULT_BACKLOG),
 * `A2A_REQUEST_TIMEOUT` and `A2A_SHUTDOWN_TIMEOUT` (durations, e.g. "10 seconds"), HTTPS (`tlsConfig`), `A2A_DEV_UI`, `A2A_API_DOCS`, `A2A_RELEASE_MEMORY_WHEN_IDLE`
 * and `A2A_LOW_MEMORY` (true or false; unset leaves the default), plus the binding settings of
 * HttpBindingOptions.config.
 *
 * @since 0.1.0
 * @category config
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
  backlog: Config.option(
    Config.Int("A2A_LISTEN_BACKLOG").pipe(
      Config.mapEffect((backlog) =>
        backlog >= 1
          ? Effect.succeed(backlog)
          : Effect.fail(HttpBindingOptions.invalidConfig(`A2A_LISTEN_BACKLOG must be 1 or more, got ${backlog}`))
      )
    )
  ),
  requestTimeout: Config.option(Config.Duration("A2A_REQUEST_TIMEOUT")),
  shutdownTimeout: Config.option(Config.Duration("A2A_SHUTDOWN_TIMEOUT")),
  tls: tlsConfig,
  devUi: Config.option(devUiConfig),
  apiDocs: Config.option(apiDocsConfig),
  releaseMemoryWhenIdle: Config.option(releaseMemoryWhenIdleConfig),
  lowMemory: Config.option(lowMemoryConfig),
  binding: HttpBindingOptions.config
}).pipe(Config.map((
  {
    apiDocs,
    backlog,
    binding,
    devUi,
    host,
    lowMemory,
    port,
    releaseMemoryWhenIdle,
    requestTimeout,
    shutdownTimeout,
    tls
  }
): ServeOptions => ({
  ...binding,
  host,
  port,
  backlog: Option.getOrUndefined(backlog),
  tls,
  devUi: Option.getOrUndefined(devUi),
  apiDocs: Option.getOrUndefined(apiDocs),
  releaseMemoryWhenIdle: Option.getOrUndefined(releaseMemoryWhenIdle),
  lowMemory: Option.getOrUndefined(lowMemory),
  requestTimeout: Option.getOrUndefined(requestTimeout),
  shutdownTimeout: Option.getOrUndefined(shutdownTimeout)
})))

/**
 * `serve` configured from the environment; `overrides` win over it (e.g. command-line flags), and it wins over
 * `defaults` (what the environment leaves unset).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  overrides: ServeOptions = {},
  defaults: ServeOptions = {}
): Layer.Layer<HttpServer.HttpServer, ServeError | Config.ConfigError, A2AHttp.Requirements> =>
  Layer.unwrap(Effect.gen(function*() {
    const fromEnv = yield* serveConfig
    return serve({ ...defaults, ...withoutUndefined(fromEnv), ...withoutUndefined(overrides) })
  }))

const withoutUndefined = <A extends object>(a: A): Partial<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>
