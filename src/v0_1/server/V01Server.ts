/**
 * The server side of the 0.1 wing as one layer: 0.3 and 0.1 served beside 1.0, and their webhook payloads. The
 * editions are one list (HttpCallContext.HttpEditions), so this layer names the 0.3 edition too: provide it instead of
 * the 0.3 wing's. `A2A01.server` is this layer; `effect-a2a serve` provides it from here.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import { HttpEditions } from "../../http/HttpCallContext.ts"
import { WebhookEditions } from "../../server/PushNotifier.ts"
import * as V03HttpEdition from "../../v0_3/server/V03HttpEdition.ts"
import * as V03Push from "../../v0_3/server/V03Push.ts"
import * as V01HttpEdition from "./V01HttpEdition.ts"
import * as V01Push from "./V01Push.ts"

/**
 * 0.3 and 0.1 served beside 1.0, and their webhook payloads (0.1's first: 0.3's takes every 0.x version).
 *
 * @since 0.1.0
 * @category Layers
 */
export const layer: Layer.Layer<never> = Layer.mergeAll(
  Layer.succeed(HttpEditions, [V03HttpEdition.edition, V01HttpEdition.edition]),
  Layer.succeed(WebhookEditions, [V01Push.payloads, V03Push.payloads])
)
