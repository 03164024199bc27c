/**
 * The bytes an agent card signature covers (spec 8.4.1): the card without `signatures`, with the fields proto3
 * field presence says are unset removed, serialised by the JSON Canonicalization Scheme (RFC 8785, `jcs`).
 *
 * Two forms, because the official SDKs and the spec disagree:
 * - `canonical` follows the spec: REQUIRED fields always stay (even `""` or `[]`), fields with the proto
 *   `optional` keyword and message fields stay when present, and other fields are dropped when they hold their
 *   default (`""`, `false`, `0`, `[]`, an empty map). Fields the 1.0 schema does not know are kept as received.
 * - `sdkCanonical` is what @a2a-js/sdk 1.3 (`canonicalizeAgentCard`) signs and verifies: a protobuf round trip
 *   (unknown fields dropped, defaults dropped, REQUIRED ones included), then every `""`, `[]`, `{}` and null removed
 *   at any depth (as a2a-python does), so `"skills": []` or a security requirement with no scopes
 *   (`{"schemes":{"bearer":{}}}`) vanish from it. And because the SDK runs its round trip on its in-memory card,
 *   whose oneofs (`{ scheme: { $case, value } }`) its JSON reader does not recognise, every security scheme comes
 *   out empty: `securitySchemes` is never covered by an SDK signature.
 *
 * A signer signs `canonical` and, when the SDK form differs, adds a second signature over it with the same key
 * (spec 8.4.3: a verifier needs one signature to verify), so the SDK's verifier accepts our cards. A verifier
 * accepts a signature over the spec's form, and one over the SDK's form only when what that form leaves out
 * (empty values, unknown fields, and the security schemes) carries nothing a client acts on: a card without
 * security schemes (see CardVerifier's `sdkForm`).
 *
 * @example
 * ```ts
 * import { AgentCardCanonical } from "effect-a2a/protocol"
 *
 * AgentCardCanonical.jcs({ b: [1.5e21, "é"], a: null }) // '{"a":null,"b":[1.5e+21,"é"]}'
 * ```
 *
 * @since 0.1.0
 */
import { isJsonObject } from "./internal/JsonObject.ts"

/**
 * RFC 8785: object members sorted by the UTF-16 code units of their names, no whitespace, strings and numbers as
 * ECMAScript's JSON.stringify writes them (which is what RFC 8785 specifies: its number form is ES Number
 * serialisation, its string escaping that of JSON.stringify). Meant for parsed JSON: what JSON cannot hold is
 * written as JSON.stringify writes it (undefined members left out, a non-finite number or a function as null).
 *
 * @since 0.1.0
 * @category utils
 */
export const jcs = (value: unknown): string => {
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value)
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null"
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    // The default sort compares UTF-16 code units, as RFC 8785 3.2.3 asks.
    const members = Object.keys(record).filter((key) => record[key] !== undefined).sort()
    return `{${members.map((key) => `${JSON.stringify(key)}:${jcs(record[key])}`).join(",")}}`
  }
  return "null"
}

// ---------------------------------------------------------------------------------------------------------------
// Field presence of the messages an AgentCard is made of (specification/a2a.proto, v1.0).

/** REQUIRED: always kept. */
const R = "required"
/** Explicit presence (the `optional` keyword, message fields, oneof members): kept when present. */
const P = "present"
/** Implicit presence: dropped when it holds its default. */
const I = "implicit"
type Presence = typeof R | typeof P | typeof I

interface Field {
  readonly presence: Presence
  /** The message type of the field, of each element of a repeated field, or of each value of a map. */
  readonly message?: string | undefined
  readonly map?: boolean | undefined
}

const f = (presence: Presence, message?: string, map?: boolean): Field => ({ presence, message, map })

const MESSAGES: Readonly<Record<string, Readonly<Record<string, Field>>>> = {
  AgentCard: {
    name: f(R),
    description: f(R),
    supportedInterfaces: f(R, "AgentInterface"),
    provider: f(P, "AgentProvider"),
    version: f(R),
    documentationUrl: f(P),
    capabilities: f(R, "AgentCapabilities"),
    securitySchemes: f(I, "SecurityScheme", true),
    securityRequirements: f(I, "SecurityRequirement"),
    defaultInputModes: f(R),
    defaultOutputModes: f(R),
    skills: f(R, "AgentSkill"),
    signatures: f(I, "AgentCardSignature"),
    iconUrl: f(P)
  },
  AgentInterface: { url: f(R), protocolBinding: f(R), tenant: f(I), protocolVersion: f(R) },
  AgentProvider: { url: f(R), organization: f(R) },
  AgentCapabilities: {
    streaming: f(P),
    pushNotifications: f(P),
    extensions: f(I, "AgentExtension"),
    extendedAgentCard: f(P)
  },
  AgentExtension: { uri: f(I), description: f(I), required: f(I), params: f(P, "Struct") },
  AgentSkill: {
    id: f(R),
    name: f(R),
    description: f(R),
    tags: f(R),
    examples: f(I),
    inputModes: f(I),
    outputModes: f(I),
    securityRequirements: f(I, "SecurityRequirement")
  },
  AgentCardSignature: { protected: f(R), signature: f(R), header: f(P, "Struct") },
  SecurityRequirement: { schemes: f(I, "StringList", true) },
  StringList: { list: f(I) },
  SecurityScheme: {
    apiKeySecurityScheme: f(P, "APIKeySecurityScheme"),
    httpAuthSecurityScheme: f(P, "HTTPAuthSecurityScheme"),
    oauth2SecurityScheme: f(P, "OAuth2SecurityScheme"),
    openIdConnectSecurityScheme: f(P, "OpenIdConnectSecurityScheme"),
    mtlsSecurityScheme: f(P, "MutualTlsSecurityScheme")
  },
  APIKeySecurityScheme: { description: f(I), location: f(R), name: f(R) },
  HTTPAuthSecurityScheme: { description: f(I), scheme: f(R), bearerFormat: f(I) },
  OAuth2SecurityScheme: { description: f(I), flows: f(R, "OAuthFlows"), oauth2MetadataUrl: f(I) },
  OpenIdConnectSecurityScheme: { description: f(I), openIdConnectUrl: f(R) },
  MutualTlsSecurityScheme: { description: f(I) },
  OAuthFlows: {
    authorizationCode: f(P, "AuthorizationCodeOAuthFlow"),
    clientCredentials: f(P, "ClientCredentialsOAuthFlow"),
    implicit: f(P, "ImplicitOAuthFlow"),
    password: f(P, "PasswordOAuthFlow"),
    deviceCode: f(P, "DeviceCodeOAuthFlow")
  },
  AuthorizationCodeOAuthFlow: {
    authorizationUrl: f(R),
    tokenUrl: f(R),
    refreshUrl: f(I),
    scopes: f(R, undefined, true),
    pkceRequired: f(I)
  },
  ClientCredentialsOAuthFlow: { tokenUrl: f(R), refreshUrl: f(I), scopes: f(R, undefined, true) },
  ImplicitOAuthFlow: { authorizationUrl: f(I), refreshUrl: f(I), scopes: f(I, undefined, true) },
  PasswordOAuthFlow: { tokenUrl: f(I), refreshUrl: f(I), scopes: f(I, undefined, true) },
  DeviceCodeOAuthFlow: {
    deviceAuthorizationUrl: f(R),
    tokenUrl: f(R),
    refreshUrl: f(I),
    scopes: f(R, undefined, true)
  }
}

