/**
 * OAuth 2.0 client credentials (RFC 6749 4.4) as a client credential: where the agent card's security scheme is
 * OAuth 2 with a `clientCredentials` flow, the client obtains an access token from the flow's `tokenUrl` with its
 * client id and secret (HTTP Basic, RFC 6749 2.3.1), through the client's HttpClient, keeps it until shortly
 * before it expires, and sends it as the bearer token. When the agent answers 401, the token is dropped and the
 * request sent once more with a new one. A token endpoint that refuses or cannot be reached is an
 * A2ACredentialError (seen by A2A calls as an A2ATransportError with reason "CredentialUnavailable").
 *
 * @example
 * ```ts
 * import { A2AClient, OAuth2ClientCredentials } from "effect-a2a/client"
 * import { Redacted } from "effect"
 *
 * const client = A2AClient.resolve("https://agent.example.com", {
 *   credentials: {
 *     oauth2: OAuth2ClientCredentials.credential({ clientId: "agent-b", clientSecret: Redacted.make("…") })
 *   }
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type * as v1 from "../protocol/generated/v1.ts"
import { A2ACredentialError, snippet } from "./A2AClientError.ts"

/**
 * The OAuth 2.0 client credentials grant: client id and secret, scopes, the token endpoint when
 * the card gives none, and how early a token is renewed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly clientId: string
  readonly clientSecret: string | Redacted.Redacted<string>
  /** Scopes to ask for. Default: none (the token endpoint's default). */
  readonly scopes?: ReadonlyArray<string> | undefined
  /** Overrides the card's `tokenUrl` (e.g. a token endpoint the card does not name). */
  readonly tokenUrl?: string | undefined
  /** Extra form parameters of the token request, e.g. `{ audience: "https://agent.example.com" }`. */
  readonly parameters?: Readonly<Record<string, string>> | undefined
  /** A token is renewed this long before it expires. Default 30 seconds. */
  readonly expiryMargin?: Duration.Input | undefined
  /** Bound on each token request. Default 10 seconds. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The credential value to give under the OAuth 2 scheme's name in the client's `credentials`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCredentials {
  readonly _tag: "OAuth2ClientCredentials"
  readonly options: Options
}

/**
 * A credential that gets its bearer token with the OAuth 2.0 client credentials grant.
 *
 * @since 0.1.0
 * @category constructors
 */
export const credential = (options: Options): ClientCredentials => ({ _tag: "OAuth2ClientCredentials", options })

/**
 * Whether a value is a credential made by `credential`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isClientCredentials = (value: unknown): value is ClientCredentials =>
  Predicate.hasProperty(value, "_tag") && value._tag === "OAuth2ClientCredentials"

/**
 * A token source: the current token (fetched when there is none or it is about to expire), and a way to drop it.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenSource {
  readonly token: Effect.Effect<string, A2ACredentialError>
  readonly invalidate: Effect.Effect<void>
}

interface Cached {
  readonly token: string
  /** Epoch millis after which the token is renewed. */
  readonly renewAt: number
}

/** UTF-8 then base64, without Node's Buffer (the client also runs in browsers). */
const base64 = (text: string): string =>
  btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(""))

/** RFC 6749 2.3.1: the id and secret are form-urlencoded before they are joined for Basic. */
const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, "+")

/**
 * The token source for a scheme of the card (its clientCredentials flow names the token URL).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  schemeName: string,
  scheme: v1.SecurityScheme,
  options: Options,
  httpClient: HttpClient.HttpClient
): Effect.Effect<TokenSource> =>
  Effect.gen(function*() {
    const fail = (message: string, cause?: unknown) =>
      new A2ACredentialError({
        scheme: schemeName,
        message: `OAuth 2 client credentials for "${schemeName}": ${message}`,
        ...(cause !== undefined ? { cause } : {})
      })
    const flow = "oauth2SecurityScheme" in scheme && scheme.oauth2SecurityScheme !== undefined &&
        "clientCredentials" in scheme.oauth2SecurityScheme.flows
      ? scheme.oauth2SecurityScheme.flows.clientCredentials
      : undefined
    const tokenUrl = options.tokenUrl ?? flow?.tokenUrl
    const margin = Duration.toMillis(Duration.fromInputUnsafe(options.expiryMargin ?? Duration.seconds(30)))
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10))
    const secret = typeof options.clientSecret === "string"
      ? options.clientSecret
      : Redacted.value(options.clientSecret)
    const state = yield* SynchronizedRef.make(Option.none<Cached>())

    const request = (url: string) =>
      Effect.gen(function*() {
        const form: Record<string, string> = {
          grant_type: "client_credentials",
          ...(options.scopes !== undefined && options.scopes.length > 0 ? { scope: options.scopes.join(" ") } : {}),
          ...options.parameters
        }
        const response = yield* httpClient.execute(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeader(
              "authorization",
              `Basic ${base64(`${formEncode(options.clientId)}:${formEncode(secret)}`)}`
            ),
            HttpClientRequest.acceptJson,
            HttpClientRequest.bodyUrlParams(form)
          )
        ).pipe(
          Effect.timeout(timeout),
          Effect.mapError((cause) => fail(`the token endpoint ${url} did not answer: ${String(cause)}`, cause))
        )
        const text = yield* response.text.pipe(
          Effect.mapError((cause) => fail(`reading the token response failed: ${String(cause)}`, cause))
        )
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        const field = (
          name: string
        ) => (Predicate.isObject(body) && name in body ? (body as Record<string, unknown>)[name] : undefined)
        if (response.status !== 200) {
          const error = field("error")
          const description = field("error_description")
          return yield* fail(
            `the token endpoint ${url} answered HTTP ${response.status}` +
              (Predicate.isString(error) ? ` ${error}` : "") +
              (Predicate.isString(description)
                ? `: ${description}`
                : Predicate.isString(error)
                ? ""
                : `: ${snippet(text)}`)
          )
        }
        const token = field("access_token")
        if (!Predicate.isString(token) || token === "") {
          return yield* fail(`the token endpoint ${url} sent no access_token`)
        }
        const tokenType = field("token_type")
        if (Predicate.isString(tokenType) && tokenType.toLowerCase() !== "bearer") {
          return yield* fail(`the token endpoint ${url} sent a ${tokenType} token, not a bearer token`)
        }
        const expiresIn = field("expires_in")
        const now = yield* Clock.currentTimeMillis
        // Without expires_in the token is kept until the agent refuses it (401).
        const renewAt = typeof expiresIn === "number" && Number.isFinite(expiresIn)
          ? now + expiresIn * 1000 - margin
          : Number.POSITIVE_INFINITY
        return { token, renewAt }
      })

    const token = SynchronizedRef.modifyEffect(state, (cached) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (Option.isSome(cached) && now < cached.value.renewAt) return [cached.value.token, cached] as const
        if (tokenUrl === undefined) {
          return yield* fail("the card's scheme has no clientCredentials flow and no tokenUrl was given")
        }
        const fresh = yield* request(tokenUrl)
        return [fresh.token, Option.some(fresh)] as const
      }))

    return { token, invalidate: SynchronizedRef.set(state, Option.none()) }
  })
