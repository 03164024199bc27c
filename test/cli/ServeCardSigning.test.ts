/**
 * `effect-a2a serve` with A2A_CARD_SIGNING_KEY (a PEM file) and A2A_CARD_SIGNING_KID / _JKU signs its card, which
 * our client verifies against the public key; a key file that is not a private key stops the start with one line.
 * Without a JKU, the server publishes the key itself and `effect-a2a card --verify` checks the card with it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as jose from "jose"
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as CardVerifier from "../../src/client/CardVerifier.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

/** A fresh ES256 key pair, its private key written as a PKCS#8 PEM file in a fresh folder. */
const signingKey = Effect.gen(function*() {
  const dir = mkdtempSync(join(tmpdir(), "a2a-card-key-"))
  const { privateKey, publicKey } = yield* Effect.promise(() => jose.generateKeyPair("ES256", { extractable: true }))
  const pemFile = join(dir, "card.pem")
  writeFileSync(pemFile, yield* Effect.promise(() => jose.exportPKCS8(privateKey)))
  return { dir, pemFile, publicKey }
})

describe("serve: card signing from the environment", () => {
  it.live(
    "signs the card with the configured key; a bad key is a one-line start-up error",
    () =>
      Effect.gen(function*() {
        const { dir, pemFile, publicKey } = yield* signingKey
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

  it.live(
    "with no JKU the key is published beside the card: `card --verify` passes, refuses an unsigned card; --key",
    () =>
      Effect.gen(function*() {
        const { dir, pemFile, publicKey } = yield* signingKey
        const signed = yield* ServeProcess.start(
          { A2A_CARD_SIGNING_KEY: pemFile, A2A_CARD_SIGNING_KID: "cli-key" },
          ["--memory"]
        )
        const unsigned = yield* ServeProcess.start({}, ["--memory"])

        const verified = yield* cli(["card", signed.base, "--verify"])
        assert.strictEqual(verified.code, 0, verified.stderr)
        assert.include(verified.stdout, "Signature: verified")

        const refused = yield* cli(["card", unsigned.base, "--verify"])
        assert.notStrictEqual(refused.code, 0)
        assert.include(refused.stderr, "AgentCardSignatureError")
        assert.include(refused.stderr, "the card is not signed")
        assert.strictEqual(refused.stdout, "")
        // without --verify the unsigned card is shown
        assert.strictEqual((yield* cli(["card", unsigned.base])).code, 0)

        // --key: the key given, not the card's jku; a JWK or a JWKS file, each key with its kid
        const jwk = { ...(yield* Effect.promise(() => jose.exportJWK(publicKey))), kid: "cli-key" }
        const keyFile = join(dir, "card.jwk.json")
        writeFileSync(keyFile, JSON.stringify(jwk))
        const withKey = yield* cli(["card", signed.base, "--key", keyFile])
        assert.strictEqual(withKey.code, 0, withKey.stderr)
        assert.include(withKey.stdout, "Signature: verified")
        const other = yield* Effect.promise(() => jose.generateKeyPair("ES256", { extractable: true }))
        const otherFile = join(dir, "other.jwks.json")
        writeFileSync(
          otherFile,
          JSON.stringify({
            keys: [{ ...(yield* Effect.promise(() => jose.exportJWK(other.publicKey))), kid: "cli-key" }]
          })
        )
        const wrongKey = yield* cli(["card", signed.base, "--key", otherFile])
        assert.notStrictEqual(wrongKey.code, 0)
        assert.include(wrongKey.stderr, "does not match the card")
        const { kid: _, ...unnamed } = jwk
        const unnamedFile = join(dir, "unnamed.jwk.json")
        writeFileSync(unnamedFile, JSON.stringify(unnamed))
        const noKid = yield* cli(["card", signed.base, "--key", unnamedFile])
        assert.notStrictEqual(noKid.code, 0)
        assert.include(noKid.stderr, "a key has no kid")
        const notJson = join(dir, "card.pem.json")
        writeFileSync(notJson, "-----BEGIN PUBLIC KEY-----")
        const unreadable = yield* cli(["card", signed.base, "--key", notJson])
        assert.notStrictEqual(unreadable.code, 0)
        assert.include(unreadable.stderr, `--key ${notJson}: not JSON`)
        const missing = yield* cli(["card", signed.base, "--key", join(dir, "missing.json")])
        assert.notStrictEqual(missing.code, 0)
        assert.include(missing.stderr, "missing.json")
      }).pipe(Effect.scoped),
    60_000
  )
})

/** `effect-a2a` (the package's bin) as a process. */
const cli = (args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [ServeProcess.BIN, ...args],
      { timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
    return Effect.sync(() => child.kill())
  })
