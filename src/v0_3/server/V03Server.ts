/**
 * The server side of the 0.3 wing as one layer: 0.3 served beside 1.0 (V03HttpEdition) and 0.3 webhook payloads
 * (V03Push). `A2A03.server` is this layer; a server that wants 0.3 without loading the wing's client side (as
 * `effect-a2a serve` does) imports it from here.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import { HttpEditions } from "../../http/HttpCallContext.ts"
import { WebhookEditions } from "../../server/PushNotifier.ts"
import * as V03HttpEdition from "./V03HttpEdition.ts"
import * as V03Push from "./V03Push.ts"

/**
 * 0.3 served beside 1.0, and 0.3 webhook payloads.
 *
 * @since 0.1.0
 * @category Layers
 */
export const layer: Layer.Layer<never> = Layer.mergeAll(
  Layer.succeed(HttpEditions, [V03HttpEdition.edition]),
  Layer.succeed(WebhookEditions, [V03Push.payloads])
)
