/**
 * Settings of the HTTP bindings: where each binding is mounted, how public URLs are derived, and the
 * request limits. Every setting has an explicit default; `config` reads them from the environment.
 *
 * @example
 * ```ts
 * import { A2AHttp, type HttpBindingOptions } from "effect-a2a/http"
 *
 * const options: HttpBindingOptions.HttpBindingOptions = {
 *   jsonRpcPath: "/a2a/rpc",
 *   restPath: "/a2a",
 *   publicUrl: "https://agent.example.com",
 *   maxBodyBytes: 256 * 1024,
 *   versions: ["1.0"]
 * }
 * const routes = A2AHttp.routes(options)
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as IpNetwork from "effect/net/IpNetwork"
import type * as NetAddress from "effect/net/NetAddress"
import * as Option from "effect/Option"
import type * as Predicate from "effect/Predicate"
import * as Version from "../protocol/Version.ts"
import * as InvalidConfig from "../server/internal/InvalidConfig.ts"

/**
 * Which A2A protocol binding an interface speaks (card `protocolBinding`, spec 5.3).
 *
 * @since 0.1.0
 * @category models
 */
export type BindingName = "JSONRPC" | "HTTP+JSON" | "GRPC"

/**
 * Settings of the HTTP bindings; every one optional, with the default it names.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpBindingOptions {
  /**
   * Path of the JSON-RPC endpoint (`POST`), or false to not mount JSON-RPC. Default "/".
   */
  readonly jsonRpcPath?: `/${string}` | false | undefined
  /**
   * Base path of the HTTP+JSON/REST routes (`/message:send` etc. below it), or false to not mount REST.
   * Default "/" (the origin root).
   */
  readonly restPath?: `/${string}` | false | undefined
  /** Where the public agent card is served. Default "/.well-known/agent-card.json" (spec 8.2). */
  readonly cardPath?: `/${string}` | false | undefined
  /** The card lists this binding first (the preferred interface, spec 8.3.1). Default "JSONRPC". */
  readonly preferredBinding?: BindingName | undefined
  /**
   * The port of a gRPC server (effect-a2a/grpc) serving this agent beside these routes: the card then lists a 1.0
   * `GRPC` interface at `<host of the card's origin>:<grpcPort>`, after the HTTP ones unless preferredBinding is
   * "GRPC". Default: none (no gRPC interface).
   */
  readonly grpcPort?: number | undefined
  /** The gRPC server speaks TLS: its interface is listed as `https://<host>:<grpcPort>`. Default false. */
  readonly grpcTls?: boolean | undefined
  /**
   * Public origin (e.g. "https://agent.example.com") used in the card's interface URLs instead of the one
   * derived from each request. Set it when a proxy rewrites the Host header.
   */
  readonly publicUrl?: string | undefined
  /**
   * Proxies whose X-Forwarded-For/-Host/-Proto are believed (their own address must match). When unset,
   * forwarding headers are ignored and the URL comes from the Host header of the request.
   */
  readonly trustedProxies?: ReadonlyArray<IpNetwork.IpNetwork> | Predicate.Predicate<NetAddress.IpAddress> | undefined
  /** Maximum request body size in bytes; larger bodies get 413. Default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
  /**
   * Deepest nesting of objects and arrays a request body may have; deeper bodies are invalid requests (-32600,
   * REST 400). Default 100, the limit of protobuf's JSON parsers.
   */
  readonly maxJsonDepth?: number | undefined
  /** Interval of SSE keep-alive comments; zero disables them. Default 15 seconds. */
  readonly keepAliveInterval?: Duration.Input | undefined
  /**
   * How long a streaming operation may take to produce its first event before the SSE response is
   * committed anyway. Failures inside this window are answered as plain error responses. Default 1 second.
   */
  readonly firstEventWindow?: Duration.Input | undefined
  /** `Cache-Control: max-age` of the public agent card (spec 8.6.1). Default 300 seconds. */
  readonly cardMaxAge?: Duration.Input | undefined
  /** Also serve the REST routes below a `/{tenant}` path segment (spec 11.3, proto bindings). Default true. */
  readonly tenantPaths?: boolean | undefined
  /**
   * Protocol versions served (`Major.Minor`): "1.0", and those of the editions in context (HttpCallContext.HttpEditions:
   * A2A 0.3 with `A2A03.layer`, which also serves requests without A2A-Version, spec 3.6.2; A2A 0.1 with
   * `A2A01.layer`). Default: 1.0 and every edition in context. ["1.0"] turns the others off, and then a call without
   * A2A-Version is refused with VersionNotSupported (the card is then the 1.0 card for all); ["1.0", "0.3"] turns
   * 0.1 off (its methods are then unknown again).
   */
  readonly versions?: ReadonlyArray<string> | undefined
  /**
   * Write event streams straight to Node's response instead of through the platform's response writer: an open
   * stream then costs less memory, but response middleware sees a stand-in (200, `text/event-stream`, no body)
   * and cannot change the stream's headers. Only HTTP/1 requests on Node are written so. Default false;
   * `A2AHttp.serve` turns it on (it installs no response middleware).
   */
  readonly directStreams?: boolean | undefined
}

