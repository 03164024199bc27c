/**
 * Agent card signature verification (spec 8.4.3). With a CardVerifier in context, `A2AClient.resolve` checks the
 * `signatures` of the card it fetched (and `getExtendedAgentCard` those of the extended card) before using it: a
 * card is accepted when one signature verifies, over the card's canonical form (`AgentCardCanonical`), with a key
 * it was given or one from the signature's `jku` (a JWKS fetched through the client's HttpClient, kept for
 * `jwksMaxAge`, fetched again when a signature names a key id it lacks). A card whose signatures fail is refused
 * with AgentCardSignatureError (in A2AClientError); an unsigned card is accepted unless `requireSignature`. Uses the `jose` package (an
 * optional peer dependency, loaded when this layer is built).
 *
 * Whose `jku` is trusted matters: a key named by the card itself proves only that whoever served the card holds
 * it. By default a `jku` is fetched only on the origin the card came from (so the signature is as good as that
 * origin's TLS); give `keys` for keys known beforehand, or `jku` to decide.
 *
 * @example
 * ```ts
 * import { A2AClient, CardVerifier } from "effect-a2a/client"
 * import { Effect, Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const client = A2AClient.resolve("https://agent.example.com").pipe(
 *   Effect.provide(CardVerifier.layer({ requireSignature: true }).pipe(Layer.provideMerge(FetchHttpClient.layer)))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Cache from "effect/Cache"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as AgentCardCanonical from "../protocol/AgentCardCanonical.ts"
import { isJsonObject } from "../protocol/internal/JsonObject.ts"
import { AgentCardSignatureError } from "./A2AClientError.ts"

/**
 * A public JSON Web Key with its `kid`.
 *
 * @since 0.1.0
 * @category models
 */
export type PublicJwk = { readonly kty: string; readonly kid?: string; readonly [member: string]: unknown }

/**
 * Options of the card verifier: the trusted keys (or where keys may be fetched from), the algorithms, and whether
 * an unsigned card is refused.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Trusted public keys (or a JWKS), looked up by the signature's `kid`. */
  readonly keys?: ReadonlyArray<PublicJwk> | { readonly keys: ReadonlyArray<PublicJwk> } | undefined
  /**
   * Which `jku` URLs to fetch keys from: "same-origin" (default: the card's own origin), true (any https URL, and
   * http on the card's origin), false (none: only `keys`), or a predicate of the jku and the card's URL.
   */
  readonly jku?: "same-origin" | boolean | ((jku: string, cardUrl: string) => boolean) | undefined
  /** Refuse a card that carries no signature. Default false. */
  readonly requireSignature?: boolean | undefined
  /** Accepted algorithms. Default the ES, EdDSA, RS and PS families; never `none` or HMAC. */
  readonly algorithms?: ReadonlyArray<string> | undefined
  /** How long a fetched JWKS is used before it is fetched again. Default 10 minutes. */
  readonly jwksMaxAge?: Duration.Input | undefined
  /** Bound on each JWKS fetch. Default 10 seconds. */
  readonly jwksTimeout?: Duration.Input | undefined
  /**
   * Signatures over the form @a2a-js/sdk 1.3 signs (see AgentCardCanonical), which leaves the card's security schemes
   * out: "unless-security-schemes" (default) accepts them on cards without security schemes, where they cover all a
   * client acts on; "always" accepts them anyway (the schemes, token URLs included, are then unauthenticated);
   * "never" refuses them.
   */
  readonly sdkForm?: "unless-security-schemes" | "always" | "never" | undefined
  /** When false, a failed check is logged as a warning and the card used anyway. Default true. */
  readonly enforce?: boolean | undefined
}

/**
 * What a card was received as: its JSON, as sent (the signatures cover it, not our decoding of it), and where.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReceivedCard {
  readonly json: unknown
  readonly url: string
}

/**
 * Checks the signatures of a fetched agent card before the client uses it.
 *
 * @since 0.1.0
 * @category services
 */
export class CardVerifier extends Context.Service<CardVerifier, {
  /** Succeeds when the card may be used (see the module comment); the error says why not. */
  readonly verify: (card: ReceivedCard) => Effect.Effect<void, AgentCardSignatureError>
}>()("effect-a2a/client/CardVerifier") {}

const DEFAULT_ALGORITHMS = [
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512"
]

