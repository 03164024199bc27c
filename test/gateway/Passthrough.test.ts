/**
 * An agent of kind `rest-passthrough` at the gateway: a plain JSON endpoint (node:http on 127.0.0.1) registered with
 * a credential, served under /agents/{name} with a card saying it is a passthrough; a message's data part is POSTed
 * raw with the credential's header, and the raw answer is the reply; its preview is that raw POST, the credential
 * masked, nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as RestPassthrough from "../../src/gateway/RestPassthrough.ts"
import { json, serve } from "../client/TestServer.ts"
import { call, KEY, startGateway } from "./GatewayPeers.ts"

describe("gateway REST passthrough", () => {
  it.live("a plain JSON endpoint served as an agent, its credential sent as a header, never shown", () =>
    Effect.gen(function*() {
      const endpoint = yield* serve((req, res) =>
        json(res, 200, { got: JSON.parse(req.body), auth: !!req.headers["authorization"] })
      )
      const gateway = yield* startGateway(Gateway.layerMemory, { secretKeys: [KEY] })
      const registered = yield* call(`${gateway.url}/admin/agents`, {
        body: {
          url: `${endpoint.url}/score`,
          name: "score",
          kind: "rest-passthrough",
          credentials: { bearer: "ep-secret" }
        }
      })
      assert.strictEqual(registered.status, 201, registered.text)
      assert.strictEqual(registered.body.kind, "rest-passthrough")
      assert.notInclude(registered.text, "ep-secret")

      const card = yield* call(`${gateway.url}/agents/score/.well-known/agent-card.json`)
      assert.strictEqual(card.status, 200)
      assert.deepStrictEqual(card.body.skills[0].tags, [RestPassthrough.TAG])
      assert.notInclude(card.text, endpoint.url)

      const sent = yield* call(`${gateway.url}/agents/score`, {
        token: null,
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "SendMessage",
          params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ data: { order: 42 } }] } }
        }
      })
      const result = sent.body?.result
      const parts = result?.message?.parts ?? result?.task?.status?.message?.parts ??
        result?.task?.artifacts?.[0]?.parts
      assert.deepStrictEqual(parts?.[0]?.data, { got: { order: 42 }, auth: true }, sent.text)
      assert.strictEqual(endpoint.requests[0]!.headers["authorization"], "Bearer ep-secret")
      assert.strictEqual(endpoint.requests[0]!.url, "/score")

      // preview: the exact raw POST, its credential masked, nothing sent
      const sentBefore = endpoint.requests.length
      const preview = yield* call(`${gateway.url}/admin/agents/score/preview`, {
        body: { message: { messageId: "m", role: "ROLE_USER", parts: [{ data: { order: 7 } }] } }
      })
      assert.strictEqual(preview.status, 200, preview.text)
      assert.notInclude(preview.text, "ep-secret")
      assert.deepStrictEqual(
        [preview.body.name, preview.body.url, preview.body.kind],
        ["score", `${endpoint.url}/score`, "rest-passthrough"]
      )
      assert.deepStrictEqual(preview.body.request, {
        method: "POST",
        url: `${endpoint.url}/score`,
        headers: {
          authorization: "Bearer ***",
          accept: "application/json, */*;q=0.5",
          "content-type": "application/json",
          "content-length": "11"
        },
        body: { order: 7 }
      })
      const text = yield* call(`${gateway.url}/admin/agents/score/preview`, {
        body: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hello" }] } }
      })
      assert.strictEqual(text.body.request.body, "hello")
      const nothing = yield* call(`${gateway.url}/admin/agents/score/preview`, {
        body: { message: { messageId: "m", role: "ROLE_USER", parts: [{ url: "https://example.com/f.pdf" }] } }
      })
      assert.strictEqual(nothing.status, 400, nothing.text)
      assert.strictEqual(nothing.body.error.reason, "InvalidInput")
      assert.include(nothing.body.error.message, "data part or text")
      assert.strictEqual(endpoint.requests.length, sentBefore)
    }).pipe(Effect.scoped))
})
