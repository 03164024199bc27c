/**
 * effect-a2a client: `A2AClient` and what it is made of.
 *
 * @example
 * ```ts
 * import { A2AClient, Messages } from "effect-a2a/client"
 * import { Effect, Stream } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* A2AClient.resolve("http://127.0.0.1:8080")
 *   yield* client.sendStreamingMessage({ message: Messages.userText("task write a report") }).pipe(
 *     Stream.runForEach((event) => Effect.log(event))
 *   )
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
export * as A2AClient from "./A2AClient.ts"
export * from "./A2AClientError.ts"
export * as AgentCardResolver from "./AgentCardResolver.ts"
export * as CardVerifier from "./CardVerifier.ts"
export * as ClientEdition from "./ClientEdition.ts"
export * as Credentials from "./Credentials.ts"
export * as Generations from "./Generations.ts"
export * as InterfaceSelection from "./InterfaceSelection.ts"
export * as JsonRpcTransport from "./JsonRpcTransport.ts"
export * as Messages from "./Messages.ts"
export * as OAuth2ClientCredentials from "./OAuth2ClientCredentials.ts"
export * as RestTransport from "./RestTransport.ts"
export * as SseParser from "./SseParser.ts"
export * as Tolerance from "./Tolerance.ts"
export type * from "./Transport.ts"