const describe = (cause: unknown): string => (Predicate.isError(cause) ? cause.message : String(cause))

interface Signature {
  readonly protected: string
  readonly signature: string
  readonly header?: Record<string, unknown> | undefined
}

const signaturesOf = (json: unknown): ReadonlyArray<unknown> | undefined =>
  isJsonObject(json) && Array.isArray(json["signatures"]) && json["signatures"].length > 0
    ? json["signatures"]
    : undefined

const isSignature = (value: unknown): value is Signature =>
  isJsonObject(value) && Predicate.isString(value["protected"]) && Predicate.isString(value["signature"]) &&
  (value["header"] === undefined || isJsonObject(value["header"]))

const isKeyList = (
  keys: NonNullable<Options["keys"]>
): keys is ReadonlyArray<PublicJwk> => Array.isArray(keys)

/** Whether a jku may be fetched for a card from `cardUrl`. */
const jkuPolicy = (option: Options["jku"]) => (jku: string, cardUrl: string): boolean => {
  if (typeof option === "function") return option(jku, cardUrl)
  if (option === false) return false
  let target: URL
  let card: URL
  try {
    target = new URL(jku)
    card = new URL(cardUrl)
  } catch {
    return false
  }
  if (target.origin === card.origin) return true
  return option === true && target.protocol === "https:"
}

