/** Auth implementations: what each accepts, what it rejects (Unauthenticated), and what the card advertises. */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as AgentCardConfig from "../../src/server/AgentCardConfig.ts"
import * as Auth from "../../src/server/Auth.ts"
import { baseCard } from "./support.ts"

const headers = (h: Record<string, string>): Auth.AuthRequest => ({ headers: h })

describe("Auth", () => {
  it.effect("none: everyone is the anonymous principal; the card advertises no security", () =>
    Effect.gen(function*() {
      const p = yield* Auth.none.authenticate(headers({ authorization: "Bearer whatever" }))
      assert.deepStrictEqual(p, Auth.anonymous)
      const card = AgentCardConfig.make({ card: baseCard }, Auth.none).publicCard([])
      assert.isFalse("securitySchemes" in card)
      assert.isFalse("securityRequirements" in card)
    }))

  it.effect("bearer: a known token is its principal; missing, malformed or unknown tokens are Unauthenticated", () =>
    Effect.gen(function*() {
      const auth = Auth.bearer({ tokens: { "t-alice": "alice", "t-bob": "bob" }, bearerFormat: "opaque" })
      assert.deepStrictEqual(yield* auth.authenticate(headers({ authorization: "Bearer t-alice" })), {
        id: "alice",
        anonymous: false,
        scheme: "bearer"
      })
      assert.strictEqual((yield* auth.authenticate(headers({ authorization: "bearer   t-bob " }))).id, "bob")
      const missing = yield* Effect.flip(auth.authenticate(headers({})))
      assert.strictEqual(missing._tag, "Unauthenticated")
      assert.match(missing.message, /Missing bearer token/)
      assert.strictEqual(missing.metadata?.["wwwAuthenticate"], `Bearer realm="a2a"`)
      const basic = yield* Effect.flip(auth.authenticate(headers({ authorization: "Basic dXNlcjpwdw==" })))
      assert.match(basic.message, /not a bearer token/)
      const wrong = yield* Effect.flip(auth.authenticate(headers({ authorization: "Bearer t-alicex" })))
      assert.match(wrong.message, /Invalid bearer token/)
      const card = AgentCardConfig.make({ card: baseCard }, auth).publicCard([])
      assert.deepStrictEqual(card.securitySchemes, {
        bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "opaque" } }
      })
      assert.deepStrictEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }])
    }))

  it.effect("apiKey: read from the declared header, query parameter or cookie", () =>
    Effect.gen(function*() {
      const inHeader = Auth.apiKey({ keys: { k1: "carol" } })
      assert.strictEqual((yield* inHeader.authenticate(headers({ "x-api-key": "k1" }))).id, "carol")
      assert.strictEqual(
        (yield* Effect.flip(inHeader.authenticate(headers({ "x-api-key": "k2" })))).message,
        "Invalid API key"
      )
      assert.match((yield* Effect.flip(inHeader.authenticate(headers({})))).message, /Missing API key/)
      const inQuery = Auth.apiKey({ keys: new Map([["k1", "carol"]]), name: "key", location: "query" })
      assert.strictEqual((yield* inQuery.authenticate({ headers: {}, query: { key: "k1" } })).id, "carol")
      assert.strictEqual(
        (yield* Effect.flip(inQuery.authenticate({ headers: { key: "k1" }, query: {} })))._tag,
        "Unauthenticated"
      )
      const inCookie = Auth.apiKey({
        keys: { "k 1": "dave" },
        name: "session",
        location: "cookie",
        schemeName: "cookieKey"
      })
      assert.strictEqual((yield* inCookie.authenticate(headers({ cookie: "a=b; session=k%201; c=d" }))).id, "dave")
      const card = AgentCardConfig.make({ card: baseCard }, inCookie).publicCard([])
      assert.deepStrictEqual(card.securitySchemes, {
        cookieKey: { apiKeySecurityScheme: { location: "cookie", name: "session" } }
      })
    }))

  it.effect("layerConfig reads the mode and the credentials from configuration", () =>
    Effect.gen(function*() {
      const fromEnv = (env: Record<string, string>) =>
        Effect.gen(function*() {
          return yield* Auth.Auth
        }).pipe(
          Effect.provide(Auth.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))))
        )
      const none = yield* fromEnv({})
      assert.deepStrictEqual(yield* none.authenticate(headers({})), Auth.anonymous)
      const bearer = yield* fromEnv({ A2A_AUTH: "bearer", A2A_AUTH_TOKENS: "s3cret:alice, other:bob" })
      assert.strictEqual((yield* bearer.authenticate(headers({ authorization: "Bearer other" }))).id, "bob")
      const apikey = yield* fromEnv({
        A2A_AUTH: "apikey",
        A2A_AUTH_KEYS: "k:erin",
        A2A_AUTH_KEY_NAME: "token",
        A2A_AUTH_KEY_LOCATION: "query"
      })
      assert.strictEqual((yield* apikey.authenticate({ headers: {}, query: { token: "k" } })).id, "erin")
      const bad = yield* Effect.flip(fromEnv({ A2A_AUTH: "kerberos" }))
      assert.strictEqual(bad._tag, "ConfigError")
      const noTokens = yield* Effect.flip(fromEnv({ A2A_AUTH: "bearer" }))
      assert.strictEqual(noTokens._tag, "ConfigError")
    }))
})
