/**
 * An A2AClient that also talks to A2A 0.3 agents: it reads 0.3 agent cards (V03Card) and adds the 0.3
 * JSON-RPC transport to the 1.0 ones, so the card's interface order decides (a 1.0 interface where the agent
 * offers one, else 0.3). The client's API stays 1.0: requests and results are 1.0 values, translated at the
 * transport. Pin a version with `protocolVersions` (["0.3"] or ["1.0"]); spec 3.6.3 advises clients that need
 * 1.0 features to pin 1.0 rather than fall back silently.
 *
 * @example
 * const client = yield* V03Client.resolve("https://agent.example.com")
 * const pinned = yield* V03Client.resolve(url, { protocolVersions: ["0.3"] })
 */
import { Effect, Layer } from "effect"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import type * as v1 from "../../generated/v1.ts"
import * as A2AClient from "../A2AClient.ts"
import type { A2AResolveError } from "../A2AClientError.ts"
import type { TransportFactory } from "../Transport.ts"
import * as V03Card from "./V03Card.ts"
import * as V03JsonRpcTransport from "./V03JsonRpcTransport.ts"
import * as V03RestTransport from "./V03RestTransport.ts"

/** The 1.0 transports, then the 0.3 ones. */
export const transports: ReadonlyArray<TransportFactory> = [
  ...A2AClient.defaultTransports,
  V03JsonRpcTransport.factory,
  V03RestTransport.factory
]

const withTransports = <O extends A2AClient.Options>(options: O): O => ({
  ...options,
  transports: options.transports ?? transports
})

/** A client for a card value of either version (a 0.3 card is translated first). */
export const make = (
  card: v1.AgentCard,
  options: A2AClient.Options & { readonly cardUrl?: string | undefined } = {}
) => A2AClient.make(card, withTransports(options))

/** Fetches the agent's card (1.0 or 0.3), verifies it if asked, and builds a client. */
export const resolve = <E = never>(
  url: string,
  options: A2AClient.ResolveOptions<E> = {}
): Effect.Effect<A2AClient.A2AClientShape, A2AResolveError | E, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const base = yield* HttpClient.HttpClient
    const httpClient = (options.transformClient ?? ((c) => c))(base)
    const fetched = yield* V03Card.fetchCard(httpClient, url, {
      headers: Headers.merge(Headers.fromInput(options.headers ?? {}), Headers.fromInput(options.cardHeaders ?? {})),
      timeout: options.timeout
    })
    if (options.verifyCard !== undefined) yield* options.verifyCard(fetched.card)
    return yield* A2AClient.make(fetched.card, withTransports({ ...options, cardUrl: fetched.url }))
  })

/** The client as a layer, from an agent URL or a card value. */
export const layer = <E = never>(
  source: string | v1.AgentCard,
  options: A2AClient.ResolveOptions<E> = {}
): Layer.Layer<A2AClient.A2AClient, A2AResolveError | E, HttpClient.HttpClient> =>
  Layer.effect(A2AClient.A2AClient, typeof source === "string" ? resolve(source, options) : make(source, options))
