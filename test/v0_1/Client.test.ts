/**
 * A2AClient speaking A2A 0.1 where a card says so: a 0.1 card (the spec's sample card, section 5.6, pointing at our
 * server) is read into the 1.0 model with one 0.1 JSON-RPC interface, and the 0.1 transport translates at the wire,
 * so the user only sees 1.0 values. The peer: our server in 0.1 mode, which records nothing but answers 0.1 only to
 * 0.1 requests (a 1.0 request for `tasks/send` would be -32601).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as AgentCardResolver from "../../src/client/AgentCardResolver.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import * as A2A01 from "../../src/v0_1/A2A01.ts"
import * as V01ClientEdition from "../../src/v0_1/client/V01ClientEdition.ts"
import * as V03ClientEdition from "../../src/v0_3/client/V03ClientEdition.ts"
import { All } from "./fixtures/Server.ts"

/** The spec's sample card (0.1 section 5.6), abridged, at `url`. */
const card01 = (url: string) => ({
  name: "GeoSpatial Route Planner Agent",
  description: "Provides advanced route planning, traffic analysis, and custom map generation services.",
  url,
  provider: { organization: "Example Geo Services Inc.", url: "https://www.examplegeoservices.com" },
  version: "1.2.0",
  documentationUrl: "https://docs.examplegeoservices.com/georoute-agent/api",
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  authentication: {
    schemes: ["OAuth2"],
    credentials: "{\"authorizationUrl\": \"https://auth.examplegeoservices.com\"}"
  },
  defaultInputModes: ["application/json", "text/plain"],
  defaultOutputModes: ["application/json", "image/png"],
  skills: [{
    id: "route-optimizer-traffic",
    name: "Traffic-Aware Route Optimizer",
    description: "Calculates the optimal driving route between two or more locations.",
    tags: ["maps", "routing", "navigation"],
    examples: ["Plan a route from '1600 Amphitheatre Parkway' to 'San Francisco International Airport'."]
  }]
})

