/**
 * Signed agent cards end to end: our server signs its card and extended card (ES256 from a PKCS#8 PEM, RS256 and
 * EdDSA from JWKs); our client verifies them against given keys or the JWKS at `jku` (a real endpoint on
 * 127.0.0.1); the official SDK's verifier accepts our cards and our client accepts cards the SDK signed and
 * served. Bad paths are typed errors: tampered card, wrong key, unknown kid, alg none and HMAC, a jku that is
 * unreachable or not trusted, an unsigned card when signatures are required.
 */
import { AgentCard as SdkAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from "@a2a-js/sdk"
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { agentCardHandler } from "@a2a-js/sdk/server/express"
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Layer, Logger } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as jose from "jose"
import * as A2AClient from "../../src/client/A2AClient.ts"
import type { AgentCardSignatureError } from "../../src/client/A2AClientError.ts"
import * as CardVerifier from "../../src/client/CardVerifier.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as CardSigner from "../../src/server/CardSigner.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as JwksServer from "../fixtures/JwksServer.ts"
import * as SdkAgent from "../interop/SdkAgent.ts"

interface Key {
  readonly kid: string
  readonly alg: string
  readonly privateKey: jose.CryptoKey
  readonly privateJwk: jose.JWK
  readonly pem: string
  readonly publicJwk: CardVerifier.PublicJwk & jose.JWK
}

const keyPair = (kid: string, alg: "ES256" | "RS256" | "EdDSA") =>
  Effect.promise(async (): Promise<Key> => {
    const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true })
    return {
      kid,
      alg,
      privateKey,
      privateJwk: { ...(await jose.exportJWK(privateKey)), kid },
      pem: await jose.exportPKCS8(privateKey),
      publicJwk: { kty: "", ...(await jose.exportJWK(publicKey)), kid, alg, use: "sig" }
    }
  })

const TOKEN = "card-token"

