/**
 * The agent card for A2A 0.3 clients. A card request is answered in the version it asks for (spec 3.6.2):
 * `A2A-Version` 0.x, or none at all (which is what every 0.3 client sends), gets the hybrid card of
 * v0_3/protocol/AgentCards: the 0.3 fields (`url`, `preferredTransport`, `protocolVersion`,
 * `additionalInterfaces`, 0.3 security schemes, `supportsAuthenticatedExtendedCard`) plus the 1.0
 * `supportedInterfaces`, so a 1.0 client that sent no version still finds its interfaces. `A2A-Version` 1.x
 * (what 1.0 clients send) gets the 1.0 card; so does a value that is not a version at all. Responses vary on
 * `A2A-Version`.
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as v1 from "../../protocol/generated/v1.ts"
import * as Version from "../../protocol/Version.ts"
import * as AgentCards from "../protocol/AgentCards.ts"

const queryOf = (url: string): Record<string, string> => {
  const q = url.indexOf("?")
  return q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)))
}

/** The version (`Major.Minor`) a card request asks for: "0.3" for none, undefined for what is not a version. */
export const requestedVersion = (request: HttpServerRequest.HttpServerRequest): string | undefined =>
  Version.normalize(Version.fromHttp(request.headers, queryOf(request.url)))

/** Whether this card request asks for 0.3 (a 0.x version, or none). */
export const wantsLegacy = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const version = requestedVersion(request)
  return version !== undefined && version.startsWith("0.")
}

/** The card a 0.3 client reads. */
export const render = (card: v1.AgentCard): AgentCards.HybridAgentCard => AgentCards.hybridCard(card)

export const VARY = "A2A-Version"

/** Where A2A 0.2 (and 0.1) clients look for the card. */
export const LEGACY_PATH = "/.well-known/agent.json"
