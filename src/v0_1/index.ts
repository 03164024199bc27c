/**
 * effect-a2a for A2A 0.1 peers (and 0.2 ones), in one wing: `A2A01.layer` plugs it, and the 0.3 wing it builds
 * on, into the 1.0 core (server, push and client), and the modules it is made of: the 0.1 wire Schemas and their
 * translation to 1.0 (`V01`), the server's 0.1 methods and the client's 0.1 transport. Nothing else in the package
 * imports it but the CLI.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { A2AClient } from "effect-a2a/client"
 * import { A2A01 } from "effect-a2a/v0_1"
 *
 * const client = A2AClient.resolve("http://localhost:8080/.well-known/agent.json").pipe(Effect.provide(A2A01.layer))
 * ```
 *
 * @since 0.1.0
 */
export * as A2A01 from "./A2A01.ts"
export * as V01ClientEdition from "./client/V01ClientEdition.ts"
export * as V01JsonRpcTransport from "./client/V01JsonRpcTransport.ts"
export * as V01 from "./protocol/index.ts"
export * as V01MethodTable from "./server/V01MethodTable.ts"
