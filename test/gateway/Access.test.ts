/**
 * Who sees and calls which agent: the gateway's own Auth authenticates callers; an agent with an `allow` list
 * exists only for the principals it names (catalog, card, operations: 404 for everyone else); the catalog filters by
 * skill tag. And what the gateway does when an agent fails it: one that never answers, and one that goes down
 * mid-stream, give a clear error within the timeout (nothing hangs), and its health flips.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as OurServer from "../client/OurServer.ts"
import { cardFor, rpcId, serve } from "../client/TestServer.ts"
import * as SdkServer from "../interop/client/SdkServer.ts"
import { call, startGateway } from "./GatewayPeers.ts"

const auth = Auth.bearer({ tokens: { "alice-t": "alice", "bob-t": "bob" } })

const rpc = (method: string, params: unknown) => ({ body: { jsonrpc: "2.0", id: 1, method, params } })
const msg = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] })

describe("gateway access", () => {
  it.live("a principal never sees an agent it may not call", () =>
    Effect.gen(function*() {
      const demo = yield* OurServer.start()
      const sdk = yield* SdkServer.start
      const gateway = yield* startGateway(Gateway.layerMemory, {}, auth)
      const admin = `${gateway.url}/admin/agents`
      assert.strictEqual((yield* call(admin, { body: { url: demo.url, name: "open" } })).status, 201)
      assert.strictEqual(
        (yield* call(admin, { body: { url: sdk.url, name: "private", allow: ["alice"] } })).status,
        201
      )

      const names = (answer: { body: { agents: ReadonlyArray<{ name: string }> } }) =>
        answer.body.agents.map((a) => a.name)
      assert.deepStrictEqual(names(yield* call(`${gateway.url}/agents`, { token: "alice-t" })), ["open", "private"])
      assert.deepStrictEqual(names(yield* call(`${gateway.url}/agents`, { token: "bob-t" })), ["open"])
      assert.deepStrictEqual(names(yield* call(`${gateway.url}/agents`, { token: null })), ["open"])
      assert.deepStrictEqual(names(yield* call(`${gateway.url}/agents?skill=echo`, { token: "alice-t" })), ["private"])
      assert.deepStrictEqual(names(yield* call(`${gateway.url}/agents?skill=streaming`, { token: "alice-t" })), [
        "open"
      ])
      const entry = (yield* call(`${gateway.url}/agents`, { token: "alice-t" })).body.agents[1]
      assert.strictEqual(entry.url, `${gateway.url}/agents/private`)
      assert.strictEqual(entry.card.supportedInterfaces[0].url, `${gateway.url}/agents/private`)
      // the gateway's security, not the upstream's
      assert.deepStrictEqual(Object.keys(entry.card.securitySchemes), ["bearer"])

      const card = `${gateway.url}/agents/private/.well-known/agent-card.json`
      assert.strictEqual((yield* call(card, { token: "alice-t" })).status, 200)
      const hidden = yield* call(card, { token: "bob-t" })
      const nowhere = yield* call(`${gateway.url}/agents/nowhere/.well-known/agent-card.json`, { token: "bob-t" })
      assert.deepStrictEqual([hidden.status, nowhere.status], [404, 404])
      assert.strictEqual(hidden.body.error.status, nowhere.body.error.status)
      assert.strictEqual((yield* call(card, { token: null })).status, 404)

      const asBob = yield* call(`${gateway.url}/agents/private`, {
        token: "bob-t",
        ...rpc("SendMessage", { message: msg("x") })
      })
      assert.strictEqual(asBob.status, 404)
      const asAlice = yield* call(`${gateway.url}/agents/private`, {
        token: "alice-t",
        ...rpc("SendMessage", { message: msg("x") })
      })
      assert.strictEqual(asAlice.body.result.message.parts[0].text, "echo: x", asAlice.text)
      // an open agent still needs the gateway's credentials for its operations (its card is public)
      assert.strictEqual(
        (yield* call(`${gateway.url}/agents/open/.well-known/agent-card.json`, { token: null })).status,
        200
      )
      const anonymous = yield* call(`${gateway.url}/agents/open`, {
        token: null,
        ...rpc("SendMessage", { message: msg("x") })
      })
      assert.strictEqual(anonymous.status, 401)
    }).pipe(Effect.scoped))
})

describe("gateway and failing agents", () => {
  it.live("an agent that never answers, or goes down mid-stream: a clear error in time, health flips", () =>
    Effect.gen(function*() {
      let base = ""
      const upstream = yield* serve((req, res) => {
        if (req.method === "GET") {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify(cardFor([{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }])))
          return
        }
        if (req.body.includes("hang")) return // never answered
        const id = rpcId(req.body)
        res.writeHead(200, { "content-type": "text/event-stream" })
        const working = { task: { id: "t-1", contextId: "c", status: { state: "TASK_STATE_WORKING" } } }
        res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result: working })}\n\n`)
        setTimeout(() => res.destroy(), 50) // down mid-stream
      })
      base = upstream.url
      const gateway = yield* startGateway(Gateway.layerMemory, { timeout: Duration.seconds(1) })
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url, name: "flaky" } })).status,
        201
      )

      yield* Effect.gen(function*() {
        const client = yield* A2AClient.resolve(`${gateway.url}/agents/flaky`)
        const started = Date.now()
        const hung = yield* Effect.flip(client.sendMessage({ message: userText("hang") }))
        assert.isBelow(Date.now() - started, 5_000)
        assert.strictEqual(hung._tag, "Unavailable")
        assert.include(hung.message, "flaky")
        const health = (yield* call(`${gateway.url}/admin/agents`)).body.agents[0].health
        assert.strictEqual(health.reachable, false)

        const events: Array<unknown> = []
        const dropped = yield* Effect.flip(
          Stream.runForEach(
            client.sendStreamingMessage({ message: userText("stream") }),
            (e) => Effect.sync(() => events.push(e))
          )
        )
        assert.strictEqual(events.length, 1)
        assert.strictEqual(dropped._tag, "Unavailable")
      }).pipe(Effect.provide(FetchHttpClient.layer), Effect.timeout(Duration.seconds(10)))
    }).pipe(Effect.scoped))

  it.live("an agent that is down: a clear error naming it, and its health says so", () =>
    Effect.gen(function*() {
      const gateway = yield* startGateway(Gateway.layerMemory, { timeout: Duration.seconds(1) })
      yield* Effect.scoped(Effect.gen(function*() {
        const demo = yield* OurServer.start()
        assert.strictEqual(
          (yield* call(`${gateway.url}/admin/agents`, { body: { url: demo.url, name: "gone" } })).status,
          201
        )
      }))
      const sent = yield* call(`${gateway.url}/agents/gone`, rpc("SendMessage", { message: msg("x") }))
      assert.strictEqual(sent.body.error.code, -32603, sent.text)
      assert.include(sent.body.error.message, "gone")
      const checked = yield* call(`${gateway.url}/admin/agents/gone`)
      assert.strictEqual(checked.body.health.reachable, false)
      assert.isString(checked.body.health.reason)
    }).pipe(Effect.scoped))
})
