/**
 * Our server speaking A2A 0.1 on the wire: requests written from the 0.1 specification's own examples (section 9),
 * sent as 0.1 clients send them (JSON-RPC, no A2A-Version), every answer checked against the 0.1 Schemas; bad
 * input gets typed errors; the versions setting turns 0.1 off (-32601 again).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema } from "effect"
import * as V01 from "../../src/v0_1/protocol/Schemas.ts"
import { at, request, type Server, sse } from "../v0_3/fixtures/Server.ts"
import { All, No01, No03 } from "./fixtures/Server.ts"

let ids = 0
/** A JSON-RPC call as a 0.1 client makes it: no A2A-Version. */
const call = (server: Server, method: string, params: unknown, headers: Record<string, string> = {}) =>
  request(`${server.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: `req-${++ids}`, method, params })
  })

const stream = (server: Server, method: string, params: unknown) =>
  sse(`${server.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: "req-002", method, params })
  })

/** A task id no other test uses (the spec's ids, made unique per run). */
const named = (id: string) => `${id}-${Math.random().toString(36).slice(2)}`

const isTask = Schema.is(V01.Task)
const isEvent = Schema.is(V01.StreamEvent)
const isPushConfig = Schema.is(V01.TaskPushNotificationConfig)
const isCard = Schema.is(V01.AgentCard)

const text = (t: string) => ({ role: "user", parts: [{ type: "text", text: t }] })

