/**
 * The registry through the admin API: bad input is a 4xx naming the problem and leaves nothing behind; credentials
 * are sealed at rest (refused without a key), never echoed; a gateway restarted on its SQLite file keeps its
 * registry; the admin API needs its token; preview shows the upstream request with secrets masked, sending nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as OurServer from "../client/OurServer.ts"
import { json, serve } from "../client/TestServer.ts"
import { freePort } from "../mcp/GatewayPeers.ts"
import { ADMIN, call, KEY, startGateway } from "./GatewayPeers.ts"

const tempDb = () => join(mkdtempSync(join(tmpdir(), "gateway-")), "gateway.db")

describe("gateway registry", () => {
  it.live("bad input is a clear 4xx and nothing half-registered", () =>
    Effect.gen(function*() {
      const upstream = yield* OurServer.start()
      const notACard = yield* serve((_req, res) => json(res, 200, { hello: "world" }))
      const port = yield* freePort
      const gateway = yield* startGateway(Gateway.layerMemory)
      const admin = `${gateway.url}/admin/agents`

      const noUrl = yield* call(admin, { body: { name: "x" } })
      assert.strictEqual(noUrl.status, 400)
      assert.include(noUrl.body.error.message, "url")
      const emptyUrl = yield* call(admin, { body: { url: "" } })
      assert.strictEqual(emptyUrl.status, 400)
      assert.strictEqual(emptyUrl.body.error.reason, "InvalidInput")
      const notJson = yield* Effect.promise(() =>
        fetch(admin, { method: "POST", headers: { authorization: `Bearer ${ADMIN}` }, body: "{nope" })
      )
      assert.strictEqual(notJson.status, 400)

      const unreachable = yield* call(admin, { body: { url: `http://127.0.0.1:${port}` } })
      assert.strictEqual(unreachable.status, 422)
      assert.strictEqual(unreachable.body.error.reason, "Unreachable")
      assert.include(unreachable.body.error.message, `127.0.0.1:${port}`)

      const badCard = yield* call(admin, { body: { url: notACard.url } })
      assert.strictEqual(badCard.status, 422)
      assert.strictEqual(badCard.body.error.reason, "InvalidCard")

      const badName = yield* call(admin, { body: { url: upstream.url, name: "no/slashes" } })
      assert.strictEqual(badName.status, 400)

      const first = yield* call(admin, { body: { url: upstream.url, name: "demo" } })
      assert.strictEqual(first.status, 201, first.text)
      const duplicate = yield* call(admin, { body: { url: upstream.url, name: "demo" } })
      assert.strictEqual(duplicate.status, 409)
      assert.include(duplicate.body.error.message, "demo")

      const passthrough = yield* call(admin, {
        body: {
          url: upstream.url,
          name: "rest",
          kind: "rest-passthrough",
          credentials: { oauth2: { clientId: "a", clientSecret: "b" } }
        }
      })
      assert.strictEqual(passthrough.status, 400)
      assert.include(passthrough.body.error.message, "passthrough")

      const wrongCredential = yield* call(admin, {
        body: { url: upstream.url, name: "c", credentials: { apiKey: "k" } }
      })
      assert.strictEqual(wrongCredential.status, 400)
      assert.include(wrongCredential.body.error.message, "apiKey")

      const listed = yield* call(admin)
      assert.deepStrictEqual(listed.body.agents.map((a: { name: string }) => a.name), ["demo"])

      const removed = yield* call(`${admin}/demo`, { method: "DELETE" })
      assert.deepStrictEqual([removed.status, removed.body.name, removed.body.kind], [200, "demo", "a2a"])
      assert.strictEqual((yield* call(`${admin}/demo`)).status, 404)
      assert.strictEqual((yield* call(`${gateway.url}/agents/demo/.well-known/agent-card.json`)).status, 404)
    }).pipe(Effect.scoped))

  it.live("the admin API needs its token, and is off without one", () =>
    Effect.gen(function*() {
      const gateway = yield* startGateway(Gateway.layerMemory)
      assert.strictEqual((yield* call(`${gateway.url}/admin/agents`, { token: null })).status, 401)
      assert.strictEqual((yield* call(`${gateway.url}/admin/agents`, { token: "wrong" })).status, 401)
      const off = yield* startGateway(Gateway.layerMemory, { adminToken: undefined })
      const refused = yield* call(`${off.url}/admin/agents`)
      assert.strictEqual(refused.status, 403)
    }).pipe(Effect.scoped))

  it.live("credentials are sealed at rest, refused without a key, never echoed; a restart keeps the registry", () =>
    Effect.gen(function*() {
      const upstream = yield* OurServer.start({ secured: true })
      const filename = tempDb()
      const body = { url: upstream.url, name: "secured", credentials: { bearer: OurServer.TOKEN } }

      const unsealed = yield* Effect.scoped(Effect.gen(function*() {
        const gateway = yield* startGateway(Gateway.layerSqlite(filename))
        return yield* call(`${gateway.url}/admin/agents`, { body })
      }))
      assert.strictEqual(unsealed.status, 400)
      assert.strictEqual(unsealed.body.error.reason, "SealingKeyMissing")

      yield* Effect.scoped(Effect.gen(function*() {
        const gateway = yield* startGateway(Gateway.layerSqlite(filename), { secretKeys: [KEY] })
        const registered = yield* call(`${gateway.url}/admin/agents`, { body })
        assert.strictEqual(registered.status, 201, registered.text)
      }))
      const file = readFileSync(filename)
      assert.isFalse(file.includes(OurServer.TOKEN), "the database file holds the token in clear")
      assert.isTrue(file.includes("a2a-sealed:v1:"))

      // restarted on the same file: the agent is there, and its sealed credential still opens
      const gateway = yield* startGateway(Gateway.layerSqlite(filename), { secretKeys: [KEY] })
      const listed = yield* call(`${gateway.url}/admin/agents`)
      assert.deepStrictEqual(listed.body.agents.map((a: { name: string }) => a.name), ["secured"])
      assert.notInclude(listed.text, OurServer.TOKEN)
      const one = yield* call(`${gateway.url}/admin/agents/secured`)
      assert.strictEqual(one.body.health.reachable, true)
      assert.isNumber(one.body.health.latencyMillis)
      assert.isString(one.body.health.lastCardFetch)
      const sent = yield* call(`${gateway.url}/agents/secured`, {
        token: null,
        body: { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: msg("hi") } }
      })
      assert.strictEqual(sent.body?.result?.message?.parts[0].text, "Echo: hi", sent.text)
      assert.notInclude(sent.text, OurServer.TOKEN)
    }).pipe(Effect.scoped))

  it.live("preview shows the exact upstream request, secrets masked, and sends nothing", () =>
    Effect.gen(function*() {
      const upstream = yield* OurServer.start({ secured: true })
      const gateway = yield* startGateway(Gateway.layerMemory)
      yield* call(`${gateway.url}/admin/agents`, {
        body: { url: upstream.url, name: "p", credentials: { bearer: OurServer.TOKEN } }
      })
      const preview = yield* call(`${gateway.url}/admin/agents/p/preview`, { body: { message: msg("hello") } })
      assert.strictEqual(preview.status, 200, preview.text)
      assert.notInclude(preview.text, OurServer.TOKEN)
      const request = preview.body.request
      assert.strictEqual(request.method, "POST")
      assert.strictEqual(request.url, `${upstream.url}/`)
      assert.strictEqual(request.headers.authorization, "Bearer ***")
      assert.strictEqual(request.body.method, "SendMessage")
      assert.strictEqual(request.body.params.message.parts[0].text, "hello")
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents/none/preview`, { body: { message: msg("x") } })).status,
        404
      )
    }).pipe(Effect.scoped))
})

const msg = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] })
