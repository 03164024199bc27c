/**
 * Webhook push notifications in one layer, configured from the environment: the WebhookGuard
 * (`A2A_WEBHOOK_ALLOWLIST`) over the system resolver, and the WebhookPushNotifier (`A2A_WEBHOOK_TIMEOUT`,
 * `A2A_WEBHOOK_MAX_ATTEMPTS`, `A2A_WEBHOOK_RETRY_BASE_DELAY`, `A2A_WEBHOOK_RETRY_MAX_DELAY`). Needs the
 * PushConfigStore; also announces the tasks a SQL store's restart recovery failed (RecoveredTasks), if any.
 *
 * Pair it with GuardedRequestHandler so refused webhook URLs are rejected when a config is created.
 *
 * @example
 * ```ts
 * import { WebhookPush } from "effect-a2a/node"
 * import { MemoryPushConfigStore } from "effect-a2a/server"
 * import { Layer } from "effect"
 *
 * // webhook delivery (SSRF guard, retries) over the push configs in memory
 * const push = WebhookPush.layer({ maxAttempts: 3 }).pipe(Layer.provide(MemoryPushConfigStore.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as NodeDns from "@effect/platform-node/NodeDns"
import type * as Config from "effect/Config"
import * as Layer from "effect/Layer"
import * as WebhookGuard from "../../server/push/WebhookGuard.ts"
import * as WebhookPushNotifier from "../../server/push/WebhookPushNotifier.ts"
import type { PushConfigStore } from "../../server/PushConfigStore.ts"
import type { PushNotifier } from "../../server/PushNotifier.ts"
import * as PinnedDeliveryClient from "./PinnedDeliveryClient.ts"

/**
 * What the layers provide: the notifier, its deliveries' status and the guard.
 *
 * @since 0.1.0
 * @category models
 */
export type Services = PushNotifier | WebhookPushNotifier.WebhookDeliveries | WebhookGuard.WebhookGuard

/**
 * Webhook push configured from the environment, over the system resolver and Node's HTTP client.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<Services, Config.ConfigError, PushConfigStore> = WebhookPushNotifier.layerConfig
  .pipe(
    Layer.provide(PinnedDeliveryClient.layer),
    Layer.provideMerge(WebhookGuard.layerConfig),
    Layer.provide(NodeDns.layer)
  )

/**
 * The same with explicit settings (tests, embedding).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: WebhookPushNotifier.WebhookOptions & { readonly allowlist?: WebhookGuard.Allowlist | undefined } = {}
): Layer.Layer<Services, never, PushConfigStore> =>
  WebhookPushNotifier.layer(options).pipe(
    Layer.provide(PinnedDeliveryClient.layer),
    Layer.provideMerge(WebhookGuard.layer({ allowlist: options.allowlist })),
    Layer.provide(NodeDns.layer)
  )
