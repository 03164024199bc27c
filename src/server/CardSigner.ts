/**
 * Agent card signing (spec 8.4): with a CardSigner in context, the card and the extended card are served with a JWS
 * signature (detached payload: the canonical form of the card, see `AgentCardCanonical`) whose protected header
 * holds `alg`, `typ: "JOSE"`, `kid` and `jku`: where clients fetch the public key (a JWKS). By default the server
 * publishes that JWKS itself, at `/.well-known/jwks.json` of the origin the card is served at, so a client that
 * trusts the card's origin (CardVerifier's default) verifies the card with no key given beforehand. Keys are
 * ES256/384/512, EdDSA (Ed25519) or RS256/PS256 private keys, as PKCS#8 PEM or a private JWK. Signing uses the
 * `jose` package (an optional peer dependency, loaded when the signer is built) on Web Crypto.
 *
 * @example
 * ```ts
 * import { A2AServer, AgentExecutor, CardSigner, DemoAgent } from "effect-a2a/server"
 * import { Layer } from "effect"
 *
 * declare const pem: string // "-----BEGIN PRIVATE KEY-----…"
 * const server = A2AServer.layer({ card: DemoAgent.card, executor: AgentExecutor.replyWithText((t) => t) }).pipe(
 *   Layer.provide(CardSigner.layer({ key: pem, kid: "card-2026", jku: "https://agent.example.com/jwks.json" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * The key could not be used for signing (unreadable, not a private key, an algorithm it does not fit).
 *
 * @since 0.1.0
 * @category errors
 */
export class CardSigningError extends Schema.TaggedError<CardSigningError>()("CardSigningError", {
  message: Schema.String
}) {}

/**
 * A Web Crypto key (the global `CryptoKey` of browsers, Deno and Node).
 *
 * @since 0.1.0
 * @category models
 */
export type WebCryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>

/**
 * A private JSON Web Key (RFC 7517), e.g. `{ kty: "EC", crv: "P-256", x, y, d }`.
 *
 * @since 0.1.0
 * @category models
 */
export type PrivateJwk = { readonly kty: string; readonly [member: string]: unknown }

/**
 * How agent cards are signed: the private key and its key id, and where the public keys are published.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The private key: PKCS#8 PEM text, a private JWK (object or JSON text), or a Web Crypto key. */
  readonly key: string | PrivateJwk | WebCryptoKey
  /** JWS algorithm. Default: the JWK's `alg`, else what the key is (EC P-256 ES256, Ed25519 EdDSA, RSA RS256). */
  readonly alg?: string | undefined
  /** Key id in the protected header. Default: the JWK's `kid`, else its RFC 7638 thumbprint. */
  readonly kid?: string | undefined
  /**
   * Where clients fetch the public key (a JWKS), put in the protected header as `jku`: a URL (you publish the JWKS
   * there), or a path, resolved against the origin each card is served at, where the A2A routes publish it. Default
   * `DEFAULT_JWKS_PATH`. `false`: no `jku` (clients must be given the key).
   */
  readonly jku?: string | false | undefined
}

/**
 * Where the A2A routes publish the signer's public key by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_JWKS_PATH = "/.well-known/jwks.json"

/**
 * Signs the agent cards the server serves (JWS, spec 8.4), and publishes the public keys that verify them.
 *
 * @since 0.1.0
 * @category services
 */
export class CardSigner extends Context.Service<CardSigner, {
  readonly alg: string
  readonly kid: string
  /** The public key, with `kid`, `alg` and `use: "sig"`: what the JWKS at `jku` must hold. */
  readonly publicJwk: Readonly<Record<string, unknown>>
  /** When `jku` is a path: where the A2A routes publish `{ keys: [publicJwk] }`. */
  readonly jwksPath: `/${string}` | undefined
  /**
   * The card with its `signatures`: one over the spec's canonical form, and one over the SDKs' when it differs.
   * `origin` is the one the card is served at (e.g. `https://agent.example.com`): a `jku` path is resolved against
   * it, and left out of the header without it.
   */
  readonly sign: (card: v1.AgentCard, origin?: string | undefined) => Effect.Effect<v1.AgentCard>
}>()("effect-a2a/server/CardSigner") {}

