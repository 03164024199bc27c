/**
 * The seam for protocol versions the client speaks beside A2A 1.0: an edition reads its version's agent card into
 * the 1.0 model and brings the transports for its interfaces, so the client itself only knows 1.0. A2A 0.3 is the
 * edition of `effect-a2a/v0_3` (`A2A03.layer`), A2A 0.1 that of `effect-a2a/v0_1` (`A2A01.layer`, with 0.3's);
 * without them the client speaks 1.0 only.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { A2AClient } from "effect-a2a/client"
 * import { A2A03 } from "effect-a2a/v0_3"
 *
 * // a client that also talks to agents that only speak A2A 0.3
 * const client = A2AClient.resolve("http://localhost:8080").pipe(Effect.provide(A2A03.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as v1 from "../protocol/generated/v1.ts"
import type { A2AResponseError } from "./A2AClientError.ts"
import type * as Http from "./internal/HttpExchange.ts"
import type * as Tolerance from "./Tolerance.ts"
import type { TransportFactory } from "./Transport.ts"

/**
 * What a protocol version other than 1.0 adds to the client: its transports, and how to read its cards.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientEdition {
  /** Transports for its card interfaces (tried after the 1.0 ones). */
  readonly transports: ReadonlyArray<TransportFactory>
  /** Its version's card as a 1.0 card; None when the JSON is not one. */
  readonly readCard: (json: unknown) => Option.Option<v1.AgentCard>
  /** Whether the JSON claims to be its version's card, so a bad one is reported against its schema. */
  readonly claimsCard: (json: unknown) => boolean
  /** Decodes such a card, or says what is wrong with it. */
  readonly decodeCard: (json: unknown, r: Http.Received, body: string) => Effect.Effect<v1.AgentCard, A2AResponseError>
  /**
   * A card of its version that agents in the wild serve with a known fault, with the fault repaired and the repairs
   * named (Tolerance); undefined when it has none of them. Tried when the card does not decode as it is, unless the
   * client is strict.
   *
   * @since 0.2.0
   */
  readonly repairCard?:
    | ((json: unknown) => { readonly json: unknown; readonly repairs: ReadonlyArray<Tolerance.Repair> } | undefined)
    | undefined
}

/**
 * The editions the client speaks beside 1.0; none by default.
 *
 * @since 0.1.0
 * @category services
 */
export const ClientEditions = Context.Reference<ReadonlyArray<ClientEdition>>("effect-a2a/client/ClientEditions", {
  defaultValue: () => []
})
