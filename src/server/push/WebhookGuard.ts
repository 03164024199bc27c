/**
 * SSRF guard for push-notification webhooks (spec 13.2): a webhook URL is a request the server makes on a
 * client's behalf, so it must not reach the server's own network (loopback, private ranges, link-local,
 * CGNAT, unique-local, cloud metadata endpoints...) unless the operator allowlisted it.
 *
 * Checked twice:
 * - when a config is created: a clear InvalidParams for a URL that is malformed, not http(s), or whose host
 *   is (or resolves to) a blocked address;
 * - at every delivery: the host is resolved again (`resolve`) and the connection is pinned to the vetted
 *   addresses (on Node, PinnedLookup gives them to the HTTP agent), so a DNS answer that changes after validation
 *   (DNS rebinding) cannot redirect a delivery into the private network.
 *
 * @example
 * ```ts
 * import { WebhookGuard } from "effect-a2a/node"
 * import { Result } from "effect"
 *
 * const allowlist = WebhookGuard.parseAllowlist("hooks.internal.example.com,10.1.0.0/16")
 * const guard = WebhookGuard.layer({ allowlist: Result.getOrElse(allowlist, () => WebhookGuard.emptyAllowlist) })
 * ```
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Dns, type DnsError } from "effect/net/Dns"
import * as IpNetwork from "effect/net/IpNetwork"
import * as NetAddress from "effect/net/NetAddress"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidParams } from "../../protocol/A2AError.ts"
import { invalidConfig } from "../internal/InvalidConfig.ts"

// --- address classification ---

interface BlockedRange {
  readonly network: IpNetwork.IpNetwork
  readonly reason: string
}

const range = (cidr: string, reason: string): BlockedRange => ({
  network: IpNetwork.fromStringUnsafe(cidr),
  reason: `${reason} (${cidr})`
})

// Order matters: the first match names the reason, so specific entries come before the ranges holding them.
const blockedV4: ReadonlyArray<BlockedRange> = [
  range("169.254.169.254/32", "cloud metadata endpoint"),
  range("0.0.0.0/8", "unspecified / \"this network\" address"),
  range("10.0.0.0/8", "private address"),
  range("100.64.0.0/10", "carrier-grade NAT (shared) address"),
  range("127.0.0.0/8", "loopback address"),
  range("169.254.0.0/16", "link-local address"),
  range("172.16.0.0/12", "private address"),
  range("192.0.0.0/24", "IETF protocol assignment (reserved)"),
  range("192.0.2.0/24", "documentation address (reserved)"),
  range("192.88.99.0/24", "6to4 relay anycast (reserved)"),
  range("192.168.0.0/16", "private address"),
  range("198.18.0.0/15", "benchmarking address (reserved)"),
  range("198.51.100.0/24", "documentation address (reserved)"),
  range("203.0.113.0/24", "documentation address (reserved)"),
  range("224.0.0.0/4", "multicast address"),
  range("240.0.0.0/4", "reserved address (incl. broadcast)")
]

const blockedV6: ReadonlyArray<BlockedRange> = [
  range("::/128", "unspecified address"),
  range("::1/128", "loopback address"),
  range("fd00:ec2::254/128", "cloud metadata endpoint"),
  range("::/96", "IPv4-compatible address (deprecated)"),
  range("64:ff9b:1::/48", "local-use NAT64 address"),
  range("100::/64", "discard-only address (reserved)"),
  range("2001::/32", "Teredo tunnel address"),
  range("2001:db8::/32", "documentation address (reserved)"),
  range("fc00::/7", "unique-local address"),
  range("fe80::/10", "link-local address"),
  range("fec0::/10", "site-local address (deprecated)"),
  range("ff00::/8", "multicast address")
]

// IPv6 forms that embed an IPv4 address: judge the embedded one (e.g. ::ffff:127.0.0.1 is loopback).
const nat64 = IpNetwork.fromStringUnsafe("64:ff9b::/96")
const sixToFour = IpNetwork.fromStringUnsafe("2002::/16")

const embeddedIpv4 = (address: NetAddress.Ipv6Address): Option.Option<NetAddress.Ipv4Address> => {
  const mapped = NetAddress.fromIpv4Mapped(address)
  if (Option.isSome(mapped)) return mapped
  const bytes = NetAddress.ipv6ToOctets(address)
  if (IpNetwork.contains(nat64, address)) {
    return Option.some(NetAddress.ipv4FromBytesUnsafe(Uint8Array.from(bytes.slice(12, 16))))
  }
  if (IpNetwork.contains(sixToFour, address)) {
    return Option.some(NetAddress.ipv4FromBytesUnsafe(Uint8Array.from(bytes.slice(2, 6))))
  }
  return Option.none()
}

/**
 * Why an address must not receive webhooks, or `undefined` when it is a public unicast address. Covers
 * loopback, private (RFC 1918), link-local, CGNAT, unique-local, cloud metadata, multicast, reserved and
 * documentation ranges, for IPv4 and IPv6, including IPv4 embedded in IPv6 (mapped, NAT64, 6to4).
 *
 * @since 0.1.0
 * @category utils
 */
