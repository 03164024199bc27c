/**
 * Upstream extended cards through the front door: our server upstream with an authenticated extended card, the
 * gateway registered with its credentials. The front door's card says it has one; an authenticated caller of the
 * gateway gets the upstream's extended card (the one it keeps for the gateway's principal) with the gateway's
 * interfaces and security, over JSON-RPC and HTTP+JSON; an anonymous caller is refused; an agent without one says so.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as OurServer from "../client/OurServer.ts"
import { call, startGateway } from "./GatewayPeers.ts"

const auth = Auth.bearer({ tokens: { "carol-t": "carol" } })

describe("gateway extended cards", () => {
  it.live("forwards the upstream's extended card, rendered at the gateway, to authenticated callers", () =>
    Effect.gen(function*() {
      const secured = yield* OurServer.start({ secured: true })
      const plain = yield* OurServer.start()
      const gateway = yield* startGateway(Gateway.layerMemory, {}, auth)
      const admin = `${gateway.url}/admin/agents`
      assert.strictEqual(
        (yield* call(admin, { body: { url: secured.url, name: "secured", credentials: { bearer: OurServer.TOKEN } } }))
          .status,
        201
      )
      assert.strictEqual((yield* call(admin, { body: { url: plain.url, name: "plain" } })).status, 201)

      const base = `${gateway.url}/agents/secured`
      const card = yield* call(`${base}/.well-known/agent-card.json`, { token: null })
      assert.strictEqual(card.body.capabilities.extendedAgentCard, true)

      const client = yield* A2AClient.resolve(base, { credentials: { bearer: Redacted.make("carol-t") } }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      const extended = yield* client.getExtendedAgentCard()
      // the upstream's extended card for the gateway's own principal upstream (alice), not the public one
      assert.strictEqual(extended.name, `${DemoAgent.card.name} (for alice)`)
      assert.isTrue(extended.supportedInterfaces.length > 0)
      assert.isTrue(
        extended.supportedInterfaces.every((i) => i.url.startsWith(base)),
        extended.supportedInterfaces.map((i) => i.url).join(" ")
      )
      assert.deepStrictEqual(Object.keys(extended.securitySchemes ?? {}), ["bearer"])
      assert.strictEqual(extended.capabilities.extendedAgentCard, true)
      assert.isUndefined(extended.signatures)

      // HTTP+JSON too, and never for an anonymous caller
      const rest = yield* call(`${base}/extendedAgentCard`, { token: "carol-t" })
      assert.strictEqual(rest.status, 200, rest.text)
      assert.strictEqual(rest.body.name, `${DemoAgent.card.name} (for alice)`)
      assert.notInclude(rest.text, secured.url)
      const anonymous = yield* call(`${base}/extendedAgentCard`, { token: null })
      assert.strictEqual(anonymous.status, 401)
      assert.notInclude(anonymous.text, "(for alice)")

      // an agent whose card declares none: its card says so, and asking is UnsupportedOperation
      const plainCard = yield* call(`${gateway.url}/agents/plain/.well-known/agent-card.json`, { token: null })
      assert.notStrictEqual(plainCard.body.capabilities.extendedAgentCard, true)
      const none = yield* call(`${gateway.url}/agents/plain/extendedAgentCard`, { token: "carol-t" })
      assert.strictEqual(none.status, 400, none.text)
      assert.include(none.text, "plain has no extended agent card")
    }).pipe(Effect.scoped))
})
