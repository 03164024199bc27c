/**
 * Bearer JWTs verified against a real JWKS endpoint on 127.0.0.1, with tokens minted here: the subject is the
 * caller; an expired token, another audience or issuer, an unknown key, an unsigned token (`alg: none`) and a
 * tampered one are Unauthenticated (HTTP 401 on the bindings); a rotated key is fetched when a token names it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as jose from "jose"
import * as JwtAuth from "../../src/server/JwtAuth.ts"
import * as JwksServer from "../fixtures/JwksServer.ts"

const ISSUER = "https://issuer.test/"
const AUDIENCE = "https://agent.test"

const keyPair = (kid: string) =>
  Effect.promise(async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair("ES256")
    return { kid, privateKey, jwk: { ...(await jose.exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } }
  })

type Key = Effect.Success<ReturnType<typeof keyPair>>

/** A JWKS endpoint serving whatever keys `current` holds when asked. */
const jwksServer = (current: () => ReadonlyArray<Key>) => JwksServer.serve(() => current().map((k) => k.jwk))

const mint = (
  key: Key,
  claims: { readonly sub?: string; readonly aud?: string; readonly iss?: string; readonly exp?: string | number } = {}
) =>
  Effect.promise(() =>
    new jose.SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: key.kid })
      .setSubject(claims.sub ?? "agent-b")
      .setIssuer(claims.iss ?? ISSUER)
      .setAudience(claims.aud ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? "5 minutes")
      .sign(key.privateKey)
  )

const headers = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

describe("JwtAuth", () => {
  it.live("verifies tokens against the issuer's keys; refuses what it must; follows a key rotation", () =>
    Effect.gen(function*() {
      const first = yield* keyPair("key-1")
      const second = yield* keyPair("key-2")
      let published: ReadonlyArray<Key> = [first]
      const jwks = yield* jwksServer(() => published)
      const auth = yield* JwtAuth.make({ jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, jwksCooldown: 0 })

      const principal = yield* auth.authenticate(headers(yield* mint(first)))
      assert.deepStrictEqual(principal, { id: "agent-b", anonymous: false, scheme: "oauth2" })
      assert.deepStrictEqual(auth.securitySchemes, {
        oauth2: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } }
      })

      const refused = (request: { headers: Record<string, string> }) =>
        Effect.map(Effect.exit(auth.authenticate(request)), (exit) => {
          assert.isTrue(Exit.isFailure(exit), "refused")
          const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
          const failure = error !== undefined && error._tag === "Fail" ? error.error : undefined
          assert.strictEqual(failure?._tag, "Unauthenticated")
          return failure?.message ?? ""
        })

      assert.include(yield* refused(headers(yield* mint(first, { exp: Math.floor(Date.now() / 1000) - 3600 }))), "exp")
      assert.include(yield* refused(headers(yield* mint(first, { aud: "https://other.test" }))), "aud")
      assert.include(yield* refused(headers(yield* mint(first, { iss: "https://evil.test/" }))), "iss")
      const unknown = yield* keyPair("key-9")
      assert.include(yield* refused(headers(yield* mint(unknown))), "key")
      const unsigned = new jose.UnsecuredJWT({ sub: "mallory" }).setIssuer(ISSUER).setAudience(AUDIENCE).encode()
      yield* refused(headers(unsigned))
      const token = yield* mint(first)
      const tampered = token.slice(0, token.lastIndexOf(".") + 1) + "AAAA" + token.slice(token.lastIndexOf(".") + 5)
      yield* refused(headers(tampered))
      assert.include(yield* refused({ headers: {} }), "Missing bearer token")

      // Rotation: the issuer publishes a new key; a token naming it makes the key set be fetched again.
      published = [second, first]
      const before = jwks.fetches()
      const rotated = yield* auth.authenticate(headers(yield* mint(second, { sub: "agent-c" })))
      assert.strictEqual(rotated.id, "agent-c")
      assert.isAbove(jwks.fetches(), before)
    }).pipe(Effect.scoped))
})