/**
 * The verifier; loads `jose`. JWKS are fetched with the HttpClient in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<CardVerifier["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const jose = yield* Effect.tryPromise(() => import("jose")).pipe(
      Effect.catch((cause) =>
        Effect.die(new Error(`Agent card verification needs the jose package: npm install jose (${describe(cause)})`))
      )
    )
    const http = yield* HttpClient.HttpClient
    const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)].filter((a) => a !== "none")
    const given = options.keys ?? []
    const trusted: ReadonlyArray<PublicJwk> = isKeyList(given) ? given : given.keys
    const mayFetch = jkuPolicy(options.jku ?? "same-origin")
    const maxAge = Duration.fromInputUnsafe(options.jwksMaxAge ?? Duration.minutes(10))
    const timeout = Duration.fromInputUnsafe(options.jwksTimeout ?? Duration.seconds(10))
    const enforce = options.enforce ?? true
    const encoder = new TextEncoder()

    const fetchKeySet = (jku: string) =>
      http.execute(HttpClientRequest.get(jku).pipe(HttpClientRequest.acceptJson)).pipe(
        Effect.flatMap(HttpClientResponse.filterStatusOk),
        Effect.flatMap((response) => response.json),
        Effect.timeout(timeout),
        Effect.mapError((cause) => `cannot fetch the JWKS at ${jku}: ${describe(cause)}`),
        Effect.flatMap((json) =>
          isJsonObject(json) && Array.isArray(json["keys"])
            ? Effect.succeed(
              json["keys"].filter((key): key is PublicJwk => isJsonObject(key) && Predicate.isString(key["kty"]))
            )
            : Effect.fail(`${jku} is not a JWKS (no "keys" array)`)
        )
      )
    // Failures are not kept: the next card tries again.
    const keySets = yield* Cache.makeWith(fetchKeySet, {
      capacity: 64,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? maxAge : Duration.zero)
    })

    type Outcome = { readonly reason: AgentCardSignatureError["reason"]; readonly message: string }
    const outcome = (reason: Outcome["reason"], message: string): Outcome => ({ reason, message })

    /** The key a signature names: a trusted one, else from its jku (fetched again once for a kid it lacks). */
    const keyFor = (kid: string, jku: string | undefined, cardUrl: string): Effect.Effect<PublicJwk, Outcome> => {
      const known = trusted.find((key) => key.kid === kid)
      if (known !== undefined) return Effect.succeed(known)
      if (jku === undefined) return Effect.fail(outcome("KeyNotFound", `no trusted key has kid "${kid}"`))
      if (!mayFetch(jku, cardUrl)) {
        return Effect.fail(outcome("KeyNotFound", `no trusted key has kid "${kid}", and its jku ${jku} is not trusted`))
      }
      const lookup = Effect.map(Cache.get(keySets, jku), (keys) => keys.find((key) => key.kid === kid))
      return lookup.pipe(
        Effect.flatMap((key) =>
          key !== undefined ? Effect.succeed(key) : Effect.andThen(Cache.invalidate(keySets, jku), lookup)
        ),
        Effect.mapError((message) => outcome("KeySetUnavailable", message)),
        Effect.flatMap((key) =>
          key !== undefined
            ? Effect.succeed(key)
            : Effect.fail(outcome("KeyNotFound", `the JWKS at ${jku} has no kid "${kid}"`))
        )
      )
    }

    const sdkForm = options.sdkForm ?? "unless-security-schemes"
    const checkOne = (
      signature: unknown,
      payloads: ReadonlyArray<AgentCardCanonical.Form>,
      hasSchemes: boolean,
      cardUrl: string
    ) =>
      Effect.gen(function*() {
        if (!isSignature(signature)) {
          return yield* Effect.fail(outcome("Malformed", "a signature lacks its protected header or value"))
        }
        const header = yield* Effect.try({
          try: () => jose.decodeProtectedHeader(signature),
          catch: (cause) => outcome("Malformed", `unreadable protected header: ${describe(cause)}`)
        })
        const alg = header.alg
        if (alg === undefined || !algorithms.includes(alg)) {
          return yield* Effect.fail(outcome("UnsupportedAlgorithm", `algorithm ${String(alg)} is not accepted`))
        }
        if (!Predicate.isString(header.kid)) {
          return yield* Effect.fail(outcome("Malformed", "the protected header has no kid"))
        }
        const jwk = yield* keyFor(header.kid, header.jku, cardUrl)
        if (Predicate.isString(jwk["alg"]) && jwk["alg"] !== alg) {
          return yield* Effect.fail(outcome("InvalidSignature", `key "${header.kid}" is for ${jwk["alg"]}, not ${alg}`))
        }
        const key = yield* Effect.tryPromise({
          try: () => jose.importJWK({ ...jwk }, alg),
          catch: (cause) => outcome("InvalidSignature", `key "${header.kid}" does not fit ${alg}: ${describe(cause)}`)
        })
        let sdkOnly = false
        for (const { form, payload } of payloads) {
          const verified = yield* Effect.tryPromise(() =>
            jose.flattenedVerify(
              {
                payload: jose.base64url.encode(encoder.encode(payload)),
                protected: signature.protected,
                signature: signature.signature,
                ...(signature.header !== undefined ? { header: signature.header } : {})
              },
              key,
              { algorithms }
            )
          ).pipe(Effect.option)
          if (verified._tag === "Some") {
            if (form === "spec") return
            sdkOnly = true
          }
        }
        if (sdkOnly && (sdkForm === "always" || (sdkForm === "unless-security-schemes" && !hasSchemes))) return
        return yield* Effect.fail(
          outcome(
            "InvalidSignature",
            sdkOnly
              ? `the signature by key "${header.kid}" covers the card in @a2a-js/sdk's form, which leaves its security ` +
                `schemes unsigned (sdkForm: "${sdkForm}")`
              : `the signature by key "${header.kid}" does not match the card`
          )
        )
      })

    const check = (received: ReceivedCard): Effect.Effect<void, AgentCardSignatureError> =>
      Effect.gen(function*() {
        const refuse = (reason: Outcome["reason"], message: string) =>
          new AgentCardSignatureError({ reason, url: received.url, message: `Agent card ${received.url}: ${message}` })
        const signatures = signaturesOf(received.json)
        if (signatures === undefined) {
          if (options.requireSignature === true) return yield* refuse("Unsigned", "the card is not signed")
          return
        }
        const payloads = AgentCardCanonical.forms(received.json as object)
        const hasSchemes = AgentCardCanonical.hasSecuritySchemes(received.json as object)
        const failures: Array<Outcome> = []
        for (const signature of signatures) {
          const result = yield* Effect.result(checkOne(signature, payloads, hasSchemes, received.url))
          if (result._tag === "Success") return
          failures.push(result.failure)
        }
        // The first signature's reason: usually the only one, and the one the signer meant to be checked first.
        return yield* refuse(failures[0]!.reason, failures.map((f) => f.message).join("; "))
      })

    return {
      verify: (received) =>
        enforce ? check(received) : check(received).pipe(
          Effect.catch((error) => Effect.logWarning(`${error.message} (used anyway: enforce is false)`))
        )
    }
  })

/**
 * The verifier as a layer: provide it where `A2AClient.resolve` runs.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<CardVerifier, never, HttpClient.HttpClient> =>
  Layer.effect(CardVerifier, make(options))
