/**
 * Credentials the gateway sends upstream, by the card's schemes, end to end: an OAuth 2.0 client credentials grant
 * (token obtained from the card's token URL, reused, obtained again after the agent refuses it), and an API key in
 * the query (masked in the preview).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Gateway from "../../src/gateway/Gateway.ts"
import { cardFor, json, rpcId, serve } from "../client/TestServer.ts"
import { call, startGateway } from "./GatewayPeers.ts"

const msg = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] })
const send = (text: string) => ({
  token: null,
  body: { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: msg(text) } }
})

describe("gateway credentials upstream", () => {
  it.live("OAuth 2 client credentials: a token from the card's token URL, reused, renewed after a 401", () =>
    Effect.gen(function*() {
      let base = ""
      let issued = 0
      let valid = ""
      const upstream = yield* serve((req, res) => {
        if (req.url === "/token") {
          assert.include(req.body, "grant_type=client_credentials")
          valid = `tok-${++issued}`
          return json(res, 200, { access_token: valid, token_type: "Bearer", expires_in: 3600 })
        }
        if (req.method === "GET") {
          return json(
            res,
            200,
            cardFor([{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }], {
              securitySchemes: {
                oauth: {
                  oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: `${base}/token`, scopes: {} } } }
                }
              },
              securityRequirements: [{ schemes: { oauth: { list: [] } } }]
            })
          )
        }
        if (req.headers["authorization"] !== `Bearer ${valid}`) return json(res, 401, { error: "invalid_token" })
        const reply = { message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: `ok with ${valid}` }] } }
        json(res, 200, { jsonrpc: "2.0", id: rpcId(req.body), result: reply })
      })
      base = upstream.url
      const gateway = yield* startGateway(Gateway.layerMemory)
      const registered = yield* call(`${gateway.url}/admin/agents`, {
        body: { url: upstream.url, name: "oauth", credentials: { oauth2: { clientId: "gw", clientSecret: "cs-1" } } }
      })
      assert.strictEqual(registered.status, 201, registered.text)
      assert.deepStrictEqual(registered.body.credentials.oauth2.clientSecret, "***")

      const first = yield* call(`${gateway.url}/agents/oauth`, send("a"))
      assert.strictEqual(first.body?.result?.message?.parts[0].text, "ok with tok-1", first.text)
      const second = yield* call(`${gateway.url}/agents/oauth`, send("b"))
      assert.strictEqual(second.body?.result?.message?.parts[0].text, "ok with tok-1")
      valid = "revoked" // the agent no longer takes tok-1: the gateway gets a new token and sends once more
      const third = yield* call(`${gateway.url}/agents/oauth`, send("c"))
      assert.strictEqual(third.body?.result?.message?.parts[0].text, "ok with tok-2", third.text)
      assert.strictEqual(issued, 2)
    }).pipe(Effect.scoped))

  it.live("an API key in the query: sent upstream, masked in the preview", () =>
    Effect.gen(function*() {
      let base = ""
      const upstream = yield* serve((req, res) => {
        if (req.method === "GET") {
          return json(
            res,
            200,
            cardFor([{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }], {
              securitySchemes: { key: { apiKeySecurityScheme: { location: "query", name: "key" } } }
            })
          )
        }
        const ok = req.url.includes("key=k-secret-1")
        const reply = { message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: ok ? "keyed" : "no key" }] } }
        json(res, 200, { jsonrpc: "2.0", id: rpcId(req.body), result: reply })
      })
      base = upstream.url
      const gateway = yield* startGateway(Gateway.layerMemory)
      yield* call(`${gateway.url}/admin/agents`, {
        body: { url: upstream.url, name: "keyed", credentials: { apiKey: "k-secret-1" } }
      })
      const sent = yield* call(`${gateway.url}/agents/keyed`, send("x"))
      assert.strictEqual(sent.body?.result?.message?.parts[0].text, "keyed", sent.text)
      const preview = yield* call(`${gateway.url}/admin/agents/keyed/preview`, { body: { message: msg("x") } })
      assert.strictEqual(preview.body.request.url, `${upstream.url}/rpc?key=***`)
      assert.notInclude(preview.text, "k-secret-1")
    }).pipe(Effect.scoped))
})
