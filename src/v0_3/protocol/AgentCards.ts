/**
 * A2A 0.3 <-> 1.0: agent cards and security schemes (spec 1.0 Appendix A.2.2, spec 0.3 section 5).
 *
 * Interfaces: 0.3 names one main endpoint (`url` + `preferredTransport`, default JSONRPC) plus
 * `additionalInterfaces` `{url, transport}`, and one card-wide `protocolVersion`; 1.0 lists
 * `supportedInterfaces` `{url, protocolBinding, protocolVersion}` in preference order.
 * - 1.0 -> 0.3: the interfaces whose version is 0.x become the 0.3 endpoints (the first is the main one; all of
 *   them are listed in `additionalInterfaces`, as 0.3 recommends, each once: one URL and binding serving 0.3 and
 *   0.1 is one 0.3 endpoint). A card without a 0.x interface has nothing a
 *   0.3 client can call: `fromV1AgentCard` then advertises its interfaces as they are.
 * - 0.3 -> 1.0: the main endpoint first, then the additional ones that differ from it, each stamped with the
 *   card's `protocolVersion` (`Major.Minor`, "0.3" when absent).
 * - The served card for a 0.3 client is a hybrid (`hybridCard`): the 0.3 card plus the 1.0 `supportedInterfaces`,
 *   so a 1.0 client that gets it (no `A2A-Version` sent) still finds every interface.
 *
 * Fields:
 * - `supportsAuthenticatedExtendedCard` (0.3, top level) <-> `capabilities.extendedAgentCard` (1.0).
 * - `security` / skill `security` (0.3 `{ scheme: scopes[] }[]`) <-> `securityRequirements` (1.0 `{ schemes:
 *   { scheme: { list } } }[]`).
 * - `capabilities.stateTransitionHistory` (0.3 only): dropped.
 * - Security schemes: 0.3 discriminates by `type`, 1.0 by member name. An API key `location` other than
 *   query/header/cookie is sent to 0.3 as `header` (OpenAPI's default).
 * - OAuth flows: 1.0 carries exactly one flow, 0.3 any subset. 1.0 `deviceCode` (and `pkceRequired`) has no
 *   0.3 form and is dropped, leaving `flows: {}`; the deprecated implicit / password flows get `""` / `{}` for the
 *   fields 0.3 requires. From 0.3, the first of authorizationCode, clientCredentials, password, implicit is
 *   kept and the others are dropped; a scheme with no flow at all is dropped.
 * - An extension without `uri` (optional in 1.0, required in 0.3) is not advertised to 0.3 clients.
 * - Absent and empty maps / lists are equivalent (proto3): `securityRequirements` always come back with
 *   `schemes`, and scope lists with `list`.
 */
import type * as v0_3 from "../../protocol/generated/v0_3.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import * as OpenApiSecurity from "../../protocol/internal/OpenApiSecurity.ts"
import { optional } from "./Messages.ts"

/**
 * The 0.3 card's `protocolVersion`: the full version, as the 0.3 schema's default ("0.3.0") and 0.3 peers have it
 * (only 1.0 cards give `Major.Minor`, spec 1.0 section 3.6).
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_VERSION = "0.3.0"

const majorMinor = (version: string): string => {
  const [major = "", minor = "0"] = version.trim().replace(/^v/i, "").split(".")
  return major === "" ? "0.3" : `${major}.${minor}`
}

/**
 * Whether an interface version is a pre-1.0 (0.x) one, i.e. served with 0.3 shapes.
 *
 * @since 0.1.0
 * @category guards
 */
export const isLegacyVersion = (version: string): boolean => majorMinor(version).startsWith("0.")

const nonEmpty = <A>(list: ReadonlyArray<A> | undefined): ReadonlyArray<A> | undefined =>
  list === undefined || list.length === 0 ? undefined : list

// --- Security requirements ---

