/**
 * A2A 0.3 for the 1.0 core: one layer that plugs every part of the 0.3 wing into its seam. The server then also
 * serves 0.3 (the 0.3 JSON-RPC methods on the same endpoint, the 0.3 REST routes under `/v1`, the hybrid card for
 * requests without `A2A-Version`, 0.3 payloads for webhooks registered over 0.3), and the client also reads 0.3
 * cards and speaks 0.3 to agents that offer no 1.0 interface. Without it everything speaks 1.0 only, and nothing
 * of 0.3 is loaded.
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 * import { A2A03 } from "effect-a2a/v0_3"
 *
 * NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.provide(A2A03.layer),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 */
import * as Layer from "effect/Layer"
import { ClientEditions } from "../client/ClientEdition.ts"
import * as V03ClientEdition from "./client/V03ClientEdition.ts"
import * as V03Server from "./server/V03Server.ts"

/**
 * The server side: 0.3 served beside 1.0, and 0.3 webhook payloads.
 *
 * @since 0.1.0
 * @category layers
 */
export const server: Layer.Layer<never> = V03Server.layer

/**
 * The client side: 0.3 cards and transports.
 *
 * @since 0.1.0
 * @category layers
 */
export const client: Layer.Layer<never> = Layer.succeed(ClientEditions, [V03ClientEdition.edition])

/**
 * Both sides.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = Layer.mergeAll(server, client)