/**
 * The options with every default applied.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResolvedOptions {
  readonly jsonRpcPath: `/${string}` | undefined
  readonly restPath: `/${string}` | undefined
  readonly cardPath: `/${string}` | undefined
  readonly preferredBinding: BindingName
  readonly grpcPort: number | undefined
  readonly grpcTls: boolean
  readonly publicUrl: string | undefined
  readonly trustedProxies: HttpBindingOptions["trustedProxies"]
  readonly maxBodyBytes: number
  readonly maxJsonDepth: number
  readonly keepAliveInterval: Duration.Duration
  readonly firstEventWindow: Duration.Duration
  readonly cardMaxAge: Duration.Duration
  readonly tenantPaths: boolean
  /** Undefined: 1.0 and every edition in context. */
  readonly versions: ReadonlyArray<string> | undefined
  readonly directStreams: boolean
}

/**
 * The options as the bindings serve them: `versions` the ones actually served.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServedOptions extends ResolvedOptions {
  readonly versions: ReadonlyArray<string>
}

/**
 * The largest request body accepted unless `maxBodyBytes` says otherwise: 1 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024

/**
 * The deepest nesting a request body may have unless `maxJsonDepth` says otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_JSON_DEPTH = 100

const normalizePath = (path: `/${string}`): `/${string}` =>
  path.length > 1 && path.endsWith("/") ? (path.replace(/\/+$/, "") || "/") as `/${string}` : path

/**
 * The options with every default applied.
 *
 * @since 0.1.0
 * @category utils
 */
export const resolve = (options: HttpBindingOptions = {}): ResolvedOptions => {
  const publicUrl = options.publicUrl?.replace(/\/+$/, "")
  return {
    jsonRpcPath: options.jsonRpcPath === false ? undefined : normalizePath(options.jsonRpcPath ?? "/"),
    restPath: options.restPath === false ? undefined : normalizePath(options.restPath ?? "/"),
    cardPath: options.cardPath === false ? undefined : (options.cardPath ?? "/.well-known/agent-card.json"),
    preferredBinding: options.preferredBinding ?? "JSONRPC",
    grpcPort: options.grpcPort,
    grpcTls: options.grpcTls ?? false,
    publicUrl: publicUrl === "" ? undefined : publicUrl,
    trustedProxies: options.trustedProxies,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
    keepAliveInterval: Duration.fromInputUnsafe(options.keepAliveInterval ?? Duration.seconds(15)),
    firstEventWindow: Duration.fromInputUnsafe(options.firstEventWindow ?? Duration.seconds(1)),
    cardMaxAge: Duration.fromInputUnsafe(options.cardMaxAge ?? Duration.seconds(300)),
    tenantPaths: options.tenantPaths ?? true,
    versions: options.versions,
    directStreams: options.directStreams ?? false
  }
}

/**
 * A configuration error with a message of ours.
 *
 * @since 0.1.0
 * @category config
 */
export const invalidConfig: (message: string) => Config.ConfigError = (message) => InvalidConfig.invalidConfig(message)

const path = (name: string) =>
  Config.String(name).pipe(
    Config.mapEffect((s) =>
      s.startsWith("/")
        ? Effect.succeed(s as `/${string}`)
        : Effect.fail(invalidConfig(`${name} must start with "/"`))
    ),
    Config.option
  )