/**
 * Translates an A2A 0.3 `SecurityRequirement` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1SecurityRequirement = (
  requirement: { readonly [scheme: string]: ReadonlyArray<string> }
): v1.SecurityRequirement => ({
  schemes: Object.fromEntries(Object.entries(requirement).map(([scheme, list]) => [scheme, { list }]))
})

/**
 * 1.0 requirements in the 0.3 (OpenAPI) form (OpenApiSecurity).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1SecurityRequirement = OpenApiSecurity.fromV1Requirement

// --- Security schemes ---

const toV1Flows = (flows: v0_3.OAuthFlows): v1.OAuthFlows | undefined => {
  if (flows.authorizationCode !== undefined) {
    const f = flows.authorizationCode
    return {
      authorizationCode: {
        authorizationUrl: f.authorizationUrl,
        tokenUrl: f.tokenUrl,
        scopes: f.scopes,
        ...optional("refreshUrl", f.refreshUrl)
      }
    }
  }
  if (flows.clientCredentials !== undefined) {
    const f = flows.clientCredentials
    return { clientCredentials: { tokenUrl: f.tokenUrl, scopes: f.scopes, ...optional("refreshUrl", f.refreshUrl) } }
  }
  if (flows.password !== undefined) {
    const f = flows.password
    return { password: { tokenUrl: f.tokenUrl, scopes: f.scopes, ...optional("refreshUrl", f.refreshUrl) } }
  }
  if (flows.implicit !== undefined) {
    const f = flows.implicit
    return {
      implicit: { authorizationUrl: f.authorizationUrl, scopes: f.scopes, ...optional("refreshUrl", f.refreshUrl) }
    }
  }
  return undefined
}

/**
 * A 1.0 scheme in the 0.3 form, which is OpenAPI's Security Scheme Object (OpenApiSecurity).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1SecurityScheme: (scheme: v1.SecurityScheme) => v0_3.SecurityScheme = OpenApiSecurity.fromV1

/**
 * `undefined` for an OAuth 2.0 scheme without any flow, which 1.0 cannot express.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1SecurityScheme = (scheme: v0_3.SecurityScheme): v1.SecurityScheme | undefined => {
  switch (scheme.type) {
    case "apiKey":
      return {
        apiKeySecurityScheme: { location: scheme.in, name: scheme.name, ...optional("description", scheme.description) }
      }
    case "http":
      return {
        httpAuthSecurityScheme: {
          scheme: scheme.scheme,
          ...optional("bearerFormat", scheme.bearerFormat),
          ...optional("description", scheme.description)
        }
      }
    case "oauth2": {
      const flows = toV1Flows(scheme.flows)
      return flows === undefined ? undefined : {
        oauth2SecurityScheme: {
          flows,
          ...optional("oauth2MetadataUrl", scheme.oauth2MetadataUrl),
          ...optional("description", scheme.description)
        }
      }
    }
    case "openIdConnect":
      return {
        openIdConnectSecurityScheme: {
          openIdConnectUrl: scheme.openIdConnectUrl,
          ...optional("description", scheme.description)
        }
      }
    case "mutualTLS":
      return { mtlsSecurityScheme: { ...optional("description", scheme.description) } }
  }
}

// --- Card parts ---

const fromV1Extension = (extension: v1.AgentExtension): ReadonlyArray<v0_3.AgentExtension> =>
  extension.uri === undefined ? [] : [{
    uri: extension.uri,
    ...optional("description", extension.description),
    ...optional("required", extension.required),
    ...optional("params", extension.params)
  }]

const toV1Extension = (extension: v0_3.AgentExtension): v1.AgentExtension => ({
  uri: extension.uri,
  ...optional("description", extension.description),
  ...optional("required", extension.required),
  ...optional("params", extension.params)
})

const fromV1Skill = (skill: v1.AgentSkill): v0_3.AgentSkill => ({
  id: skill.id,
  name: skill.name,
  description: skill.description,
  tags: skill.tags,
  ...optional("examples", skill.examples),
  ...optional("inputModes", skill.inputModes),
  ...optional("outputModes", skill.outputModes),
  ...optional("security", skill.securityRequirements?.map(fromV1SecurityRequirement))
})

const toV1Skill = (skill: v0_3.AgentSkill): v1.AgentSkill => ({
  id: skill.id,
  name: skill.name,
  description: skill.description,
  tags: skill.tags,
  ...optional("examples", skill.examples),
  ...optional("inputModes", skill.inputModes),
  ...optional("outputModes", skill.outputModes),
  ...optional("securityRequirements", skill.security?.map(toV1SecurityRequirement))
})

const mapValues = <A, B>(
  record: { readonly [key: string]: A },
  f: (a: A) => B | undefined
): { readonly [key: string]: B } => {
  const out: Record<string, B> = {}
  for (const [key, value] of Object.entries(record)) {
    const mapped = f(value)
    if (mapped !== undefined) out[key] = mapped
  }
  return out
}

// --- AgentCard ---

/**
 * A 0.3 card that also carries the 1.0 interface list (what a 0.3 request for the card is served).
 *
 * @since 0.1.0
 * @category models
 */
