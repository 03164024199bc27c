/**
 * The hook for push notification delivery (spec 3.5.3, 4.3): called with every event persisted for a task,
 * in order. Webhook delivery (timeouts, retries, SSRF guard) is a separate implementation; the default
 * does nothing. Beside it, the payload editions: the bodies webhooks registered over another protocol version
 * (A2A 0.3, 0.1) receive, the seam by which those versions' wings deliver.
 *
 * @example
 * ```ts
 * import { PushNotifier } from "effect-a2a/server"
 * import { Effect, Layer } from "effect"
 *
 * // a notifier of your own: log each event instead of calling webhooks
 * const logging = Layer.succeed(PushNotifier.PushNotifier, {
 *   notify: (event) => Effect.log(`task ${event.taskId}: ${event.task.status.state}`)
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * One persisted event of a task, as the notifier is given it.
 *
 * @since 0.1.0
 * @category Models
 */
export interface PushEvent {
  readonly taskId: string
  /** The event as a StreamResponse, the push payload shape (spec 4.3.3). */
  readonly event: v1.StreamResponse
  /** The task after the event was applied. */
  readonly task: v1.Task
}

/**
 * The hook: `notify` is called with every event persisted for a task, in order.
 *
 * @since 0.1.0
 * @category Services
 */
export class PushNotifier extends Context.Service<PushNotifier, {
  /**
   * Must not fail nor block the task for long: delivery problems are the notifier's to log and retry.
   * Runs after the event is persisted and published.
   */
  readonly notify: (event: PushEvent) => Effect.Effect<void>
}>()("effect-a2a/server/PushNotifier") {}

/**
 * A notifier that delivers nothing (the server's default).
 *
 * @since 0.1.0
 * @category Notifiers
 */
export const noop: PushNotifier["Service"] = { notify: () => Effect.void }

/**
 * `noop` as a layer.
 *
 * @since 0.1.0
 * @category Layers
 */
export const layerNoop: Layer.Layer<PushNotifier> = Layer.succeed(PushNotifier, noop)

// --- Payload editions ---

/**
 * How webhooks registered over another protocol version receive events: `accepts` the version a config recorded,
 * `encode` one event's body for them. A config no edition accepts gets the 1.0 StreamResponse.
 *
 * @since 0.1.0
 * @category Payload editions
 */
export interface WebhookEdition {
  /** Whether this edition serves configs registered over `protocolVersion`. */
  readonly accepts: (protocolVersion: string) => boolean
  readonly contentType: string
  /** One event's webhook body in this edition's shape. */
  readonly encode: (task: v1.Task, event: v1.StreamResponse) => string
}

/**
 * The payload editions a webhook notifier (`WebhookPushNotifier` of `effect-a2a/node`, `WebPush` of
 * `effect-a2a/web`) delivers in: the seam by which `effect-a2a/v0_3` and `effect-a2a/v0_1` send their versions'
 * payloads to the configs registered over them, as `HttpCallContext.HttpEditions` is for their requests. None by
 * default.
 *
 * @since 0.1.0
 * @category Payload editions
 */
export const WebhookEditions = Context.Reference<ReadonlyArray<WebhookEdition>>(
  "effect-a2a/server/PushNotifier/PayloadEditions",
  { defaultValue: () => [] }
)
