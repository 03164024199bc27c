/**
 * OAuth 2 client credentials end to end: a token endpoint on 127.0.0.1 minting JWTs, our server verifying them
 * (JwtAuth against the endpoint's JWKS) and advertising the flow on its card, and our client obtaining the token
 * from the card's tokenUrl, keeping it until near expiry, obtaining a new one once when the agent answers 401, and
 * failing with a typed error when the token endpoint refuses the client.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Redacted } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as jose from "jose"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { A2ACredentialError } from "../../src/client/A2AClientError.ts"
import * as Messages from "../../src/client/Messages.ts"
import * as OAuth2ClientCredentials from "../../src/client/OAuth2ClientCredentials.ts"
import * as JwtAuth from "../../src/server/JwtAuth.ts"
import { serveDemo } from "./OurServer.ts"

const ISSUER = "https://issuer.test/"
const AUDIENCE = "https://agent.test"
const CLIENT_ID = "agent-b"
const SECRET = "s3cret:with spaces&more"

interface Issuer {
  readonly url: string
  readonly tokenUrl: string
  /** Token requests answered so far. */
  readonly issued: () => number
  /** What the next tokens are: their audience and lifetime. */
  readonly mode: { audience: string; expiresIn: number | undefined }
}

/** A JWKS and a token endpoint (client_secret_basic, grant_type client_credentials) on 127.0.0.1. */
const issuer = Effect.gen(function*() {
  const { privateKey, publicKey } = yield* Effect.promise(() => jose.generateKeyPair("ES256"))
  const jwk = { ...(yield* Effect.promise(() => jose.exportJWK(publicKey))), kid: "k1", alg: "ES256", use: "sig" }
  const mode = { audience: AUDIENCE, expiresIn: 300 as number | undefined }
  let issued = 0
  const server = createServer((req, res) => {
    if (req.url === "/jwks.json") {
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify({ keys: [jwk] }))
    }
    let body = ""
    req.on("data", (chunk: Buffer) => (body += chunk.toString()))
    req.on("end", () => {
      const form = new URLSearchParams(body)
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1]
      const [id, secret] = Buffer.from(basic ?? "", "base64").toString().split(":").map((part) =>
        decodeURIComponent(part.replace(/\+/g, " "))
      )
      const answer = (status: number, json: object) => {
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify(json))
      }
      if (req.method !== "POST" || form.get("grant_type") !== "client_credentials") {
        return answer(400, { error: "unsupported_grant_type" })
      }
      if (id !== CLIENT_ID || secret !== SECRET) {
        return answer(401, { error: "invalid_client", error_description: "Unknown client or wrong secret" })
      }
      issued++
      void new jose.SignJWT({ scope: form.get("scope") ?? "" })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setSubject(id)
        .setIssuer(ISSUER)
        .setAudience(mode.audience)
        .setIssuedAt()
        .setExpirationTime("5 minutes")
        .sign(privateKey)
        .then((token) =>
          answer(200, {
            access_token: token,
            token_type: "Bearer",
            ...(mode.expiresIn !== undefined ? { expires_in: mode.expiresIn } : {})
          })
        )
    })
  })
  const url = yield* Effect.acquireRelease(
    Effect.callback<string>((resume) => {
      server.listen(
        0,
        "127.0.0.1",
        () => resume(Effect.succeed(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
      )
    }),
    () => Effect.sync(() => server.close())
  )
  return { url, tokenUrl: `${url}/token`, issued: () => issued, mode } satisfies Issuer
})

/** Our demo server verifying the issuer's JWTs, advertising its token endpoint. */
const agentFor = (idp: Issuer) =>
  Effect.gen(function*() {
    const auth = yield* JwtAuth.make({
      jwksUrl: `${idp.url}/jwks.json`,
      issuer: ISSUER,
      audience: AUDIENCE,
      tokenUrl: idp.tokenUrl,
      scopes: { "a2a.call": "Call the agent" }
    })
    return (yield* serveDemo({ auth })).url
  })

const clientFor = (url: string, secret: string = SECRET, options: Partial<OAuth2ClientCredentials.Options> = {}) =>
  A2AClient.resolve(url, {
    credentials: {
      oauth2: OAuth2ClientCredentials.credential({
        clientId: CLIENT_ID,
        clientSecret: Redacted.make(secret),
        scopes: ["a2a.call"],
        ...options
      })
    },
    retry: false
  })