/** What the published public key leaves out: the private members, and the private key's own usage. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv", "key_ops", "ext"]

/** The algorithm a JWK is for, when it does not say. */
const algOfJwk = (jwk: Record<string, unknown>): string | undefined => {
  if (typeof jwk["alg"] === "string") return jwk["alg"]
  if (jwk["kty"] === "EC") return { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" }[String(jwk["crv"])]
  if (jwk["kty"] === "OKP" && jwk["crv"] === "Ed25519") return "EdDSA"
  if (jwk["kty"] === "RSA") return "RS256"
  return undefined
}

/** PEM keys do not say their algorithm: tried in this order, the first the key imports for wins. */
const PEM_CANDIDATES = ["ES256", "ES384", "ES512", "EdDSA", "RS256"]

const describe = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/**
 * Builds the signer: loads `jose`, imports the key, and signs once to prove the key works.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<CardSigner["Service"], CardSigningError> =>
  Effect.gen(function*() {
    const fail = (message: string) => new CardSigningError({ message: `Agent card signing key: ${message}` })
    const jose = yield* Effect.tryPromise({
      try: () => import("jose"),
      catch: (cause) => fail(`card signing needs the jose package: npm install jose (${describe(cause)})`)
    })
    // Loaded with jose: a server that signs no card never holds it. Our own
    // module: a failure to load it is a defect.
    const AgentCardCanonical = yield* Effect.promise(() => import("../protocol/AgentCardCanonical.ts"))
    const attempt = <A>(what: string, run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (cause) => fail(`${what}: ${describe(cause)}`) })

    const input = options.key
    const parsed: string | PrivateJwk | WebCryptoKey = typeof input === "string" && input.trim().startsWith("{")
      ? yield* Effect.try({
        try: () => JSON.parse(input) as PrivateJwk,
        catch: () => fail("not valid JWK JSON")
      })
      : input

    let key: WebCryptoKey
    let alg: string
    let jwk: Record<string, unknown>
    if (typeof parsed === "string") {
      if (!parsed.includes("-----BEGIN PRIVATE KEY-----")) {
        return yield* fail("expected a PKCS#8 PEM (-----BEGIN PRIVATE KEY-----) or a JWK")
      }
      const candidates = options.alg !== undefined ? [options.alg] : PEM_CANDIDATES
      let imported: { key: WebCryptoKey; alg: string } | undefined
      for (const candidate of candidates) {
        const result = yield* Effect.option(
          attempt("import", () => jose.importPKCS8(parsed, candidate, { extractable: true }))
        )
        if (Option.isSome(result)) {
          imported = { key: result.value, alg: candidate }
          break
        }
      }
      if (imported === undefined) return yield* fail(`not a private key for ${candidates.join(", ")}`)
      key = imported.key
      alg = imported.alg
      jwk = yield* attempt("export", () => jose.exportJWK(key))
    } else if ("kty" in parsed) {
      if (typeof parsed["d"] !== "string") return yield* fail("the JWK is not a private key (no \"d\")")
      const jwkAlg = options.alg ?? algOfJwk(parsed)
      if (jwkAlg === undefined) return yield* fail("cannot tell the JWK's algorithm: give alg")
      alg = jwkAlg
      jwk = parsed
      const imported = yield* attempt("import", () => jose.importJWK({ ...parsed, alg: jwkAlg }, jwkAlg))
      if (imported instanceof Uint8Array) return yield* fail("a symmetric key cannot sign a card")
      key = imported
    } else {
      key = parsed
      if (options.alg === undefined) return yield* fail("give alg with a CryptoKey")
      alg = options.alg
      jwk = yield* attempt("export (make the CryptoKey extractable)", () => jose.exportJWK(key))
    }

    const publicMembers = Object.fromEntries(
      Object.entries(jwk).filter(([name]) => !PRIVATE_MEMBERS.includes(name) && name !== "kid" && name !== "alg")
    )
    const kid = options.kid ?? (typeof jwk["kid"] === "string" ? jwk["kid"] : undefined) ??
      (yield* attempt("thumbprint", () => jose.calculateJwkThumbprint(publicMembers as never)))
    const jku = options.jku ?? DEFAULT_JWKS_PATH
    const jwksPath = jku !== false && jku.startsWith("/") ? jku as `/${string}` : undefined
    if (jku !== false && jwksPath === undefined && !URL.canParse(jku)) {
      return yield* fail(`jku must be a URL or a path starting with "/", got "${jku}"`)
    }
    const jkuAt = (origin: string | undefined): string | undefined =>
      jku === false
        ? undefined
        : jwksPath === undefined
        ? jku
        : origin === undefined
        ? undefined
        : `${origin}${jwksPath}`
    const encoder = new TextEncoder()

    const signOne = (payload: string, header: { readonly alg: string; readonly kid: string }) =>
      attempt("sign", () => new jose.FlattenedSign(encoder.encode(payload)).setProtectedHeader(header).sign(key)).pipe(
        Effect.map((jws): v1.AgentCardSignature => ({ protected: jws.protected ?? "", signature: jws.signature }))
      )
    const signStrict = (card: v1.AgentCard, origin?: string) => {
      const at = jkuAt(origin)
      const header = { alg, typ: "JOSE", kid, ...(at !== undefined ? { jku: at } : {}) }
      return Effect.map(
        Effect.forEach(AgentCardCanonical.forms(card), ({ payload }) => signOne(payload, header)),
        (signatures): v1.AgentCard => ({ ...card, signatures })
      )
    }
    // A key that cannot sign fails here, when the server starts, rather than on the first card request.
    yield* signStrict({
      name: "probe",
      description: "",
      version: "0",
      supportedInterfaces: [],
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: []
    })
    return {
      alg,
      kid,
      publicJwk: { ...publicMembers, kid, alg, use: "sig" },
      jwksPath,
      // The key signed the probe: a later failure is a defect of the runtime, not a condition to handle.
      sign: (card, origin) => Effect.orDie(signStrict(card, origin))
    }
  })

/**
 * The signer for these options.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<CardSigner, CardSigningError> =>
  Layer.effect(CardSigner, make(options))

/**
 * From configuration: `A2A_CARD_SIGNING_KEY` (a file holding a PKCS#8 PEM or a private JWK, or the PEM / JWK text
 * itself), `A2A_CARD_SIGNING_KID`, `A2A_CARD_SIGNING_JKU` (a URL, or a path where the server publishes the key;
 * default `/.well-known/jwks.json`), `A2A_CARD_SIGNING_ALG`. Without a key, cards go unsigned.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<never, CardSigningError | Config.ConfigError, FileSystem.FileSystem> = Layer
  .effectContext(
    Effect.gen(function*() {
      const source = yield* Config.option(Config.String("A2A_CARD_SIGNING_KEY"))
      if (Option.isNone(source)) return Context.empty()
      const kid = yield* Config.option(Config.String("A2A_CARD_SIGNING_KID"))
      const jku = yield* Config.option(Config.String("A2A_CARD_SIGNING_JKU"))
      const alg = yield* Config.option(Config.String("A2A_CARD_SIGNING_ALG"))
      const inline = source.value.includes("-----BEGIN") || source.value.trim().startsWith("{")
      const key = inline ?
        source.value :
        yield* FileSystem.FileSystem.use((fs) => fs.readFileString(source.value)).pipe(
          Effect.mapError((error) =>
            new CardSigningError({ message: `A2A_CARD_SIGNING_KEY: cannot read ${source.value}: ${error.message}` })
          )
        )
      const signer = yield* make({
        key,
        kid: Option.getOrUndefined(kid),
        jku: Option.getOrUndefined(jku),
        alg: Option.getOrUndefined(alg)
      })
      return Context.make(CardSigner, signer)
    })
  )
