/**
 * A2A 0.1 (and 0.2) for the 1.0 core: one layer that plugs the 0.1 wing, and the 0.3 wing it builds on, into
 * their seams. The server then also serves 0.1 clients (`tasks/send`, `tasks/sendSubscribe`, `tasks/get`,
 * `tasks/cancel`, `tasks/pushNotification/set|get`, `tasks/resubscribe` on the JSON-RPC endpoint; the card at
 * `/.well-known/agent.json`; 0.1 payloads for webhooks registered over 0.1) besides 0.3 (and 0.2, whose clients
 * speak 0.3's methods); the client also reads 0.1 cards and speaks 0.1 to agents whose card says 0.1. Provide it
 * instead of `A2A03.layer`. The versions setting turns 0.1 off (`versions: ["1.0", "0.3"]`).
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 * import { A2A01 } from "effect-a2a/v0_1"
 *
 * NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.provide(A2A01.layer),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import { ClientEditions } from "../client/ClientEdition.ts"
import * as V03ClientEdition from "../v0_3/client/V03ClientEdition.ts"
import * as V01ClientEdition from "./client/V01ClientEdition.ts"
import * as V01Server from "./server/V01Server.ts"

/**
 * The server side: 0.3 and 0.1 served beside 1.0, and their webhook payloads.
 *
 * @since 0.1.0
 * @category layers
 */
export const server: Layer.Layer<never> = V01Server.layer

/**
 * The client side: 0.1 and 0.3 cards and transports.
 *
 * @since 0.1.0
 * @category layers
 */
export const client: Layer.Layer<never> = Layer.succeed(ClientEditions, [
  V01ClientEdition.edition,
  V03ClientEdition.edition
])

/**
 * Both sides.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = Layer.mergeAll(server, client)