/**
 * Binding options from the environment, each optional (the defaults above apply):
 * - `A2A_PREFIX`: mounts JSON-RPC and REST under one path (e.g. "/a2a")
 * - `A2A_JSONRPC_PATH`, `A2A_REST_PATH`: each binding's own path (win over A2A_PREFIX)
 * - `A2A_PUBLIC_URL`: public origin for the card's URLs
 * - `A2A_TRUSTED_PROXIES`: comma-separated CIDRs whose X-Forwarded-* headers are believed
 * - `A2A_MAX_BODY_BYTES`, `A2A_MAX_JSON_DEPTH`, `A2A_SSE_KEEPALIVE` (a duration, e.g. "15 seconds"),
 *   `A2A_CARD_MAX_AGE`
 * - `A2A_PROTOCOL_VERSIONS`: comma-separated versions to serve, e.g. "1.0" to turn 0.3 (and 0.1) off, "1.0,0.3"
 *   to turn 0.1 off (default: 1.0 and every edition provided)
 * - `A2A_GRPC_PORT`: serve gRPC on this port too (the Node server starts it; 0 picks a free port) and list it
 *
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<HttpBindingOptions> = Config.all({
  prefix: path("A2A_PREFIX"),
  jsonRpcPath: path("A2A_JSONRPC_PATH"),
  restPath: path("A2A_REST_PATH"),
  publicUrl: Config.option(Config.String("A2A_PUBLIC_URL")),
  trustedProxies: Config.option(Config.String("A2A_TRUSTED_PROXIES")),
  maxBodyBytes: Config.option(Config.Int("A2A_MAX_BODY_BYTES")),
  maxJsonDepth: Config.option(Config.Int("A2A_MAX_JSON_DEPTH")),
  keepAlive: Config.option(Config.Duration("A2A_SSE_KEEPALIVE")),
  cardMaxAge: Config.option(Config.Duration("A2A_CARD_MAX_AGE")),
  versions: Config.option(Config.String("A2A_PROTOCOL_VERSIONS")),
  grpcPort: Config.option(Config.Int("A2A_GRPC_PORT"))
}).pipe(
  Config.mapEffect((c) => {
    const proxies: Array<IpNetwork.IpNetwork> = []
    if (Option.isSome(c.trustedProxies)) {
      for (const cidr of c.trustedProxies.value.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
        const network = IpNetwork.fromString(cidr)
        if (network._tag === "Failure") {
          return Effect.fail(invalidConfig(`A2A_TRUSTED_PROXIES: invalid network "${cidr}"`))
        }
        proxies.push(network.success)
      }
    }
    let versions: Array<string> | undefined
    if (Option.isSome(c.versions)) {
      versions = []
      for (const raw of c.versions.value.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
        const version = Version.normalize(raw)
        if (version === undefined || raw.trim() === "") {
          return Effect.fail(invalidConfig(`A2A_PROTOCOL_VERSIONS: "${raw}" is not a protocol version`))
        }
        versions.push(version)
      }
      if (versions.length === 0) return Effect.fail(invalidConfig("A2A_PROTOCOL_VERSIONS: no version given"))
    }
    const grpcPort = Option.getOrUndefined(c.grpcPort)
    if (grpcPort !== undefined && (grpcPort < 0 || grpcPort > 65535)) {
      return Effect.fail(invalidConfig(`A2A_GRPC_PORT must be between 0 and 65535, got ${grpcPort}`))
    }
    const prefix = Option.getOrUndefined(c.prefix)
    const options: HttpBindingOptions = {
      jsonRpcPath: Option.getOrUndefined(c.jsonRpcPath) ?? prefix,
      restPath: Option.getOrUndefined(c.restPath) ?? prefix,
      publicUrl: Option.getOrUndefined(c.publicUrl),
      trustedProxies: proxies.length > 0 ? proxies : undefined,
      maxBodyBytes: Option.getOrUndefined(c.maxBodyBytes),
      maxJsonDepth: Option.getOrUndefined(c.maxJsonDepth),
      keepAliveInterval: Option.getOrUndefined(c.keepAlive),
      cardMaxAge: Option.getOrUndefined(c.cardMaxAge),
      versions,
      grpcPort
    }
    return Effect.succeed(options)
  })
)