const hello = { message: Messages.userText("hello") }

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => {
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  return reason !== undefined && reason._tag === "Fail" ? reason.error : undefined
}

describe("OAuth 2 client credentials", () => {
  it.live("obtains a token from the card's token URL, keeps it, and calls the JWT-verifying agent with it", () =>
    Effect.gen(function*() {
      const idp = yield* issuer
      const url = yield* agentFor(idp)
      const client = yield* clientFor(url)
      assert.deepStrictEqual(client.card.securitySchemes?.["oauth2"], {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl: idp.tokenUrl, scopes: { "a2a.call": "Call the agent" } } }
        }
      })
      assert.strictEqual(idp.issued(), 0, "no token before the first call")
      const reply = yield* client.sendMessage(hello)
      assert.isTrue("message" in reply)
      const task = yield* client.sendMessage({ message: Messages.userText("task report") })
      assert.isTrue("task" in task)
      assert.strictEqual(idp.issued(), 1, "the token is kept")
      // tasks are scoped by the token's subject
      const listed = yield* client.listTasks()
      assert.isTrue(listed.tasks.length > 0)

      // a token about to expire (within the margin) is renewed before each call
      idp.mode.expiresIn = 10
      const renewing = yield* clientFor(url)
      yield* renewing.sendMessage(hello)
      yield* renewing.sendMessage(hello)
      assert.strictEqual(idp.issued(), 3)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("a token the agent refuses (401) is replaced once; a refusal of the new one is the agent's answer", () =>
    Effect.gen(function*() {
      const idp = yield* issuer
      const url = yield* agentFor(idp)
      idp.mode.audience = "https://someone-else.test"
      const client = yield* clientFor(url)
      const first = yield* Effect.exit(client.sendMessage(hello))
      // the issuer mints tokens for another audience: the first token is refused, so is the one obtained after it
      assert.strictEqual(failureOf(first)?._tag, "Unauthenticated")
      assert.strictEqual(idp.issued(), 2, "one new token, not more")

      // a client holding a refused token, once the issuer mints tokens for this agent: replaced, and the call goes through
      const second = yield* clientFor(url)
      yield* Effect.exit(second.getTask({ id: "none" }))
      idp.mode.audience = AUDIENCE
      const before = idp.issued()
      const reply = yield* second.sendMessage(hello)
      assert.isTrue("message" in reply)
      assert.strictEqual(idp.issued(), before + 1)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("a token endpoint that refuses the client, or is down, is a typed error; nothing is sent to the agent", () =>
    Effect.gen(function*() {
      const idp = yield* issuer
      const url = yield* agentFor(idp)
      const wrong = yield* clientFor(url, "not-the-secret")
      const refused = failureOf(yield* Effect.exit(wrong.sendMessage(hello)))
      assert.strictEqual(refused?._tag, "A2ATransportError")
      assert.strictEqual(refused?._tag === "A2ATransportError" ? refused.reason : undefined, "CredentialUnavailable")
      assert.include(refused?.message, "invalid_client")
      assert.include(refused?.message, "Unknown client or wrong secret")
      assert.notInclude(refused?.message, "not-the-secret")
      const cause = refused?._tag === "A2ATransportError" ? refused.cause : undefined
      assert.strictEqual((cause as { _tag?: string } | undefined)?._tag, "A2ACredentialError")

      const down = yield* clientFor(url, SECRET, { tokenUrl: "http://127.0.0.1:1/token", timeout: Duration.seconds(5) })
      const unreachable = failureOf(yield* Effect.exit(down.sendMessage(hello)))
      assert.strictEqual(
        unreachable?._tag === "A2ATransportError" ? unreachable.reason : undefined,
        "CredentialUnavailable"
      )
      assert.strictEqual(idp.issued(), 0)

      // any credential Effect may fail the same way; an idempotent call is not retried for it
      let asked = 0
      const failing = yield* A2AClient.resolve(url, {
        credentials: {
          oauth2: Effect.suspend(() => {
            asked++
            return Effect.fail(new A2ACredentialError({ scheme: "oauth2", message: "vault sealed" }))
          })
        }
      })
      const sealed = failureOf(yield* Effect.exit(failing.getTask({ id: "t-1" })))
      assert.strictEqual(sealed?._tag === "A2ATransportError" ? sealed.reason : undefined, "CredentialUnavailable")
      assert.strictEqual(sealed?.message, "vault sealed")
      assert.strictEqual(asked, 1)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})