/** A tiny card host: `/.well-known/agent.json` answers the 0.1 card of our server. */
const cardHost = (agentUrl: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(card01(agentUrl)))
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/.well-known/agent.json`, close: () => server.close() }))
      })
    }),
    (host) => Effect.sync(host.close)
  )

layer(Layer.mergeAll(All.layer, FetchHttpClient.layer, A2A01.client), { excludeTestServices: true })(
  "A2AClient speaking A2A 0.1",
  (it) => {
    describe("cards", () => {
      it("a 0.1 card reads as a 1.0 card with one 0.1 JSON-RPC interface; 0.2 and 0.3 cards are not 0.1's", () => {
        const editions = [V01ClientEdition.edition, V03ClientEdition.edition]
        const card = AgentCardResolver.decode(card01("https://geo.example.com/a2a"), editions)
        expect(card._tag).toBe("Some")
        if (card._tag !== "Some") return
        expect(card.value.supportedInterfaces).toEqual([
          { url: "https://geo.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "0.1" }
        ])
        expect(card.value.skills[0]).toMatchObject({
          id: "route-optimizer-traffic",
          tags: ["maps", "routing", "navigation"]
        })
        expect(card.value.provider).toEqual({
          organization: "Example Geo Services Inc.",
          url: "https://www.examplegeoservices.com"
        })
        // 0.2: no authentication, security schemes instead; 0.3: protocolVersion 0.3.0
        const { authentication: _, ...card02 } = card01("https://x.example.com")
        expect(V01ClientEdition.edition.claimsCard({ ...card02, securitySchemes: {} })).toBe(false)
        expect(V01ClientEdition.edition.claimsCard({ ...card02, protocolVersion: "0.3.0" })).toBe(false)
        expect(V01ClientEdition.edition.claimsCard({ ...card02, protocolVersion: "0.1.0" })).toBe(true)
        expect(V01ClientEdition.edition.claimsCard(card01("https://x.example.com"))).toBe(true)
      })

      it.effect("a card claiming 0.1 that its schema refuses is a SchemaMismatch naming 0.1", () =>
        Effect.gen(function*() {
          const { skills: _, ...broken } = card01("https://x.example.com")
          const error = yield* Effect.flip(
            Effect.provide(
              AgentCardResolver.read(broken, {
                method: "GET",
                url: "https://x.example.com/card",
                status: 200,
                contentType: "application/json"
              }, "{}"),
              A2A01.client
            )
          )
          expect(error.reason).toBe("SchemaMismatch")
          expect(error.message).toContain("0.1")
        }))
    })

    describe("against our server, over the 0.1 wire", () => {
      it.effect("resolve a 0.1 card, then send, get and stream: 1.0 values out", () =>
        Effect.gen(function*() {
          const server = yield* All
          const host = yield* cardHost(`${server.url}/`)
          const client = yield* A2AClient.resolve(host.url)
          expect(client.interface).toEqual({
            url: `${server.url}/`,
            protocolBinding: "JSONRPC",
            protocolVersion: "0.1"
          })

          const echo = yield* client.sendMessage({ message: userText("hi") })
          expect("task" in echo && echo.task.status.state).toBe("TASK_STATE_COMPLETED")
          if (!("task" in echo)) return
          expect(textOf(echo.task.status.message?.parts ?? [])).toBe("Echo: hi")

          const report = yield* client.sendMessage({ message: userText("task report", { contextId: "ctx-1" }) })
          if (!("task" in report)) return expect.fail("a task")
          expect(report.task.contextId).toBe("ctx-1")
          expect(report.task.artifacts?.[0]?.artifactId).toBe("artifact-0")
          const got = yield* client.getTask({ id: report.task.id })
          expect(got.id).toBe(report.task.id)
          expect(got.status.state).toBe("TASK_STATE_COMPLETED")
          expect(textOf(got.artifacts?.[0]?.parts ?? [])).toBe("Chunk 1. Chunk 2. Chunk 3.")

          const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("task story") }))
          const states = events.flatMap((e) => "statusUpdate" in e ? [e.statusUpdate.status.state] : [])
          expect(states.at(-1)).toBe("TASK_STATE_COMPLETED")
          expect(events.some((e) => "artifactUpdate" in e)).toBe(true)
        }))

      it.effect("multi-turn, cancel, resubscribe and push configs; ListTasks is unsupported", () =>
        Effect.gen(function*() {
          const server = yield* All
          const host = yield* cardHost(`${server.url}/`)
          const client = yield* A2AClient.resolve(host.url)

          const asked = yield* client.sendMessage({ message: userText("ask where to?") })
          if (!("task" in asked)) return expect.fail("a task")
          expect(asked.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
          const taskId = asked.task.id

          const config = { taskId, url: "https://client.example.com/hook", token: "tok" }
          const created = yield* client.createTaskPushNotificationConfig(config)
          expect(created).toMatchObject({ taskId, id: taskId, url: config.url, token: "tok" })
          expect(yield* client.getTaskPushNotificationConfig({ taskId, id: taskId })).toMatchObject({ url: config.url })
          expect((yield* client.listTaskPushNotificationConfigs({ taskId })).configs).toHaveLength(1)
          yield* client.deleteTaskPushNotificationConfig({ taskId, id: taskId })
          expect((yield* client.listTaskPushNotificationConfigs({ taskId })).configs).toHaveLength(0)

          const first = yield* client.subscribeToTask({ id: taskId }).pipe(Stream.take(1), Stream.runCollect)
          expect(first[0]).toMatchObject({ statusUpdate: { taskId, status: { state: "TASK_STATE_INPUT_REQUIRED" } } })

          const canceled = yield* client.cancelTask({ id: taskId })
          expect(canceled.status.state).toBe("TASK_STATE_CANCELED")
          const again = yield* Effect.flip(client.cancelTask({ id: taskId }))
          expect(again._tag).toBe("TaskNotCancelable")
          const missing = yield* Effect.flip(client.getTask({ id: "no-such-task" }))
          expect(missing._tag).toBe("TaskNotFound")
          const list = yield* Effect.flip(client.listTasks({}))
          expect(list._tag).toBe("UnsupportedOperation")
        }))
    })
  }
)