export const blockedReason = (address: NetAddress.IpAddress): string | undefined => {
  if (NetAddress.isIpv4Address(address)) {
    return blockedV4.find((r) => IpNetwork.contains(r.network, address))?.reason
  }
  const embedded = embeddedIpv4(address)
  if (Option.isSome(embedded)) {
    const reason = blockedReason(embedded.value)
    return reason === undefined ? undefined : `${reason} embedded in ${NetAddress.formatIp(address)}`
  }
  return blockedV6.find((r) => IpNetwork.contains(r.network, address))?.reason
}

// --- allowlist ---

/**
 * Operator-approved exceptions: exact host names (any address they resolve to) and address ranges.
 *
 * @since 0.1.0
 * @category models
 */
export interface Allowlist {
  readonly hosts: ReadonlySet<string>
  readonly networks: ReadonlyArray<IpNetwork.IpNetwork>
}

/**
 * An allowlist that admits nothing beyond public addresses.
 *
 * @since 0.1.0
 * @category constants
 */
export const emptyAllowlist: Allowlist = { hosts: new Set(), networks: [] }

const normalizeHost = (host: string): string => host.toLowerCase().replace(/\.$/, "").replace(/^\[(.*)\]$/, "$1")

const parseEntry = (entry: string): Result.Result<IpNetwork.IpNetwork | string, string> => {
  const value = normalizeHost(entry)
  if (value.includes("/")) {
    return Result.mapError(IpNetwork.fromString(value), () => `"${entry}" is not a valid CIDR range`)
  }
  const ip = NetAddress.ipFromString(value)
  if (Result.isSuccess(ip)) return Result.succeed(IpNetwork.fromAddressUnsafe(ip.success, NetAddress.width(ip.success)))
  if (/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(value)) {
    return Result.succeed(value)
  }
  return Result.fail(`"${entry}" is neither a host name, an IP address nor a CIDR range`)
}

/**
 * Parses a comma-separated allowlist: host names (`hooks.internal`, `localhost`), IP addresses (`127.0.0.1`,
 * `::1`, `[::1]`) and CIDR ranges (`10.1.0.0/16`, `fd00::/8`).
 *
 * @since 0.1.0
 * @category utils
 */
export const parseAllowlist = (raw: string): Result.Result<Allowlist, string> => {
  const entries = raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
  const hosts = new Set<string>()
  const networks: Array<IpNetwork.IpNetwork> = []
  for (const entry of entries) {
    const parsed = parseEntry(entry)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    if (typeof parsed.success === "string") hosts.add(parsed.success)
    else networks.push(parsed.success)
  }
  return Result.succeed({ hosts, networks })
}

// --- the service ---

/**
 * The `code` of the error a connection fails with when the webhook's host is refused at connection time (the
 * Node runner's PinnedLookup sets it; the notifier reads it back as a refusal, not a network failure).
 *
 * @since 0.2.0
 * @category constants
 */
export const BLOCKED_ERROR_CODE = "EA2AWEBHOOKBLOCKED"

/**
 * A delivery refused because the webhook's host is, or resolves to, a blocked address.
 *
 * @since 0.1.0
 * @category errors
 */
export class WebhookBlocked extends Schema.TaggedError<WebhookBlocked>()("WebhookBlocked", {
  message: Schema.String
}) {}

/**
 * The SSRF guard for webhook URLs: checks them when a config is created and resolves them at delivery.
 *
 * @since 0.1.0
 * @category services
 */
export class WebhookGuard extends Context.Service<WebhookGuard, {
  /**
   * Config-time check of a webhook URL (spec 13.2): fails with InvalidParams (field `url`) and a message
   * naming the problem. Resolves the host name; a name that does not exist is refused, a transient DNS failure
   * is let through (the delivery-time check still applies).
   */
  readonly validate: (url: string, field?: string) => Effect.Effect<URL, InvalidParams>
  /** Delivery-time check of a URL whose host is an IP literal (the agent's `lookup` is not used for those). */
  readonly checkLiteral: (url: URL) => Effect.Effect<void, WebhookBlocked>
  /**
   * Resolves a host name to addresses that may all be contacted, or fails: what a runtime's connections are
   * pinned to (on Node, PinnedLookup).
   */
  readonly resolve: (host: string) => Effect.Effect<Arr.NonEmptyReadonlyArray<NetAddress.IpAddress>, WebhookBlocked>
}>()("effect-a2a/server/push/WebhookGuard") {}

/**
 * The guard's settings: what is allowlisted.
 *
 * @since 0.1.0
 * @category models
 */
export interface WebhookGuardOptions {
  readonly allowlist?: Allowlist | undefined
}

const invalidUrl = (field: string, description: string) =>
  new InvalidParams({
    message: `Invalid push notification URL: ${description}`,
    fieldViolations: [{ field, description }]
  })

