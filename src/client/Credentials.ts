/**
 * Client authentication (spec 7.3): the user supplies credentials by security scheme name (the keys of the
 * card's `securitySchemes`); the client picks the first of the card's `securityRequirements` it can satisfy
 * completely and sends each credential where its scheme says. Credentials never go to an agent whose card
 * does not ask for them. A credential may be an Effect (run per request, so it can fail with A2ACredentialError),
 * or, for an OAuth 2 scheme with a client credentials flow, `OAuth2ClientCredentials.credential(...)`.
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { Redacted } from "effect"
 *
 * // credentials by the card's security scheme names; sent only where the card asks for them
 * const client = A2AClient.resolve("https://agent.example.com", {
 *   credentials: { bearer: Redacted.make("s3cret"), apiKey: "k-123" }
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Redacted from "effect/Redacted"
import type * as v1 from "../protocol/generated/v1.ts"
import { A2ACredentialError } from "./A2AClientError.ts"
import * as OAuth2ClientCredentials from "./OAuth2ClientCredentials.ts"

/**
 * One credential: a secret, or an Effect producing one (run per request, so tokens can be refreshed; its failure
 * stops the request). For HTTP Basic schemes give "user:password"; for API keys, bearer, OAuth 2 and OpenID
 * Connect the token; for an OAuth 2 client credentials flow, `OAuth2ClientCredentials.credential(...)`.
 *
 * @since 0.1.0
 * @category models
 */
export type Credential =
  | string
  | Redacted.Redacted<string>
  | Effect.Effect<string | Redacted.Redacted<string>, A2ACredentialError>
  | OAuth2ClientCredentials.ClientCredentials

/**
 * Credentials by security scheme name.
 *
 * @since 0.1.0
 * @category models
 */
export type Credentials = { readonly [schemeName: string]: Credential }

/**
 * One scheme of the chosen requirement, with the credential to send for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Selected {
  readonly schemeName: string
  readonly scheme: v1.SecurityScheme
  readonly credential: Credential
}

/**
 * The schemes to authenticate with: the first requirement whose every scheme has a credential. A card that
 * declares schemes but no requirements gets the first scheme we have a credential for. An empty list means
 * "send nothing".
 *
 * @since 0.1.0
 * @category utils
 */
export const select = (card: v1.AgentCard, credentials: Credentials): ReadonlyArray<Selected> => {
  const schemes = card.securitySchemes ?? {}
  const pick = (names: ReadonlyArray<string>): ReadonlyArray<Selected> | undefined => {
    const out: Array<Selected> = []
    for (const schemeName of names) {
      const scheme = schemes[schemeName]
      const credential = credentials[schemeName]
      if (scheme === undefined || credential === undefined) return undefined
      out.push({ schemeName, scheme, credential })
    }
    return out
  }
  const requirements = card.securityRequirements ?? []
  if (requirements.length === 0) {
    const name = Object.keys(schemes).find((n) => credentials[n] !== undefined)
    return name !== undefined ? pick([name]) ?? [] : []
  }
  for (const requirement of requirements) {
    const names = Object.keys(requirement.schemes ?? {})
    if (names.length === 0) continue // "no authentication" alternative: keep looking for one we can satisfy
    const chosen = pick(names)
    if (chosen !== undefined) return chosen
  }
  return []
}

const reveal = (credential: Credential, schemeName: string): Effect.Effect<string, A2ACredentialError> => {
  if (typeof credential === "string") return Effect.succeed(credential)
  if (Redacted.isRedacted(credential)) return Effect.succeed(Redacted.value(credential))
  if (OAuth2ClientCredentials.isClientCredentials(credential)) {
    return Effect.fail(
      new A2ACredentialError({
        scheme: schemeName,
        message: `OAuth 2 client credentials for "${schemeName}" need a token source: use Credentials.prepare`
      })
    )
  }
  return Effect.map(credential, (value) => (typeof value === "string" ? value : Redacted.value(value)))
}