/** Our demo server, its cards signed by `signer`; unless `open`, with bearer auth and an extended card. */
const serveSigned = (signer: CardSigner.Options, open = false) =>
  Effect.gen(function*() {
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(
        A2AServer.layer({
          card: DemoAgent.card,
          executor: DemoAgent.make({ stepDelay: Duration.millis(2) }),
          ...(open ? {} : {
            auth: Auth.bearer({ tokens: { [TOKEN]: "alice" } }),
            extendedCard: { ...DemoAgent.card, name: "Extended demo" }
          })
        }).pipe(Layer.provide(CardSigner.layer(signer)))
      ),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    return `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
  })

const fetchJson = (url: string) =>
  Effect.promise(async () =>
    (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json()) as Record<
      string,
      unknown
    >
  )

const verifierWith = (options: CardVerifier.Options) =>
  CardVerifier.layer(options).pipe(Layer.provideMerge(FetchHttpClient.layer))

const resolveWith = (url: string, options: CardVerifier.Options) =>
  A2AClient.resolve(url, { credentials: { bearer: TOKEN } }).pipe(Effect.provide(verifierWith(options)))

/** The AgentCardSignatureError a verification failed with. */
const refusal = (effect: Effect.Effect<unknown, unknown, HttpClient.HttpClient>) =>
  Effect.map(Effect.exit(effect.pipe(Effect.provide(FetchHttpClient.layer))), (exit) => {
    assert.isTrue(Exit.isFailure(exit), "refused")
    const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
    const error = failure !== undefined && failure._tag === "Fail"
      ? failure.error as AgentCardSignatureError
      : undefined
    assert.strictEqual(error?._tag, "AgentCardSignatureError", String(error))
    return error!
  })

const verifyJson = (
  options: CardVerifier.Options,
  json: unknown,
  url = "http://127.0.0.1:1/.well-known/agent-card.json"
) => Effect.flatMap(CardVerifier.make(options), (verifier) => verifier.verify({ json, url }))

const sdkVerify = (json: unknown, keys: ReadonlyArray<Key>) =>
  Effect.promise(() =>
    verifyAgentCardSignature(async (kid) => {
      const key = keys.find((k) => k.kid === kid)
      if (key === undefined) throw new Error(`no key ${kid}`)
      return key.publicJwk
    })(SdkAgentCard.fromJSON(json)).then(() => "verified", (error: unknown) => `refused: ${String(error)}`)
  )

describe("agent card signatures", () => {
  it.live("our server signs both cards; our client and the SDK's verifier accept them", () =>
    Effect.gen(function*() {
      const es = yield* keyPair("card-es", "ES256")
      const jwks = yield* JwksServer.serve(() => [es.publicJwk])
      const url = yield* serveSigned({ key: es.pem, kid: es.kid, jku: jwks.url })

      const json = yield* fetchJson(url)
      const signatures = json["signatures"] as ReadonlyArray<{ protected: string; signature: string }>
      // the demo card's security requirement has no scopes: the SDK form differs, so a second signature covers it
      assert.strictEqual(signatures.length, 2)
      assert.deepStrictEqual(jose.decodeProtectedHeader(signatures[0]!), {
        alg: "ES256",
        typ: "JOSE",
        kid: "card-es",
        jku: jwks.url
      })

      const client = yield* resolveWith(url, { jku: () => true, requireSignature: true })
      assert.strictEqual(client.card.signatures?.length, 2)
      assert.isAbove(jwks.fetches(), 0)
      const extended = yield* client.getExtendedAgentCard()
      assert.strictEqual(extended.name, "Extended demo")
      assert.strictEqual(extended.signatures?.length, 2)

      // with the key given instead of fetched
      yield* resolveWith(url, { keys: [es.publicJwk], jku: false, requireSignature: true })

      assert.strictEqual(yield* sdkVerify(json, [es]), "verified")

      // the SDK's client fetching our card with the SDK's verifier (a server without auth: the SDK's client then
      // asks for no extended card)
      const open = yield* serveSigned({ key: es.pem, kid: es.kid }, true)
      const { ClientFactory } = yield* Effect.promise(() => import("@a2a-js/sdk/client"))
      const sdkClient = yield* Effect.promise(() => new ClientFactory().createFromUrl(open))
      const verified = yield* Effect.promise(() =>
        sdkClient.getAgentCard(undefined, verifyAgentCardSignature(async () => es.publicJwk))
      )
      assert.strictEqual(verified.name, DemoAgent.card.name)
      const other = yield* keyPair("card-es", "ES256")
      const refusedBySdk = yield* Effect.promise(() =>
        sdkClient.getAgentCard(undefined, verifyAgentCardSignature(async () => other.publicJwk)).then(
          () => "accepted",
          (error: unknown) => String(error)
        )
      )
      assert.include(refusedBySdk, "No valid signatures")
    }).pipe(Effect.scoped))

  it.live("by default the server publishes its key at /.well-known/jwks.json and names it: verified with no key given", () =>
    Effect.gen(function*() {
      const es = yield* keyPair("self-published", "ES256")
      const url = yield* serveSigned({ key: es.pem, kid: es.kid })

      const json = yield* fetchJson(url)
      const signatures = json["signatures"] as ReadonlyArray<{ protected: string; signature: string }>
      // the jku is at the origin the card was fetched from
      assert.strictEqual(jose.decodeProtectedHeader(signatures[0]!).jku, `${url}/.well-known/jwks.json`)
      const published = yield* Effect.promise(() => fetch(`${url}/.well-known/jwks.json`))
      assert.strictEqual(published.status, 200)
      assert.strictEqual(published.headers.get("content-type"), "application/jwk-set+json")
      assert.strictEqual(published.headers.get("access-control-allow-origin"), "*")
      const body = (yield* Effect.promise(() => published.json())) as { keys: ReadonlyArray<Record<string, unknown>> }
      assert.strictEqual(body.keys.length, 1)
      assert.strictEqual(body.keys[0]!["kid"], "self-published")
      // the public key only
      assert.isUndefined(body.keys[0]!["d"])
      const etag = published.headers.get("etag")!
      const again = yield* Effect.promise(() =>
        fetch(`${url}/.well-known/jwks.json`, { headers: { "if-none-match": etag } })
      )
      assert.strictEqual(again.status, 304)

      // CardVerifier's defaults: the jku is on the card's origin, so it is fetched; the extended card names it too
      const client = yield* resolveWith(url, { requireSignature: true })
      assert.strictEqual(client.card.signatures?.length, 2)
      const extended = yield* client.getExtendedAgentCard()
      assert.strictEqual(jose.decodeProtectedHeader(extended.signatures![0]!).jku, `${url}/.well-known/jwks.json`)

      // a card whose published key is not the one that signed it is refused
      const other = yield* keyPair("self-published", "ES256")
      const forged = yield* (yield* CardSigner.make({ key: other.pem, kid: es.kid })).sign(
        { ...DemoAgent.card, supportedInterfaces: [] },
        url
      )
      const error = yield* refusal(verifyJson({}, forged, `${url}/.well-known/agent-card.json`))
      assert.strictEqual(error.reason, "InvalidSignature")

      // a jku that is neither a URL nor a path is refused when the signer is built
      const badJku = yield* Effect.exit(CardSigner.make({ key: es.pem, jku: "jwks.json" }))
      assert.isTrue(Exit.isFailure(badJku))
      assert.include(String(Exit.isFailure(badJku) ? badJku.cause : ""), "jku must be a URL or a path")

      // jku: false names no key set, and the routes publish none
      const bare = yield* serveSigned({ key: es.pem, kid: es.kid, jku: false })
      const bareJson = yield* fetchJson(bare)
      const bareSignatures = bareJson["signatures"] as ReadonlyArray<{ protected: string; signature: string }>
      assert.isUndefined(jose.decodeProtectedHeader(bareSignatures[0]!).jku)
      const none = yield* Effect.promise(() => fetch(`${bare}/.well-known/jwks.json`))
      assert.strictEqual(none.status, 404)
    }).pipe(Effect.scoped))

  it.live("RS256 and EdDSA keys given as JWKs; the kid defaults to the key's thumbprint", () =>
    Effect.gen(function*() {
      for (const alg of ["RS256", "EdDSA"] as const) {
        const key = yield* keyPair("ignored", alg)
        const { kid: _, ...unnamed } = key.privateJwk
        const signer = yield* CardSigner.make({ key: JSON.stringify(unnamed) })
        assert.strictEqual(signer.alg, alg)
        assert.strictEqual(signer.kid, yield* Effect.promise(() => jose.calculateJwkThumbprint(key.publicJwk)))
        const signed = yield* signer.sign({ ...DemoAgent.card, supportedInterfaces: [] })
        yield* verifyJson({ keys: [signer.publicJwk as CardVerifier.PublicJwk] }, signed)
        assert.strictEqual(
          yield* sdkVerify(signed, [{ ...key, kid: signer.kid, publicJwk: signer.publicJwk as Key["publicJwk"] }]),
          "verified"
        )
      }
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("cards the SDK signs and serves verify with our client", () =>
    Effect.gen(function*() {
      const es = yield* keyPair("sdk-key", "ES256")
      const sdkCard = (base: string, secured: boolean) =>
        SdkAgentCard.fromJSON({
          name: "SDK signed agent",
          description: "",
          version: "1.0.0",
          supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
          capabilities: { streaming: false },
          ...(secured
            ? {
              securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
              securityRequirements: [{ schemes: { bearer: { list: [] } } }]
            }
            : {}),
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
          skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"], examples: [] }]
        })
      const serve = (secured: boolean) =>
        SdkAgent.listen((app, base) => {
          const handler = new DefaultRequestHandler(
            sdkCard(base, secured),
            new InMemoryTaskStore(),
            SdkAgent.executor({ completedMessage: "done" }),
            undefined,
            undefined,
            undefined,
            undefined,
            generateAgentCardSignature(es.privateKey, { alg: "ES256", kid: es.kid, typ: "JOSE" })
          )
          app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: () => handler.getAgentCard() }))
          return base
        })

      const plain = yield* serve(false)
      const client = yield* resolveWith(plain, { keys: [es.publicJwk], requireSignature: true })
      assert.strictEqual(client.card.name, "SDK signed agent")
      const other = yield* keyPair("sdk-key", "ES256")
      assert.strictEqual((yield* refusal(resolveWith(plain, { keys: [other.publicJwk] }))).reason, "InvalidSignature")
      assert.strictEqual(
        (yield* refusal(resolveWith(plain, { keys: [es.publicJwk], sdkForm: "never" }))).reason,
        "InvalidSignature"
      )

      // The SDK's signature leaves security schemes out: such a card is taken only when told to. (Built here, not
      // served: the SDK's card route loses the security schemes of its in-memory card the same way.)
      const internal = sdkCard("http://127.0.0.1:1", true)
      const signed = yield* Effect.promise(() =>
        generateAgentCardSignature(es.privateKey, { alg: "ES256", kid: es.kid, typ: "JOSE" })(internal)
      )
      const json = { ...SdkAgentCard.toJSON(internal) as object, signatures: signed.signatures }
      const unsigned = yield* refusal(verifyJson({ keys: [es.publicJwk] }, json))
      assert.include(unsigned.message, "security schemes unsigned")
      yield* verifyJson({ keys: [es.publicJwk], sdkForm: "always" }, json).pipe(Effect.provide(FetchHttpClient.layer))
    }).pipe(Effect.scoped))

  it.live("refuses what it must, with the reason", () =>
    Effect.gen(function*() {
      const es = yield* keyPair("k1", "ES256")
      const rotated = yield* keyPair("k2", "ES256")
      let published: ReadonlyArray<jose.JWK> = [es.publicJwk]
      const jwks = yield* JwksServer.serve(() => published)
      const signer = yield* CardSigner.make({ key: es.privateJwk as CardSigner.PrivateJwk, jku: jwks.url })
      const card = yield* signer.sign({ ...DemoAgent.card, supportedInterfaces: [] })
      const trustAll = { jku: () => true }

      yield* verifyJson(trustAll, card)
      const reason = (options: CardVerifier.Options, json: unknown, url?: string) =>
        Effect.map(refusal(verifyJson(options, json, url)), (error) => error.reason)

      assert.strictEqual(yield* reason(trustAll, { ...card, name: "Tampered" }), "InvalidSignature")
      const impostor = yield* keyPair("k1", "ES256")
      assert.strictEqual(yield* reason({ keys: [impostor.publicJwk], jku: false }, card), "InvalidSignature")
      assert.strictEqual(yield* reason({ keys: [rotated.publicJwk], jku: false }, card), "KeyNotFound")
      // default policy: a jku on another origin than the card's is not fetched
      assert.strictEqual(yield* reason({}, card), "KeyNotFound")

      const sig = card.signatures![0]!
      const forged = (header: Record<string, unknown>) => ({
        ...card,
        signatures: [{ protected: jose.base64url.encode(JSON.stringify(header)), signature: sig.signature }]
      })
      assert.strictEqual(
        yield* reason(trustAll, forged({ alg: "none", kid: "k1", typ: "JOSE" })),
        "UnsupportedAlgorithm"
      )
      assert.strictEqual(
        yield* reason(trustAll, forged({ alg: "HS256", kid: "k1", typ: "JOSE" })),
        "UnsupportedAlgorithm"
      )
      assert.strictEqual(yield* reason(trustAll, forged({ alg: "ES256", typ: "JOSE" })), "Malformed")
      assert.strictEqual(
        yield* reason(trustAll, { ...card, signatures: [{ protected: "%%%", signature: "x" }] }),
        "Malformed"
      )

      const unreachable = yield* CardSigner.make({
        key: es.privateJwk as CardSigner.PrivateJwk,
        jku: "http://127.0.0.1:1/jwks.json"
      })
      const offline = yield* unreachable.sign({ ...DemoAgent.card, supportedInterfaces: [] })
      assert.strictEqual(yield* reason(trustAll, offline), "KeySetUnavailable")

      const { signatures: _, ...unsigned } = card
      yield* verifyJson({}, unsigned)
      assert.strictEqual(yield* reason({ requireSignature: true }, unsigned), "Unsigned")
      // enforce: false logs and goes on
      yield* verifyJson({ ...trustAll, enforce: false }, { ...card, name: "Tampered" }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )

      // key rotation: the JWKS at jku is fetched again for a kid the cached one lacks
      const verifier = yield* CardVerifier.make(trustAll)
      yield* verifier.verify({ json: card, url: "http://127.0.0.1:1/card.json" })
      published = [es.publicJwk, rotated.publicJwk]
      const next = yield* (yield* CardSigner.make({ key: rotated.pem, kid: "k2", jku: jwks.url })).sign(card)
      const before = jwks.fetches()
      yield* verifier.verify({ json: next, url: "http://127.0.0.1:1/card.json" })
      assert.isAbove(jwks.fetches(), before)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})
