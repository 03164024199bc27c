/**
 * The gateway end to end, with real parts: our server (bearer-secured) and the official SDK's server upstream on
 * 127.0.0.1, the gateway in front (memory store), our client and the official SDK client through it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import type * as HttpClient from "effect/http/HttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as OurServer from "../client/OurServer.ts"
import { request as sdkRequest, textOf as sdkTextOf } from "../fixtures/SdkClientCalls.ts"
import { connect } from "../fixtures/SdkHttpClient.ts"
import * as SdkServer from "../interop/client/SdkServer.ts"
import * as SdkServer03 from "../interop/v0_3/SdkServer03.ts"
import { call, startGateway } from "./GatewayPeers.ts"

const viaClient = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) =>
  Effect.provide(effect, FetchHttpClient.layer)

describe("gateway front door", () => {
  it.live("registers our secured agent with its bearer credential and forwards every kind of call", () =>
    Effect.gen(function*() {
      const upstream = yield* OurServer.start({ secured: true })
      const gateway = yield* startGateway(Gateway.layerMemory)
      const registered = yield* call(`${gateway.url}/admin/agents`, {
        body: { url: upstream.url, credentials: { bearer: OurServer.TOKEN } }
      })
      assert.strictEqual(registered.status, 201, registered.text)
      const name = registered.body.name as string
      assert.strictEqual(name, "effect-a2a-demo-agent") // from the card's name
      assert.strictEqual(registered.body.url, upstream.url)
      assert.strictEqual(registered.body.kind, "a2a")
      assert.deepStrictEqual(registered.body.credentials, { bearer: "***" })
      assert.notInclude(registered.text, OurServer.TOKEN)

      // the card at the gateway: the upstream's, its interfaces at the gateway, no upstream security
      const card = yield* call(`${gateway.url}/agents/${name}/.well-known/agent-card.json`, { token: null })
      assert.strictEqual(card.status, 200)
      assert.strictEqual(card.body.name, DemoAgent.card.name)
      const urls = (card.body.supportedInterfaces as ReadonlyArray<{ url: string }>).map((i) => i.url)
      assert.isTrue(urls.every((url) => url.startsWith(`${gateway.url}/agents/${name}`)), urls.join(" "))
      assert.isUndefined(card.body.securitySchemes)

      yield* viaClient(Effect.gen(function*() {
        const client = yield* A2AClient.resolve(`${gateway.url}/agents/${name}`)
        const reply = yield* client.sendMessage({ message: userText("hello") })
        assert.isTrue("message" in reply)
        if ("message" in reply) assert.strictEqual(textOf(reply.message.parts), "Echo: hello")

        // a streamed task, event by event, to its end
        const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("task write") }))
        const last = events[events.length - 1]!
        assert.isTrue(events.length > 2, `${events.length} events`)
        assert.isTrue("statusUpdate" in last || "task" in last)

        // the task lives upstream: get it, and cancel a slow one through the gateway
        const first = events[0]!
        const taskId = "task" in first ? first.task.id : "statusUpdate" in first ? first.statusUpdate.taskId : ""
        const got = yield* client.getTask({ id: taskId })
        assert.strictEqual(got.status.state, "TASK_STATE_COMPLETED")
        const slow = yield* client.sendMessage({
          message: userText("slow"),
          configuration: { returnImmediately: true }
        })
        assert.isTrue("task" in slow)
        if ("task" in slow) {
          const canceled = yield* client.cancelTask({ id: slow.task.id })
          assert.strictEqual(canceled.status.state, "TASK_STATE_CANCELED")
        }
        // an upstream error keeps its meaning
        const missing = yield* Effect.flip(client.getTask({ id: "no-such-task" }))
        assert.strictEqual(missing._tag, "TaskNotFound")
      }))
    }).pipe(Effect.scoped))

  it.live("the official SDK client reaches the official SDK server through the gateway, in both bindings", () =>
    Effect.gen(function*() {
      const upstream = yield* SdkServer.start
      const gateway = yield* startGateway(Gateway.layerMemory)
      const registered = yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url, name: "sdk" } })
      assert.strictEqual(registered.status, 201, registered.text)
      for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
        const { calls, client } = yield* connect(`${gateway.url}/agents/sdk/`, binding)
        const reply = yield* Effect.promise(() => client.sendMessage(sdkRequest("hi")))
        assert.strictEqual(sdkTextOf((reply as { parts: Parameters<typeof sdkTextOf>[0] }).parts), "echo: hi")
        assert.isTrue(calls.every((c) => c.includes(`${gateway.url}/agents/sdk`)), calls.join(" "))
      }
    }).pipe(Effect.scoped))

  it.live("a 1.0 caller reaches an agent that speaks only A2A 0.3 (the official SDK's 0.3 server)", () =>
    Effect.gen(function*() {
      const upstream = yield* SdkServer03.start
      const gateway = yield* startGateway(Gateway.layerMemory)
      const registered = yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url } })
      assert.strictEqual(registered.status, 201, registered.text)
      assert.strictEqual(registered.body.name, "sdk-0-3-agent")
      yield* viaClient(Effect.gen(function*() {
        const client = yield* A2AClient.resolve(`${gateway.url}/agents/sdk-0-3-agent`, { protocolVersions: ["1.0"] })
        const reply = yield* client.sendMessage({ message: userText("hi") })
        assert.isTrue("message" in reply && textOf(reply.message.parts) === "echo: hi")
        const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("task") }))
        const last = events[events.length - 1]!
        assert.isTrue("statusUpdate" in last && last.statusUpdate.status.state === "TASK_STATE_COMPLETED")
      }))
      // the upstream heard 0.3 methods only
      assert.isAbove(upstream.requests.length, 1)
      assert.isTrue(upstream.requests.every((r) => String((r.body as { method?: unknown }).method).includes("/")))
    }).pipe(Effect.scoped))
})