layer(Layer.mergeAll(All.layer, No01.layer, No03.layer), { excludeTestServices: true })("0.1 on the wire", (it) => {
  describe("tasks/send (spec 0.1 section 9.1, 9.3)", () => {
    it.effect("a task the client names, answered as a 0.1 Task under that id and session", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-abc-123")
        // 9.1, with the demo agent's "task" flow (the spec's question would get a Message reply)
        const reply = yield* call(server, "tasks/send", {
          id,
          sessionId: "session-xyz-789",
          message: text("task What is the capital of France?")
        })
        expect(reply.status).toBe(200)
        expect(at(reply.json, "id")).toBe(`req-${ids}`)
        const result = at(reply.json, "result")
        expect(isTask(result)).toBe(true)
        expect(result).toMatchObject({
          id,
          sessionId: "session-xyz-789",
          status: { state: "completed", message: { role: "agent" } },
          artifacts: [{ name: "result", index: 0 }]
        })
        expect(result).not.toHaveProperty("kind")
        expect(result).not.toHaveProperty("contextId")
        const parts = at(result, "artifacts", 0, "parts") as ReadonlyArray<unknown>
        expect(parts.every((p) => at(p, "type") === "text" && at(p, "kind") === undefined)).toBe(true)

        const got = yield* call(server, "tasks/get", { id, historyLength: 5 })
        expect(isTask(at(got.json, "result"))).toBe(true)
        expect(at(got.json, "result", "id")).toBe(id)
        expect(at(got.json, "result", "history", 0)).toEqual(text("task What is the capital of France?"))
      }))

    it.effect("a direct Message reply is a completed Task carrying it", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-abc-123")
        const reply = yield* call(server, "tasks/send", { id, message: text("What is the capital of France?") })
        expect(isTask(at(reply.json, "result"))).toBe(true)
        expect(at(reply.json, "result")).toMatchObject({
          id,
          status: { state: "completed", message: { role: "agent", parts: [{ type: "text", text: expect.any(String) }] } }
        })
      }))

    it.effect("multi-turn: input-required, then the same task id continues it (9.3)", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-flightbook-789")
        const first = yield* call(server, "tasks/send", { id, message: text("ask I'd like to book a flight.") })
        expect(isTask(at(first.json, "result"))).toBe(true)
        expect(at(first.json, "result", "status", "state")).toBe("input-required")
        const second = yield* call(server, "tasks/send", {
          id,
          message: text("I want to fly from New York (JFK) to London (LHR) around October 10th.")
        })
        expect(isTask(at(second.json, "result"))).toBe(true)
        expect(at(second.json, "result")).toMatchObject({ id, status: { state: "completed" } })
        expect(at(second.json, "result", "sessionId")).toBe(at(first.json, "result", "sessionId"))
      }))

    it.effect("two callers' tasks of the same id stay apart", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-shared")
        yield* call(server, "tasks/send", { id, message: text("ask first") })
        // another caller (anonymous callers share one scope; the task id is the client's, the store's differs)
        const modern = yield* request(`${server.url}/`, {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } })
        })
        expect(at(modern.json, "error", "code")).toBe(-32001)
      }))

    it.effect("a file part (9.5) and a data part (9.6) reach the agent and come back in 0.1 shapes", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-imageanalysis-bbb")
        const reply = yield* call(server, "tasks/send", {
          id,
          message: {
            role: "user",
            parts: [
              { type: "text", text: "ask Analyze this image and highlight any faces." },
              { type: "file", file: { name: "notes.txt", mimeType: "text/plain", bytes: "aGVsbG8=" } },
              { type: "data", data: { reportType: "sales" } }
            ]
          }
        })
        expect(isTask(at(reply.json, "result")), JSON.stringify(reply.json)).toBe(true)
        const got = yield* call(server, "tasks/get", { id })
        expect(at(got.json, "result", "history", 0, "parts")).toEqual([
          { type: "text", text: "ask Analyze this image and highlight any faces." },
          { type: "file", file: { name: "notes.txt", mimeType: "text/plain", bytes: "aGVsbG8=" } },
          { type: "data", data: { reportType: "sales" } }
        ])
        yield* call(server, "tasks/cancel", { id })
        // the spec's own image: this agent takes text only, and says so with a typed error
        const image = yield* call(server, "tasks/send", {
          id: named("task-imageanalysis-bbb"),
          message: {
            role: "user",
            parts: [{ type: "file", file: { name: "input_image.png", mimeType: "image/png", bytes: "iVBORw0KGgo=" } }]
          }
        })
        expect(at(image.json, "error", "code")).toBe(-32005)
      }))
  })

  describe("tasks/sendSubscribe and tasks/resubscribe (spec 0.1 section 9.2)", () => {
    it.effect("SSE of 0.1 status and artifact updates, ending with final: true", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-story-456")
        const reply = yield* stream(server, "tasks/sendSubscribe", {
          id,
          message: text("task Write a very short story about a curious robot exploring Mars.")
        })
        expect(reply.status).toBe(200)
        expect(reply.contentType).toContain("text/event-stream")
        const results = reply.events.map((e) => at(e, "result"))
        expect(reply.events.every((e) => at(e, "id") === "req-002")).toBe(true)
        expect(results.every(isEvent)).toBe(true)
        expect(results.every((r) => at(r, "id") === id)).toBe(true)
        const artifacts = results.filter((r) => at(r, "artifact") !== undefined)
        expect(artifacts.length).toBeGreaterThan(1)
        expect(artifacts.every((r) => at(r, "artifact", "index") === 0)).toBe(true)
        expect(artifacts.slice(1).every((r) => at(r, "artifact", "append") === true)).toBe(true)
        const last = results.at(-1)
        expect(last).toMatchObject({ id, status: { state: "completed" }, final: true })
        expect(results.slice(0, -1).every((r) => at(r, "final") !== true)).toBe(true)
      }))

    it.effect("resubscribe to a running task: its status first, then its updates", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-long")
        yield* call(server, "tasks/send", { id, message: text("ask first") })
        // the task waits for input: resubscribing gets its status, not final (it is not terminal)...
        const fiber = yield* Effect.forkChild(stream(server, "tasks/resubscribe", { id }))
        yield* Effect.sleep("100 millis")
        // ...and its completion once the answer comes
        yield* call(server, "tasks/send", { id, message: text("the answer") })
        const reply = yield* Fiber.join(fiber)
        const results = reply.events.map((e) => at(e, "result"))
        expect(results.every(isEvent)).toBe(true)
        expect(results[0]).toMatchObject({ id, status: { state: "input-required" }, final: false })
        expect(results.at(-1)).toMatchObject({ id, status: { state: "completed" }, final: true })
      }))
  })

  describe("tasks/cancel, tasks/pushNotification/set|get (spec 0.1 sections 7.4-7.6, 9.4)", () => {
    it.effect("cancel a working task: canceled, and a second cancel is TaskNotCancelable", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-slow")
        const sent = yield* stream(server, "tasks/sendSubscribe", { id, message: text("ask wait") })
        expect(sent.events.length).toBeGreaterThan(0)
        const canceled = yield* call(server, "tasks/cancel", { id })
        expect(isTask(at(canceled.json, "result"))).toBe(true)
        expect(at(canceled.json, "result")).toMatchObject({ id, status: { state: "canceled" } })
        const again = yield* call(server, "tasks/cancel", { id })
        expect(at(again.json, "error", "code")).toBe(-32002)
      }))

    it.effect("push config with the send (9.4), then set, get, and set null", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-reportgen-aaa")
        const pushNotification = {
          url: "https://client.example.com/webhook/a2a-notifications",
          token: "secure-client-token-for-task-aaa",
          authentication: { schemes: ["Bearer"] }
        }
        const sent = yield* call(server, "tasks/send", {
          id,
          message: text("ask Generate the Q1 sales report."),
          pushNotification
        })
        expect(isTask(at(sent.json, "result"))).toBe(true)
        const got = yield* call(server, "tasks/pushNotification/get", { id })
        expect(isPushConfig(at(got.json, "result"))).toBe(true)
        expect(at(got.json, "result")).toEqual({ id, pushNotificationConfig: pushNotification })

        const other = { url: "https://client.example.com/other", token: "t2" }
        const set = yield* call(server, "tasks/pushNotification/set", { id, pushNotificationConfig: other })
        expect(isPushConfig(at(set.json, "result"))).toBe(true)
        expect(at(set.json, "result")).toEqual({ id, pushNotificationConfig: other })
        expect(at((yield* call(server, "tasks/pushNotification/get", { id })).json, "result")).toEqual({
          id,
          pushNotificationConfig: other
        })

        const cleared = yield* call(server, "tasks/pushNotification/set", { id, pushNotificationConfig: null })
        expect(at(cleared.json, "result")).toEqual({ id, pushNotificationConfig: null })
        expect(at((yield* call(server, "tasks/pushNotification/get", { id })).json, "result")).toEqual({
          id,
          pushNotificationConfig: null
        })
        yield* call(server, "tasks/cancel", { id })
      }))
  })

  describe("bad input and unknown tasks: typed errors", () => {
    it.effect("an unknown task is TaskNotFound (-32001) naming the client's id", () =>
      Effect.gen(function*() {
        const server = yield* All
        for (const method of ["tasks/get", "tasks/cancel", "tasks/pushNotification/get"]) {
          const reply = yield* call(server, method, { id: "no-such-task" })
          expect(at(reply.json, "error", "code")).toBe(-32001)
          expect(at(reply.json, "error", "message")).toBe("Task no-such-task not found")
        }
        const resubscribed = yield* call(server, "tasks/resubscribe", { id: "no-such-task" })
        expect(at(resubscribed.json, "error", "code")).toBe(-32001)
      }))

    it.effect("params the 0.1 schema refuses are -32602 with the field named", () =>
      Effect.gen(function*() {
        const server = yield* All
        const cases: ReadonlyArray<readonly [string, unknown, string]> = [
          ["tasks/send", { message: text("hi") }, "id"],
          ["tasks/send", { id: "x", message: { role: "user", parts: [{ kind: "text", text: "hi" }] } }, "type"],
          ["tasks/send", { id: "x", message: { role: "robot", parts: [] } }, "role"],
          ["tasks/send", { id: "x", message: { role: "user", parts: [{ type: "file", file: { name: "a" } }] } }, "file"],
          [
            "tasks/send",
            { id: "x", message: { role: "user", parts: [{ type: "file", file: { bytes: "not base64!" } }] } },
            "bytes"
          ],
          ["tasks/get", { id: 42 }, "id"],
          ["tasks/pushNotification/set", { id: "x", pushNotificationConfig: { token: "t" } }, "url"]
        ]
        for (const [method, params, field] of cases) {
          const reply = yield* call(server, method, params)
          expect(at(reply.json, "error", "code"), `${method} ${JSON.stringify(params)}`).toBe(-32602)
          expect(JSON.stringify(at(reply.json, "error")), `${method} ${JSON.stringify(params)}`).toContain(field)
        }
      }))

    it.effect("a 0.1 message with no parts is refused, and the task is not made", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("empty")
        const reply = yield* call(server, "tasks/send", { id, message: { role: "user", parts: [] } })
        expect(at(reply.json, "error", "code")).toBe(-32602)
        expect(at((yield* call(server, "tasks/get", { id })).json, "error", "code")).toBe(-32001)
      }))
  })

  describe("the versions setting and the other versions", () => {
    it.effect("0.1 turned off: its methods are unknown again (-32601); 0.3 still served", () =>
      Effect.gen(function*() {
        const server = yield* No01
        for (const method of ["tasks/send", "tasks/sendSubscribe", "tasks/pushNotification/set"]) {
          const reply = yield* call(server, method, { id: "x", message: text("hi") })
          expect(at(reply.json, "error", "code")).toBe(-32601)
        }
        const modern = yield* call(server, "message/send", {
          message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] }
        })
        expect(at(modern.json, "result", "kind")).toBe("message")
      }))

    it.effect("0.3 turned off: 0.1 methods are still told by their names; 0.3 ones are refused", () =>
      Effect.gen(function*() {
        const server = yield* No03
        const reply = yield* call(server, "tasks/send", { id: named("t"), message: text("hi") })
        expect(at(reply.json, "result", "status", "state")).toBe("completed")
        const legacy = yield* call(server, "message/send", { message: text("hi") })
        expect(at(legacy.json, "error", "code")).toBe(-32009)
      }))

    it.effect("0.2 clients: message/send with `type` parts is served by the 0.3 edge (spec 0.2 shapes)", () =>
      Effect.gen(function*() {
        const server = yield* All
        const reply = yield* call(server, "message/send", {
          message: { role: "user", messageId: "msg-1", parts: [{ type: "text", text: "hi" }] }
        })
        expect(at(reply.json, "result")).toMatchObject({ kind: "message", role: "agent" })
      }))

    it.effect("a 0.1 request that names A2A-Version 0.1 is served too; 1.0 methods stay 1.0's", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("t")
        const reply = yield* call(server, "tasks/send", { id, message: text("hi") }, { "a2a-version": "0.1" })
        expect(at(reply.json, "result", "id")).toBe(id)
        const modern = yield* call(server, "tasks/send", { id, message: text("hi") }, { "a2a-version": "1.0" })
        expect(at(modern.json, "error", "code")).toBe(-32601)
      }))
  })

  describe("agent card", () => {
    it.effect("/.well-known/agent.json: a card 0.1 clients read (and 0.2 ones)", () =>
      Effect.gen(function*() {
        const server = yield* All
        const reply = yield* request(`${server.url}/.well-known/agent.json`)
        expect(reply.status).toBe(200)
        expect(isCard(reply.json)).toBe(true)
        expect(reply.json).toMatchObject({ url: `${server.url}/`, capabilities: { streaming: true } })
        // 0.1 is JSON-RPC only: no HTTP+JSON interface for it
        const interfaces = at(reply.json, "supportedInterfaces") as ReadonlyArray<unknown>
        expect(interfaces).toContainEqual({ url: `${server.url}/`, protocolBinding: "JSONRPC", protocolVersion: "0.1" })
        expect(interfaces.filter((i) => at(i, "protocolVersion") === "0.1")).toHaveLength(1)
      }))

    it.effect("0.1 off: agent.json is the 0.3 card, for 0.2 clients", () =>
      Effect.gen(function*() {
        const server = yield* No01
        const reply = yield* request(`${server.url}/.well-known/agent.json`)
        expect(reply.json).toMatchObject({ url: `${server.url}/`, protocolVersion: "0.3.0" })
        const versions = (at(reply.json, "supportedInterfaces") as ReadonlyArray<unknown>).map((i) =>
          at(i, "protocolVersion")
        )
        expect(versions).not.toContain("0.1")
      }))
  })
})