const isDefault = (value: unknown): boolean =>
  value === "" || value === false || value === 0 || (Array.isArray(value) && value.length === 0) ||
  (isJsonObject(value) && Object.keys(value).length === 0)

/** A value of a field: messages walked by their own table, Struct and scalars as they are. */
const walkValue = (value: unknown, message: string | undefined, keepUnknown: boolean): unknown => {
  if (message === undefined || message === "Struct" || !isJsonObject(value)) return value
  return walkMessage(value, message, keepUnknown)
}

const walkMessage = (json: Record<string, unknown>, message: string, keepUnknown: boolean): Record<string, unknown> => {
  const fields = MESSAGES[message] ?? {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(json)) {
    const field = fields[key]
    if (field === undefined) {
      if (keepUnknown && value !== undefined) out[key] = value
      continue
    }
    // ProtoJSON: null is the field's default, i.e. unset.
    if (value === undefined || value === null) continue
    if (field.presence === I && isDefault(value)) continue
    if (Array.isArray(value)) out[key] = value.map((item) => walkValue(item, field.message, keepUnknown))
    else if (field.map === true && isJsonObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, walkValue(v, field.message, keepUnknown)])
      )
    } else out[key] = walkValue(value, field.message, keepUnknown)
  }
  return out
}

const withoutSignatures = (card: object): Record<string, unknown> => {
  const { signatures: _, ...rest } = card as Record<string, unknown>
  return rest
}

/**
 * The card as the spec's canonicalisation sees it (defaults removed, `signatures` excluded), before JCS.
 *
 * @since 0.1.0
 * @category utils
 */
export const canonicalValue = (card: object): Record<string, unknown> =>
  walkMessage(withoutSignatures(card), "AgentCard", true)

/**
 * The spec's canonical form (8.4.1) of a card: the bytes its signatures cover.
 *
 * @since 0.1.0
 * @category utils
 */
export const canonical = (card: object): string => jcs(canonicalValue(card))

/** Removes `""`, `[]`, `{}` and null at any depth, then a container left empty (as the SDKs' `cleanEmpty`). */
const clean = (value: unknown): unknown => {
  if (value === "" || value === null || value === undefined) return undefined
  if (Array.isArray(value)) {
    const items = value.map(clean).filter((item) => item !== undefined)
    return items.length > 0 ? items : undefined
  }
  if (isJsonObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => [k, clean(v)] as const).filter(([, v]) => v !== undefined)
    return entries.length > 0 ? Object.fromEntries(entries) : undefined
  }
  return value
}

/**
 * The form @a2a-js/sdk 1.3 signs and verifies (see the module comment).
 *
 * @since 0.1.0
 * @category utils
 */
export const sdkCanonical = (card: object): string => {
  const { securitySchemes: _, ...rest } = walkMessage(withoutSignatures(card), "AgentCard", false)
  return jcs(clean(rest) ?? {})
}

/**
 * A payload a signature may cover, and which form it is.
 *
 * @since 0.1.0
 * @category models
 */
export interface Form {
  readonly form: "spec" | "sdk"
  readonly payload: string
}

/**
 * Both forms, the spec's first; one entry when they are the same bytes.
 *
 * @since 0.1.0
 * @category utils
 */
export const forms = (card: object): ReadonlyArray<Form> => {
  const spec = canonical(card)
  const sdk = sdkCanonical(card)
  return spec === sdk
    ? [{ form: "spec", payload: spec }]
    : [{ form: "spec", payload: spec }, { form: "sdk", payload: sdk }]
}

/**
 * Whether the card declares security schemes (which the SDK's form does not cover).
 *
 * @since 0.1.0
 * @category utils
 */
export const hasSecuritySchemes = (card: object): boolean => {
  const schemes = (card as Record<string, unknown>)["securitySchemes"]
  return isJsonObject(schemes) && Object.keys(schemes).length > 0
}
