/**
 * The credentials the gateway calls a registered agent with, as an operator writes them: by kind
 * (`{"bearer": "t"}`, `{"apiKey": "k"}`, `{"basic": {"username", "password"}}`,
 * `{"oauth2": {"clientId", "clientSecret", "tokenUrl"?, "scopes"?}}`), sent under every security scheme of the
 * agent's card of that kind, or keyed by the card's scheme names (`{"partnerKey": "k"}`) as the `mcp` settings
 * file has them. Use it to check what an operator gave against a card, to turn it into the client's Credentials,
 * and to show it without its secrets.
 *
 * @example
 * ```ts
 * import { GatewayCredentials } from "effect-a2a/gateway"
 *
 * const given: GatewayCredentials.CredentialsInput = { bearer: "s3cret" }
 * GatewayCredentials.masked(given) // { bearer: "***" }
 * ```
 *
 * @since 0.2.0
 */
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Credentials from "../client/Credentials.ts"
import * as OAuth2ClientCredentials from "../client/OAuth2ClientCredentials.ts"
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * An OAuth 2.0 client credentials grant: the token is obtained from the card's (or `tokenUrl`'s) endpoint, cached and
 * renewed before it expires.
 *
 * @since 0.2.0
 * @category models
 */
export const OAuth2Input = Schema.Struct({
  clientId: Schema.String,
  clientSecret: Schema.String,
  tokenUrl: Schema.optionalKey(Schema.String),
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * HTTP Basic credentials.
 *
 * @since 0.2.0
 * @category models
 */
export const BasicInput = Schema.Struct({ username: Schema.String, password: Schema.String })

/**
 * One credential as given: a secret (bearer token, API key, `user:password`), Basic's pair, or an OAuth 2 grant.
 *
 * @since 0.2.0
 * @category models
 */
export const CredentialInput = Schema.Union([Schema.String, BasicInput, OAuth2Input])

/**
 * Credentials as given: by kind (`bearer`, `apiKey`, `basic`, `oauth2`) or by the card's security scheme names.
 *
 * @since 0.2.0
 * @category models
 */
export const CredentialsInput = Schema.Record(Schema.String, CredentialInput)

/**
 * @since 0.2.0
 * @category models
 */
export type CredentialsInput = typeof CredentialsInput.Type

type Kind = "bearer" | "apiKey" | "basic" | "oauth2"

const KINDS: ReadonlyArray<Kind> = ["bearer", "apiKey", "basic", "oauth2"]

const kindOf = (scheme: v1.SecurityScheme): Kind | undefined => {
  if ("apiKeySecurityScheme" in scheme && scheme.apiKeySecurityScheme !== undefined) return "apiKey"
  if ("httpAuthSecurityScheme" in scheme && scheme.httpAuthSecurityScheme !== undefined) {
    return scheme.httpAuthSecurityScheme.scheme.toLowerCase() === "basic" ? "basic" : "bearer"
  }
  if ("oauth2SecurityScheme" in scheme && scheme.oauth2SecurityScheme !== undefined) return "oauth2"
  if ("openIdConnectSecurityScheme" in scheme && scheme.openIdConnectSecurityScheme !== undefined) return "bearer"
  return undefined
}

const isKind = (key: string): key is Kind => (KINDS as ReadonlyArray<string>).includes(key)

const toCredential = (input: typeof CredentialInput.Type): Credentials.Credential => {
  if (typeof input === "string") return Redacted.make(input)
  if ("username" in input) return Redacted.make(`${input.username}:${input.password}`)
  return OAuth2ClientCredentials.credential({
    clientId: input.clientId,
    clientSecret: Redacted.make(input.clientSecret),
    tokenUrl: input.tokenUrl,
    scopes: input.scopes
  })
}

/**
 * The client's credentials for `card`, by its scheme names: a key naming a scheme of the card goes to that scheme; a
 * kind goes to every scheme of that kind the key does not already name. Fails with a sentence naming the key that
 * matches no scheme of the card (nothing would ever be sent for it, which is a mistake worth saying).
 *
 * @since 0.2.0
 * @category utils
 */
export const forCard = (
  input: CredentialsInput,
  card: v1.AgentCard
): Result.Result<Credentials.Credentials, string> => {
  const schemes = card.securitySchemes ?? {}
  const names = Object.keys(schemes)
  const out: Record<string, Credentials.Credential> = {}
  for (const [key, value] of Object.entries(input)) {
    if (schemes[key] !== undefined) {
      out[key] = toCredential(value)
      continue
    }
    const matching = isKind(key) ? names.filter((name) => kindOf(schemes[name]!) === key) : []
    if (matching.length === 0) {
      return Result.fail(
        names.length === 0
          ? `credential "${key}": the agent's card declares no security schemes`
          : `credential "${key}" matches none of the card's security schemes (${names.join(", ")})`
      )
    }
    for (const name of matching) if (input[name] === undefined) out[name] = toCredential(value)
  }
  return Result.succeed(out)
}

/**
 * The headers a REST passthrough endpoint is called with: `bearer` and `basic` as `Authorization`, `apiKey` as
 * `X-API-Key`, any other key as a header of that name. An OAuth 2 grant has no place there (a passthrough has no card
 * naming a token endpoint): refused, with a sentence saying so.
 *
 * @since 0.2.0
 * @category utils
 */
export const headersFor = (input: CredentialsInput): Result.Result<Record<string, string>, string> => {
  const headers: Record<string, string> = {}
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === "object" && "clientId" in value) {
      return Result.fail(`credential "${key}": an OAuth 2 grant cannot be used with a REST passthrough endpoint`)
    }
    const secret = typeof value === "string" ? value : `${value.username}:${value.password}`
    if (key === "bearer") headers["authorization"] = `Bearer ${secret}`
    else if (key === "basic" || typeof value !== "string") headers["authorization"] = `Basic ${btoa(secret)}`
    else if (key === "apiKey") headers["x-api-key"] = secret
    else if (/^[A-Za-z0-9-]+$/.test(key)) headers[key.toLowerCase()] = secret
    else return Result.fail(`credential "${key}" is not a header name`)
  }
  return Result.succeed(headers)
}

/**
 * Every secret in the credentials, to be masked wherever text about a call could carry one.
 *
 * @since 0.2.0
 * @category utils
 */
export const secretsOf = (input: CredentialsInput): ReadonlyArray<string> =>
  Object.values(input).flatMap((value) => {
    if (typeof value === "string") return [value]
    if ("username" in value) {
      return [value.password, `${value.username}:${value.password}`, btoa(`${value.username}:${value.password}`)]
    }
    return [value.clientSecret]
  }).filter((secret) => secret.length > 0)

/**
 * The text with every secret replaced by `***`.
 *
 * @since 0.2.0
 * @category utils
 */
export const mask = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  // Longest first, so a secret that contains another is masked whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join("***")
    const encoded = encodeURIComponent(secret)
    if (encoded !== secret) out = out.split(encoded).join("***")
  }
  return out
}

/**
 * The credentials as they may be shown: their keys, every secret `***` (an OAuth 2 client's id and token URL stay).
 *
 * @since 0.2.0
 * @category utils
 */
export const masked = (input: CredentialsInput): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(input).map(([key, value]) => {
      if (typeof value === "string") return [key, "***"]
      if ("username" in value) return [key, { username: value.username, password: "***" }]
      return [key, { ...value, clientSecret: "***" }]
    })
  )
