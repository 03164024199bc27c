/**
 * The agent card's `supportedInterfaces` (spec 8.3): exactly the bindings mounted, in preference order, with
 * URLs a client can reach. The origin is the one the client used: the Host header of the request (so a card
 * fetched by name never advertises a loopback IP), X-Forwarded-Host/-Proto only from trusted proxies
 * (applied before this runs), or a configured public URL. The bound address is only a fallback for requests
 * without a usable Host header, and never a wildcard address.
 */
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as NetAddress from "effect/net/NetAddress"
import * as Option from "effect/Option"
import type * as v1 from "../../protocol/generated/v1.ts"
import type { BindingName, ServedOptions } from "../HttpBindingOptions.ts"

export interface PublicInterfaces {
  /** `scheme://host[:port]` as the client sees this server. */
  readonly origin: (request: HttpServerRequest.HttpServerRequest) => string
  /** The interfaces served at an origin, in preference order. */
  readonly forOrigin: (origin: string) => ReadonlyArray<v1.AgentInterface>
}

// Same shape as Effect's forwarded-host check: a DNS name or IP literal with an optional port, nothing else
// (no userinfo, path or list), so a hostile Host header cannot smuggle anything into the card.
const hostShape = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/

export const isValidHost = (host: string): boolean => hostShape.test(host) && URL.canParse(`http://${host}`)

const fallbackHostOf = (address: Option.Option<NetAddress.SocketAddress>): string => {
  if (Option.isNone(address) || !NetAddress.isInetAddress(address.value)) return "localhost"
  const inet = address.value
  if (NetAddress.isUnspecified(inet.address)) return `localhost:${inet.port}`
  const ip = NetAddress.formatIp(inet.address)
  return inet._tag === "InetAddressV6" ? `[${ip}]:${inet.port}` : `${ip}:${inet.port}`
}

const MAX_CACHED_ORIGINS = 256

/** `jsonRpcOnly`: the served versions that have no other binding (A2A 0.1). */
export const make = (
  options: ServedOptions,
  serverAddress: Option.Option<NetAddress.SocketAddress>,
  jsonRpcOnly: ReadonlySet<string> = new Set()
): PublicInterfaces => {
  const fallbackHost = fallbackHostOf(serverAddress)
  const bindings: Array<{ readonly binding: BindingName; readonly path: string }> = []
  if (options.jsonRpcPath !== undefined) bindings.push({ binding: "JSONRPC", path: options.jsonRpcPath })
  // REST URLs are bases that clients append `/message:send` to, so no trailing slash.
  if (options.restPath !== undefined) {
    bindings.push({ binding: "HTTP+JSON", path: options.restPath === "/" ? "" : options.restPath })
  }
  // gRPC's URL is a target, `host:port`, built from the origin's host (see `build`); over TLS `https://host:port`
  if (options.grpcPort !== undefined) bindings.push({ binding: "GRPC", path: "" })
  bindings.sort((a, b) =>
    a.binding === b.binding ? 0 : a.binding === options.preferredBinding ? -1 : b.binding === options.preferredBinding
      ? 1
      : 0
  )
  const cache = new Map<string, ReadonlyArray<v1.AgentInterface>>()
  // Host header -> origin, so the per-request cost is one lookup.
  const origins = new Map<string, string>()
  let lastHost: string | undefined
  let lastScheme: string | undefined
  let lastOrigin = ""
  const grpcTarget = (origin: string) =>
    `${options.grpcTls ? "https://" : ""}${
      URL.canParse(origin) ? new URL(origin).hostname : "localhost"
    }:${options.grpcPort}`
  const build = (origin: string): ReadonlyArray<v1.AgentInterface> =>
    options.versions.flatMap((protocolVersion) =>
      bindings.flatMap(({ binding, path }): ReadonlyArray<v1.AgentInterface> =>
        jsonRpcOnly.has(protocolVersion) && binding !== "JSONRPC"
          ? []
          : binding !== "GRPC"
          ? [{ url: `${origin}${path}`, protocolBinding: binding, protocolVersion }]
          // the gRPC server speaks 1.0 (lf.a2a.v1), and the 1.1 draft when the server turned it on (the same
          // switch that put 1.1 among the versions)
          : protocolVersion === "1.0" || protocolVersion === "1.1"
          ? [{ url: grpcTarget(origin), protocolBinding: binding, protocolVersion }]
          : []
      )
    )
  return {
    origin: (request) => {
      if (options.publicUrl !== undefined) return options.publicUrl
      // A web Request made in code may have no Host header: its URL is absolute then.
      const host = request.headers["host"] ?? /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(request.originalUrl)?.[1] ?? ""
      const url = request.protocol === undefined ? request.originalUrl : ""
      // a plain `http://` URL, as Node's platform writes them, needs no pattern
      const scheme = request.protocol ?? (!url.startsWith("http://") && /^https:/i.test(url) ? "https" : "http")
      // Nearly every request names the host the last one did: no key to build and hash then.
      if (host === lastHost && scheme === lastScheme) return lastOrigin
      const key = `${scheme} ${host}`
      let origin = origins.get(key)
      if (origin === undefined) {
        origin = `${scheme}://${isValidHost(host) ? host : fallbackHost}`
        if (origins.size >= MAX_CACHED_ORIGINS) origins.clear()
        origins.set(key, origin)
      }
      lastHost = host
      lastScheme = scheme
      lastOrigin = origin
      return origin
    },
    forOrigin: (origin) => {
      let interfaces = cache.get(origin)
      if (interfaces === undefined) {
        if (cache.size >= MAX_CACHED_ORIGINS) cache.clear()
        interfaces = build(origin)
        cache.set(origin, interfaces)
      }
      return interfaces
    }
  }
}