export type HybridAgentCard = v0_3.AgentCard & {
  readonly supportedInterfaces?: ReadonlyArray<v1.AgentInterface>
}

/**
 * The 0.3 endpoints of interfaces, each once: 0.3 has no per-interface version, so one URL and binding serving
 * several 0.x versions (0.3 and 0.1 on one JSON-RPC URL) is one endpoint.
 */
const distinctEndpoints = (interfaces: ReadonlyArray<v1.AgentInterface>): Array<v0_3.AgentInterface> => {
  const seen = new Set<string>()
  return interfaces.flatMap((i) => {
    const key = `${i.protocolBinding.toUpperCase()} ${i.url}`
    if (seen.has(key)) return []
    seen.add(key)
    return [{ url: i.url, transport: i.protocolBinding }]
  })
}

/**
 * Translates an A2A 1.0 `AgentCard` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1AgentCard = (card: v1.AgentCard): v0_3.AgentCard => {
  const legacy = card.supportedInterfaces.filter((i) => isLegacyVersion(i.protocolVersion))
  const endpoints = legacy.length > 0 ? legacy : card.supportedInterfaces
  const main = endpoints[0]
  const capabilities = card.capabilities
  const extensions = capabilities.extensions?.flatMap(fromV1Extension)
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    protocolVersion: PROTOCOL_VERSION,
    url: main?.url ?? "",
    preferredTransport: main?.protocolBinding ?? "JSONRPC",
    ...optional("additionalInterfaces", nonEmpty(distinctEndpoints(endpoints))),
    capabilities: {
      ...optional("streaming", capabilities.streaming),
      ...optional("pushNotifications", capabilities.pushNotifications),
      ...optional("extensions", extensions)
    },
    ...optional("supportsAuthenticatedExtendedCard", capabilities.extendedAgentCard),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(fromV1Skill),
    ...optional("provider", card.provider),
    ...optional("documentationUrl", card.documentationUrl),
    ...optional("iconUrl", card.iconUrl),
    ...optional(
      "securitySchemes",
      card.securitySchemes === undefined ? undefined : mapValues(card.securitySchemes, fromV1SecurityScheme)
    ),
    ...optional("security", card.securityRequirements?.map(fromV1SecurityRequirement)),
    ...optional("signatures", card.signatures)
  }
}

/**
 * The card served to 0.3 clients: the 0.3 fields, plus every 1.0 interface for clients that read those.
 *
 * @since 0.1.0
 * @category utils
 */
export const hybridCard = (card: v1.AgentCard): HybridAgentCard => ({
  ...fromV1AgentCard(card),
  supportedInterfaces: card.supportedInterfaces
})

/**
 * Translates an A2A 0.3 `AgentCard` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1AgentCard = (card: v0_3.AgentCard): v1.AgentCard => {
  const protocolVersion = majorMinor(card.protocolVersion)
  const main: v1.AgentInterface = {
    url: card.url,
    protocolBinding: card.preferredTransport ?? "JSONRPC",
    protocolVersion
  }
  const additional = (card.additionalInterfaces ?? [])
    .filter((i) => !(i.url === main.url && i.transport.toUpperCase() === main.protocolBinding.toUpperCase()))
    .map((i): v1.AgentInterface => ({ url: i.url, protocolBinding: i.transport, protocolVersion }))
  const capabilities = card.capabilities
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    supportedInterfaces: [main, ...additional],
    capabilities: {
      ...optional("streaming", capabilities.streaming),
      ...optional("pushNotifications", capabilities.pushNotifications),
      ...optional("extensions", capabilities.extensions?.map(toV1Extension)),
      ...optional("extendedAgentCard", card.supportsAuthenticatedExtendedCard)
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(toV1Skill),
    ...optional("provider", card.provider),
    ...optional("documentationUrl", card.documentationUrl),
    ...optional("iconUrl", card.iconUrl),
    ...optional(
      "securitySchemes",
      card.securitySchemes === undefined ? undefined : mapValues(card.securitySchemes, toV1SecurityScheme)
    ),
    ...optional("securityRequirements", card.security?.map(toV1SecurityRequirement)),
    ...optional("signatures", card.signatures)
  }
}
