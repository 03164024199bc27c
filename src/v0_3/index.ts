/**
 * effect-a2a for A2A 0.3 peers, in one wing: `A2A03.layer` plugs it into the 1.0 core (server, push and client),
 * and the modules it is made of: the 0.3 <-> 1.0 translation (`Translation`), the server's 0.3 edition and the
 * client's 0.3 transports. Nothing else in the package imports it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { A2AClient } from "effect-a2a/client"
 * import { A2A03 } from "effect-a2a/v0_3"
 *
 * const client = A2AClient.resolve("http://localhost:8080").pipe(Effect.provide(A2A03.layer))
 * ```
 *
 * @since 0.1.0
 */
export * as A2A03 from "./A2A03.ts"
export * as V03JsonRpcTransport from "./client/V03JsonRpcTransport.ts"
export * as V03RestTransport from "./client/V03RestTransport.ts"
export * as Translation from "./protocol/index.ts"
export * as V03MethodTable from "./server/V03MethodTable.ts"
export * as V03Rest from "./server/V03Rest.ts"
