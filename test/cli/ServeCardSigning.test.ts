/**
 * `effect-a2a serve` with A2A_CARD_SIGNING_KEY (a PEM file) and A2A_CARD_SIGNING_KID / _JKU signs its card, which
 * our client verifies against the public key; a key file that is not a private key stops the start with one line.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as jose from "jose"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as CardVerifier from "../../src/client/CardVerifier.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

describe("serve: card signing from the environment", () => {
  it.live(
    "signs the card with the configured key; a bad key is a one-line start-up error",
    () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(join(tmpdir(), "a2a-card-key-"))
        const { privateKey, publicKey } = yield* Effect.promise(() =>
          jose.generateKeyPair("ES256", { extractable: true })
        )
        const pemFile = join(dir, "card.pem")
        writeFileSync(pemFile, yield* Effect.promise(() => jose.exportPKCS8(privateKey)))
        const publicJwk = { kty: "EC", ...(yield* Effect.promise(() => jose.exportJWK(publicKey))), kid: "serve-key" }

        const node = yield* ServeProcess.start({
          A2A_CARD_SIGNING_KEY: pemFile,
          A2A_CARD_SIGNING_KID: "serve-key",
          A2A_CARD_SIGNING_JKU: "https://keys.example/jwks.json"
        }, ["--memory"])
        const client = yield* A2AClient.resolve(node.base).pipe(
          Effect.provide(
            CardVerifier.layer({ keys: [publicJwk], jku: false, requireSignature: true }).pipe(
              Layer.provideMerge(FetchHttpClient.layer)
            )
          )
        )
        const signature = client.card.signatures?.[0]
        assert.isDefined(signature)
        assert.deepStrictEqual(jose.decodeProtectedHeader(signature!), {
          alg: "ES256",
          typ: "JOSE",
          kid: "serve-key",
          jku: "https://keys.example/jwks.json"
        })

        const badFile = join(dir, "bad.pem")
        writeFileSync(badFile, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        const bad = yield* Effect.exit(ServeProcess.start({ A2A_CARD_SIGNING_KEY: badFile }, ["--memory"]))
        assert.isTrue(bad._tag === "Failure")
        assert.include(String(bad._tag === "Failure" ? bad.cause : ""), "CardSigningError: Agent card signing key")
      }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)),
    60_000
  )
})
