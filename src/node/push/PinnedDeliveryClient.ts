/**
 * Webhook deliveries over Node's HTTP client, each connection resolved through the WebhookGuard and pinned to
 * the addresses it vetted, so a DNS answer that changes after validation (DNS rebinding) cannot point a delivery
 * into the private network. Node only: runtimes without a lookup hook deliver through `fetch` (effect-a2a/web).
 *
 * @example
 * ```ts
 * import { NodeDns } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { PinnedDeliveryClient, WebhookGuard } from "effect-a2a/node"
 *
 * const client = PinnedDeliveryClient.layer.pipe(Layer.provide(WebhookGuard.layer()), Layer.provide(NodeDns.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { WebhookGuard } from "../../server/push/WebhookGuard.ts"
import { DeliveryClient } from "../../server/push/WebhookPushNotifier.ts"
import * as PinnedLookup from "./PinnedLookup.ts"

/**
 * The DeliveryClient over Node's HTTP client, its connections pinned by the WebhookGuard in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<DeliveryClient, never, WebhookGuard> = Layer.effect(
  DeliveryClient,
  Effect.gen(function*() {
    const lookup = yield* PinnedLookup.make(yield* WebhookGuard)
    const agent = yield* NodeHttpClient.makeAgent({ lookup, keepAlive: true })
    return yield* NodeHttpClient.makeNodeHttp.pipe(Effect.provideService(NodeHttpClient.HttpAgent, agent))
  })
)
