/**
 * Webhook push notifications on any runtime with `fetch` (Bun, Deno, Cloudflare Workers, Vercel Edge, Node):
 * the same WebhookPushNotifier as on Node (ordering per webhook, retries with backoff, 0.3 payloads for 0.3
 * configs), POSTing through the runtime's `fetch` with redirects not followed.
 *
 * The SSRF guard here cannot pin connections to vetted addresses: `fetch` exposes no lookup hook, so a host name
 * that resolves to a private address, or re-resolves to one after validation (DNS rebinding), is not caught at
 * delivery. What it still refuses: URLs that are not http(s), carry credentials, or whose host is an IP literal
 * in a blocked range (loopback, private, link-local, CGNAT, unique-local, metadata, ...) or a `localhost` name,
 * when the config is created and before every POST. Give it a resolver (`dns`, e.g. one over `Deno.resolveDns`)
 * to refuse names that resolve to blocked addresses when a config is created. On Node, `effect-a2a/node`'s
 * `WebhookPush` pins every connection.
 *
 * @example
 * ```ts
 * import { WebPush } from "effect-a2a/web"
 * import { MemoryPushConfigStore } from "effect-a2a/server"
 * import { Layer } from "effect"
 *
 * const push = WebPush.layer({ maxAttempts: 3 }).pipe(Layer.provide(MemoryPushConfigStore.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Dns from "effect/net/Dns"
import * as NetAddress from "effect/net/NetAddress"
import * as WebhookGuard from "../server/push/WebhookGuard.ts"
import * as WebhookPushNotifier from "../server/push/WebhookPushNotifier.ts"
import type { PushConfigStore } from "../server/PushConfigStore.ts"
import type { PushNotifier } from "../server/PushNotifier.ts"

/**
 * What the layer provides: the notifier, its deliveries' status and the guard.
 *
 * @since 0.1.0
 * @category models
 */
export type Services = PushNotifier | WebhookPushNotifier.WebhookDeliveries | WebhookGuard.WebhookGuard

/**
 * The notifier's settings and the guard's allowlist.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends WebhookPushNotifier.WebhookOptions {
  /** Hosts and ranges allowed despite the guard (see WebhookGuard.parseAllowlist). */
  readonly allowlist?: WebhookGuard.Allowlist | undefined
  /** A resolver for the config-time check; default none (see above). */
  readonly dns?: Layer.Layer<Dns.Dns> | undefined
}

const loopback = [NetAddress.ipFromStringUnsafe("127.0.0.1"), NetAddress.ipFromStringUnsafe("::1")]

/**
 * The resolver of a runtime that has none: `localhost` and its subdomains are loopback (RFC 6761, 6.3), and every
 * other name is unknown ("Unsupported", which the guard lets through to the delivery-time checks).
 *
 * @since 0.1.0
 * @category layers
 */
export const localNamesOnly: Layer.Layer<Dns.Dns> = Layer.succeed(
  Dns.Dns,
  Dns.make({
    lookup: (host) =>
      host === "localhost" || host.endsWith(".localhost")
        ? Effect.succeed(loopback)
        : Effect.fail(new Dns.DnsError({ reason: "Unsupported", method: "lookup", hostname: host }))
  })
)

/**
 * POSTs through the global `fetch`, answering redirects as they are (never following them).
 *
 * @since 0.1.0
 * @category layers
 */
export const fetchDeliveryClient: Layer.Layer<WebhookPushNotifier.DeliveryClient> = Layer.effect(
  WebhookPushNotifier.DeliveryClient,
  HttpClient.HttpClient.useSync((client) => client)
).pipe(
  Layer.provide(FetchHttpClient.layer),
  Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" }))
)

/**
 * The webhook PushNotifier over `fetch`, its deliveries and the guard, over the PushConfigStore given to it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Services, never, PushConfigStore> =>
  WebhookPushNotifier.layer(options).pipe(
    Layer.provide(fetchDeliveryClient),
    Layer.provideMerge(WebhookGuard.layer({ allowlist: options.allowlist })),
    Layer.provide(options.dns ?? localNamesOnly)
  )
