/**
 * The agent card for A2A 0.1 (and 0.2) clients, served at `/.well-known/agent.json`, where they look for it (spec
 * 0.1 section 5.3, spec 0.2 likewise; 0.3 moved it to `agent-card.json`). It is the hybrid card 0.3 clients read
 * (which holds every field 0.2 defines) plus 0.1's `authentication`: the names of the schemes the card's security
 * schemes use (`Bearer`, `Basic`, `ApiKey`, `OAuth2`, `OpenIdConnect`, `mTLS`). At the card path, a request that
 * asks for `A2A-Version: 0.1` gets it when 0.3 is off (0.3's hybrid card answers every 0.x version otherwise).
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as v1 from "../../protocol/generated/v1.ts"
import type * as AgentCards from "../../v0_3/protocol/AgentCards.ts"
import * as V03Card from "../../v0_3/server/V03Card.ts"
import type * as V01 from "../protocol/Schemas.ts"
import { VERSION } from "./V01MethodTable.ts"

export const PATH = V03Card.LEGACY_PATH

/** Whether a card request at the card path asks for 0.1. */
export const wants = (request: HttpServerRequest.HttpServerRequest): boolean =>
  V03Card.requestedVersion(request) === VERSION

const schemeName = (scheme: v1.SecurityScheme): string => {
  if ("httpAuthSecurityScheme" in scheme) {
    const name = scheme.httpAuthSecurityScheme.scheme
    return name.charAt(0).toUpperCase() + name.slice(1).toLowerCase()
  }
  if ("apiKeySecurityScheme" in scheme) return "ApiKey"
  if ("oauth2SecurityScheme" in scheme) return "OAuth2"
  if ("openIdConnectSecurityScheme" in scheme) return "OpenIdConnect"
  return "mTLS"
}

/** The card 0.1 and 0.2 clients read. */
export const render = (
  card: v1.AgentCard
): AgentCards.HybridAgentCard & { readonly authentication?: V01.AgentCard["authentication"] } => {
  const schemes = [...new Set(Object.values(card.securitySchemes ?? {}).map(schemeName))]
  return { ...V03Card.render(card), ...(schemes.length > 0 ? { authentication: { schemes } } : {}) }
}

export const VARY = V03Card.VARY