/**
 * Builds the guard over the `Dns` service (the system resolver in production, a fake one in tests).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: WebhookGuardOptions = {}) {
  const dns = yield* Dns
  const allowlist = options.allowlist ?? emptyAllowlist

  const allowedAddress = (address: NetAddress.IpAddress): string | undefined => {
    const reason = blockedReason(address)
    if (reason === undefined) return undefined
    return allowlist.networks.some((n) => IpNetwork.contains(n, address)) ? undefined : reason
  }

  const literal = (host: string): Option.Option<NetAddress.IpAddress> =>
    Result.getSuccess(NetAddress.ipFromString(normalizeHost(host)))

  const refusal = (host: string, address: NetAddress.IpAddress, reason: string) =>
    `host ${host} ${
      literal(host).pipe(Option.isSome) ? "is" : `resolves to ${NetAddress.formatIp(address)}, which is`
    } a ${reason}; webhooks to internal networks are refused (allow it with A2A_WEBHOOK_ALLOWLIST)`

  const check = (host: string, addresses: ReadonlyArray<NetAddress.IpAddress>): string | undefined => {
    if (allowlist.hosts.has(normalizeHost(host))) return undefined
    for (const address of addresses) {
      const reason = allowedAddress(address)
      if (reason !== undefined) return refusal(host, address, reason)
    }
    return undefined
  }

  const lookupAll = (host: string): Effect.Effect<Arr.NonEmptyReadonlyArray<NetAddress.IpAddress>, DnsError> =>
    dns.lookup(host)

  const resolve = (host: string) => {
    const name = normalizeHost(host)
    const ip = literal(name)
    const addresses = Option.isSome(ip)
      ? Effect.succeed(Arr.of(ip.value) as Arr.NonEmptyReadonlyArray<NetAddress.IpAddress>)
      : lookupAll(name).pipe(
        Effect.mapError((e) => new WebhookBlocked({ message: `cannot resolve webhook host ${name}: ${e.message}` }))
      )
    return Effect.flatMap(addresses, (all) => {
      const refused = check(name, all)
      return refused === undefined ? Effect.succeed(all) : Effect.fail(new WebhookBlocked({ message: refused }))
    })
  }

  const validate = (raw: string, field = "url"): Effect.Effect<URL, InvalidParams> =>
    Effect.gen(function*() {
      const invalid = (description: string) => invalidUrl(field, description)
      if (!URL.canParse(raw)) return yield* invalid(`"${raw}" is not an absolute URL`)
      const url = new URL(raw)
      if (url.protocol !== "https:" && url.protocol !== "http:") {
        return yield* invalid(`scheme ${url.protocol.replace(/:$/, "")} is not allowed; use https (or http)`)
      }
      if (url.username !== "" || url.password !== "") {
        return yield* invalid("credentials in the URL are not allowed; use the authentication field")
      }
      const host = normalizeHost(url.hostname)
      if (host.length === 0) return yield* invalid("the URL has no host")
      if (allowlist.hosts.has(host)) return url
      const ip = literal(host)
      if (Option.isSome(ip)) {
        const refused = check(host, [ip.value])
        return refused === undefined ? url : yield* invalid(refused)
      }
      const resolved = yield* Effect.result(lookupAll(host))
      if (Result.isFailure(resolved)) {
        const error = resolved.failure
        if (error.reason === "NotFound" || error.reason === "BadName") {
          return yield* invalid(`host ${host} does not resolve (${error.reason})`)
        }
        // Transient: accept now, the delivery-time check decides.
        return url
      }
      const refused = check(host, resolved.success)
      return refused === undefined ? url : yield* invalid(refused)
    })

  const checkLiteral = (url: URL): Effect.Effect<void, WebhookBlocked> => {
    const host = normalizeHost(url.hostname)
    const ip = literal(host)
    if (Option.isNone(ip)) return Effect.void
    const refused = check(host, [ip.value])
    return refused === undefined ? Effect.void : Effect.fail(new WebhookBlocked({ message: refused }))
  }

  return WebhookGuard.of({ validate, checkLiteral, resolve })
})

/**
 * The guard over the `Dns` service in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: WebhookGuardOptions = {}): Layer.Layer<WebhookGuard, never, Dns> =>
  Layer.effect(WebhookGuard, make(options))

/**
 * `A2A_WEBHOOK_ALLOWLIST`: comma-separated host names, IP addresses and CIDR ranges (default: none).
 *
 * @since 0.1.0
 * @category config
 */
export const allowlistConfig: Config.Config<Allowlist> = Config.String("A2A_WEBHOOK_ALLOWLIST").pipe(
  Config.withDefault(""),
  Config.mapEffect((raw) =>
    Result.match(parseAllowlist(raw), {
      onFailure: (message) => Effect.fail(invalidConfig(`A2A_WEBHOOK_ALLOWLIST: ${message}`, raw)),
      onSuccess: Effect.succeed
    })
  )
)

/**
 * The guard, its allowlist read from `A2A_WEBHOOK_ALLOWLIST`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<WebhookGuard, Config.ConfigError, Dns> = Layer.effect(
  WebhookGuard,
  Effect.gen(function*() {
    const allowlist = yield* allowlistConfig
    return yield* make({ allowlist })
  })
)
