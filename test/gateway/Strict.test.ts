/**
 * The gateway and agents as they are in the wild (an A2A 0.3 agent shaped after VoltAgent's: a card without
 * `protocolVersion` or `description`, Task results without `kind`, SSE data behind a stray U+001E): by default it
 * registers the agent and forwards to it, its faults repaired; with `strict` it refuses the card (422 InvalidCard,
 * not "unreachable") and, for an agent whose card is right but whose results are not, answers InvalidAgentResponse
 * while the agent stays reachable in its health.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Gateway from "../../src/gateway/Gateway.ts"
import { cardUrl, wildAgent } from "../client/WildAgent.ts"
import { call, startGateway } from "./GatewayPeers.ts"

const send = (url: string, text: string) =>
  call(url, {
    token: null,
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { role: "ROLE_USER", messageId: `m-${text}`, parts: [{ text }] } }
    }
  })

describe("gateway strict", () => {
  it.live("tolerant by default: the wild agent registers and answers through the front door", () =>
    Effect.gen(function*() {
      const wild = yield* wildAgent()
      const gateway = yield* startGateway(Gateway.layerMemory)
      const registered = yield* call(`${gateway.url}/admin/agents`, { body: { url: cardUrl(wild), name: "wild" } })
      assert.strictEqual(registered.status, 201, registered.text)
      const sent = yield* send(`${gateway.url}/agents/wild`, "hello")
      assert.strictEqual(sent.body.result?.task?.status?.state, "TASK_STATE_COMPLETED", sent.text)
    }).pipe(Effect.scoped))

  it.live("strict: the card that needs a repair is refused as invalid, and nothing is registered", () =>
    Effect.gen(function*() {
      const wild = yield* wildAgent()
      const gateway = yield* startGateway(Gateway.layerMemory, { strict: true })
      const refused = yield* call(`${gateway.url}/admin/agents`, { body: { url: cardUrl(wild), name: "wild" } })
      assert.strictEqual(refused.status, 422, refused.text)
      assert.strictEqual(refused.body.error.reason, "InvalidCard")
      assert.include(refused.body.error.message, "protocolVersion")
      const listed = yield* call(`${gateway.url}/admin/agents`)
      assert.deepStrictEqual(listed.body.agents, [])
    }).pipe(Effect.scoped))

  it.live("strict: a result without kind is InvalidAgentResponse, and the agent is still reachable", () =>
    Effect.gen(function*() {
      const wild = yield* wildAgent({ fixedCard: true })
      const gateway = yield* startGateway(Gateway.layerMemory, { strict: true })
      const registered = yield* call(`${gateway.url}/admin/agents`, { body: { url: cardUrl(wild), name: "wild" } })
      assert.strictEqual(registered.status, 201, registered.text)
      const sent = yield* send(`${gateway.url}/agents/wild`, "hello")
      assert.strictEqual(sent.body.error?.data?.[0]?.reason, "INVALID_AGENT_RESPONSE", sent.text)
      assert.include(sent.body.error.message, "wild")
      const agent = yield* call(`${gateway.url}/admin/agents/wild`)
      assert.strictEqual(agent.body.health.reachable, true)
    }).pipe(Effect.scoped))
})
