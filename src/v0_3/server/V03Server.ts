/**
 * The server side of the 0.3 wing as one layer: 0.3 served beside 1.0 (V03Edition) and 0.3 webhook payloads
 * (V03Push). `A2A03.server` is this layer; a server that wants 0.3 without loading the wing's client side (as
 * `effect-a2a serve` does) imports it from here.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import { Editions } from "../../server/http/HttpCallContext.ts"
import { PayloadEditions } from "../../server/PushNotifier.ts"
import * as V03Edition from "./V03Edition.ts"
import * as V03Push from "./V03Push.ts"

/**
 * 0.3 served beside 1.0, and 0.3 webhook payloads.
 *
 * @since 0.1.0
 * @category Layers
 */
export const layer: Layer.Layer<never> = Layer.mergeAll(
  Layer.succeed(Editions, [V03Edition.edition]),
  Layer.succeed(PayloadEditions, [V03Push.payloads])
)