const appendCookie = (request: HttpClientRequest.HttpClientRequest, name: string, value: string) => {
  const existing = request.headers["cookie"]
  const pair = `${name}=${encodeURIComponent(value)}`
  return HttpClientRequest.setHeader(request, "cookie", existing !== undefined ? `${existing}; ${pair}` : pair)
}

/** UTF-8 then base64, without Node's Buffer (the client also runs in browsers). */
const base64 = (text: string): string =>
  btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(""))

const applyOne = (request: HttpClientRequest.HttpClientRequest, scheme: v1.SecurityScheme, secret: string) => {
  if ("apiKeySecurityScheme" in scheme && scheme.apiKeySecurityScheme !== undefined) {
    const { location, name } = scheme.apiKeySecurityScheme
    switch (location.toLowerCase()) {
      case "query":
        return HttpClientRequest.appendUrlParam(request, name, secret)
      case "cookie":
        return appendCookie(request, name, secret)
      default:
        return HttpClientRequest.setHeader(request, name, secret)
    }
  }
  if ("httpAuthSecurityScheme" in scheme && scheme.httpAuthSecurityScheme !== undefined) {
    const kind = scheme.httpAuthSecurityScheme.scheme
    if (kind.toLowerCase() === "basic") {
      return HttpClientRequest.setHeader(request, "authorization", `Basic ${base64(secret)}`)
    }
    const label = kind.toLowerCase() === "bearer" ? "Bearer" : kind
    return HttpClientRequest.setHeader(request, "authorization", `${label} ${secret}`)
  }
  if (
    ("oauth2SecurityScheme" in scheme && scheme.oauth2SecurityScheme !== undefined) ||
    ("openIdConnectSecurityScheme" in scheme && scheme.openIdConnectSecurityScheme !== undefined)
  ) {
    return HttpClientRequest.setHeader(request, "authorization", `Bearer ${secret}`)
  }
  // Mutual TLS is configured on the HTTP client (agent / dispatcher), not per request.
  return request
}

/**
 * Adds the selected credentials to a request (OAuth 2 client credentials need `prepare`).
 *
 * @since 0.1.0
 * @category utils
 */
export const apply = (selected: ReadonlyArray<Selected>) =>
(
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientRequest.HttpClientRequest, A2ACredentialError> =>
  selected.length === 0
    ? Effect.succeed(request)
    : Effect.reduce(
      selected,
      () => request,
      (req, { credential, scheme, schemeName }) =>
        Effect.map(reveal(credential, schemeName), (secret) => applyOne(req, scheme, secret))
    )

/**
 * The selected credentials, ready to apply: OAuth 2 client credentials turned into token sources.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prepared {
  /** Adds the credentials to a request (obtaining a token first when needed). */
  readonly apply: (
    request: HttpClientRequest.HttpClientRequest
  ) => Effect.Effect<HttpClientRequest.HttpClientRequest, A2ACredentialError>
  /** Drops the tokens obtained so far (after the agent refused one), so the next request obtains new ones. */
  readonly invalidate: Effect.Effect<void>
  /** Whether `invalidate` does anything: a refused request is worth sending again only then. */
  readonly refreshable: boolean
}

/**
 * Prepares the selected credentials; token requests go through `httpClient`.
 *
 * @since 0.1.0
 * @category utils
 */
export const prepare = (
  selected: ReadonlyArray<Selected>,
  httpClient: HttpClient.HttpClient
): Effect.Effect<Prepared> =>
  Effect.gen(function*() {
    const sources: Array<OAuth2ClientCredentials.TokenSource> = []
    const ready: Array<Selected> = []
    for (const entry of selected) {
      if (!OAuth2ClientCredentials.isClientCredentials(entry.credential)) {
        ready.push(entry)
        continue
      }
      const source = yield* OAuth2ClientCredentials.make(
        entry.schemeName,
        entry.scheme,
        entry.credential.options,
        httpClient
      )
      sources.push(source)
      ready.push({ ...entry, credential: source.token })
    }
    return {
      apply: apply(ready),
      invalidate: Effect.forEach(sources, (source) => source.invalidate, { discard: true }),
      refreshable: sources.length > 0
    }
  })
