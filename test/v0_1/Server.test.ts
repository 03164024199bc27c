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
import { upstream } from "./fixtures/UpstreamSchema.ts"

const spec01 = upstream("0.1.0")
const spec02 = upstream("0.2.6")

/** A 0.1 value of the named kind: by our Schemas, and by the published 0.1 JSON Schema when a copy is at hand. */
const conforms = (definition: keyof typeof ours, value: unknown) => {
  expect(ours[definition](value), `${definition}: ${JSON.stringify(value)}`).toBe(true)
  if (spec01 !== undefined) {
    expect(spec01(definition)(value), `upstream ${definition}: ${JSON.stringify(value)}`).toBe(true)
  }
}
const ours = {
  Task: Schema.is(V01.Task),
  TaskStatusUpdateEvent: Schema.is(V01.TaskStatusUpdateEvent),
  TaskArtifactUpdateEvent: Schema.is(V01.TaskArtifactUpdateEvent),
  TaskPushNotificationConfig: Schema.is(V01.TaskPushNotificationConfig),
  AgentCard: Schema.is(V01.AgentCard)
}
const conformsEvent = (value: unknown) =>
  conforms(at(value, "status") !== undefined ? "TaskStatusUpdateEvent" : "TaskArtifactUpdateEvent", value)

/** The published schema's request definition of each method, to check the requests written from the spec. */
const requestDefinitions: Record<string, string> = {
  "tasks/send": "SendTaskRequest",
  "tasks/sendSubscribe": "SendTaskStreamingRequest",
  "tasks/get": "GetTaskRequest",
  "tasks/cancel": "CancelTaskRequest",
  "tasks/pushNotification/set": "SetTaskPushNotificationRequest",
  "tasks/pushNotification/get": "GetTaskPushNotificationRequest",
  "tasks/resubscribe": "TaskResubscriptionRequest"
}

let ids = 0
/** A JSON-RPC call as a 0.1 client makes it: no A2A-Version. */
const call = (server: Server, method: string, params: unknown, headers: Record<string, string> = {}) =>
  request(`${server.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: `req-${++ids}`, method, params })
  })

/** A request written from the spec: the published schema must accept it (when at hand), then it is sent. */
const example = (server: Server, method: string, params: unknown) => {
  const definition = requestDefinitions[method]
  if (spec01 !== undefined && definition !== undefined) {
    const body = { jsonrpc: "2.0", id: `req-${ids + 1}`, method, params }
    expect(spec01(definition)(body), `upstream ${definition}: ${JSON.stringify(body)}`).toBe(true)
  }
  return call(server, method, params)
}

const stream = (server: Server, method: string, params: unknown) => {
  const body = { jsonrpc: "2.0", id: "req-002", method, params }
  const definition = requestDefinitions[method]!
  if (spec01 !== undefined) expect(spec01(definition)(body), `upstream ${definition}`).toBe(true)
  return sse(`${server.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body)
  })
}

/** A task id no other test uses (the spec's ids, made unique per run). */
const named = (id: string) => `${id}-${Math.random().toString(36).slice(2)}`

const text = (t: string) => ({ role: "user", parts: [{ type: "text", text: t }] })

layer(Layer.mergeAll(All.layer, No01.layer, No03.layer), { excludeTestServices: true })("0.1 on the wire", (it) => {
  describe("tasks/send (spec 0.1 section 9.1, 9.3)", () => {
    it.effect("a task the client names, answered as a 0.1 Task under that id and session", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-abc-123")
        // 9.1, with the demo agent's "task" flow (the spec's question would get a Message reply)
        const reply = yield* example(server, "tasks/send", {
          id,
          sessionId: "session-xyz-789",
          message: text("task What is the capital of France?")
        })
        expect(reply.status).toBe(200)
        expect(at(reply.json, "id")).toBe(`req-${ids}`)
        const result = at(reply.json, "result")
        conforms("Task", result)
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

        const got = yield* example(server, "tasks/get", { id, historyLength: 5 })
        conforms("Task", at(got.json, "result"))
        expect(at(got.json, "result", "id")).toBe(id)
        expect(at(got.json, "result", "history", 0)).toEqual(text("task What is the capital of France?"))
      }))

    it.effect("a direct Message reply is a completed Task carrying it", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-abc-123")
        const reply = yield* example(server, "tasks/send", { id, message: text("What is the capital of France?") })
        conforms("Task", at(reply.json, "result"))
        expect(at(reply.json, "result")).toMatchObject({
          id,
          status: {
            state: "completed",
            message: { role: "agent", parts: [{ type: "text", text: expect.any(String) }] }
          }
        })
      }))

    it.effect("a direct Message reply is a task the client reads back with tasks/get under its id (7.3)", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-direct-get")
        const reply = yield* example(server, "tasks/send", { id, message: text("What is the capital of France?") })
        const sent = at(reply.json, "result")
        const got = yield* example(server, "tasks/get", { id, historyLength: 5 })
        expect(at(got.json, "error")).toBeUndefined()
        const result = at(got.json, "result")
        conforms("Task", result)
        expect(result).toMatchObject({ id, status: { state: "completed" } })
        expect(at(result, "status", "message")).toEqual(at(sent, "status", "message"))
        expect(at(result, "history", 0)).toEqual(text("What is the capital of France?"))
        expect(at(result, "history", 1)).toEqual(at(sent, "status", "message"))

        // The same over tasks/sendSubscribe: the task the stream ended on is there to read.
        const streamed = named("task-direct-stream")
        const events = yield* stream(server, "tasks/sendSubscribe", {
          id: streamed,
          message: text("What is the capital of Italy?")
        })
        expect(events.events.at(-1)).toMatchObject({ result: { id: streamed, final: true } })
        const again = yield* example(server, "tasks/get", { id: streamed })
        expect(at(again.json, "result")).toMatchObject({ id: streamed, status: { state: "completed" } })
      }))

    it.effect("multi-turn: input-required, then the same task id continues it (9.3)", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-flightbook-789")
        const first = yield* example(server, "tasks/send", { id, message: text("ask I'd like to book a flight.") })
        conforms("Task", at(first.json, "result"))
        expect(at(first.json, "result", "status", "state")).toBe("input-required")
        const second = yield* example(server, "tasks/send", {
          id,
          message: text("I want to fly from New York (JFK) to London (LHR) around October 10th.")
        })
        conforms("Task", at(second.json, "result"))
        expect(at(second.json, "result")).toMatchObject({ id, status: { state: "completed" } })
        expect(at(second.json, "result", "sessionId")).toBe(at(first.json, "result", "sessionId"))
      }))

    it.effect("two callers' tasks of the same id stay apart", () =>
      Effect.gen(function*() {
        const server = yield* All
        const id = named("task-shared")
        yield* example(server, "tasks/send", { id, message: text("ask first") })
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
        const reply = yield* example(server, "tasks/send", {
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
        conforms("Task", at(reply.json, "result"))
        const got = yield* example(server, "tasks/get", { id })
        expect(at(got.json, "result", "history", 0, "parts")).toEqual([
          { type: "text", text: "ask Analyze this image and highlight any faces." },
          { type: "file", file: { name: "notes.txt", mimeType: "text/plain", bytes: "aGVsbG8=" } },
          { type: "data", data: { reportType: "sales" } }
        ])
        yield* example(server, "tasks/cancel", { id })
        // the spec's own image: this agent takes text only, and says so with a typed error
        const image = yield* example(server, "tasks/send", {
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
        results.forEach(conformsEvent)
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
        yield* example(server, "tasks/send", { id, message: text("ask first") })
        // the task waits for input: resubscribing gets its status, not final (it is not terminal)...
        const fiber = yield* Effect.forkChild(stream(server, "tasks/resubscribe", { id }))
        yield* Effect.sleep("100 millis")
        // ...and its completion once the answer comes
        yield* example(server, "tasks/send", { id, message: text("the answer") })
        const reply = yield* Fiber.join(fiber)
        const results = reply.events.map((e) => at(e, "result"))
        results.forEach(conformsEvent)
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
        const canceled = yield* example(server, "tasks/cancel", { id })
        conforms("Task", at(canceled.json, "result"))
        expect(at(canceled.json, "result")).toMatchObject({ id, status: { state: "canceled" } })
        const again = yield* example(server, "tasks/cancel", { id })
        expect(at(again.json, "error", "code")).toBe(-32002)
        // named as the client names it
        expect(at(again.json, "error", "message")).toBe(`Task ${id} is canceled and cannot be canceled`)
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
        const sent = yield* example(server, "tasks/send", {
          id,
          message: text("ask Generate the Q1 sales report."),
          pushNotification
        })
        conforms("Task", at(sent.json, "result"))
        const got = yield* example(server, "tasks/pushNotification/get", { id })
        conforms("TaskPushNotificationConfig", at(got.json, "result"))
        expect(at(got.json, "result")).toEqual({ id, pushNotificationConfig: pushNotification })

        const other = { url: "https://client.example.com/other", token: "t2" }
        const set = yield* example(server, "tasks/pushNotification/set", { id, pushNotificationConfig: other })
        conforms("TaskPushNotificationConfig", at(set.json, "result"))
        expect(at(set.json, "result")).toEqual({ id, pushNotificationConfig: other })
        expect(at((yield* example(server, "tasks/pushNotification/get", { id })).json, "result")).toEqual({
          id,
          pushNotificationConfig: other
        })

        // clearing with null is the spec text's (section 6.10), not its JSON Schema's
        const cleared = yield* call(server, "tasks/pushNotification/set", { id, pushNotificationConfig: null })
        expect(at(cleared.json, "result")).toEqual({ id, pushNotificationConfig: null })
        expect(at((yield* example(server, "tasks/pushNotification/get", { id })).json, "result")).toEqual({
          id,
          pushNotificationConfig: null
        })
        yield* example(server, "tasks/cancel", { id })
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
          [
            "tasks/send",
            { id: "x", message: { role: "user", parts: [{ type: "file", file: { name: "a" } }] } },
            "file"
          ],
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

    it.effect("0.2 clients speak the 0.3 methods: served by the 0.3 edge, answers in shapes 0.2 accepts", () =>
      Effect.gen(function*() {
        const server = yield* All
        /** A 0.2 result, by the published 0.2 schema when a copy is at hand. */
        const conforms02 = (value: unknown) => {
          const kind = at(value, "kind")
          const definition = kind === "task"
            ? "Task"
            : kind === "message"
            ? "Message"
            : kind === "status-update"
            ? "TaskStatusUpdateEvent"
            : kind === "artifact-update"
            ? "TaskArtifactUpdateEvent"
            : "TaskPushNotificationConfig"
          if (spec02 !== undefined) expect(spec02(definition)(value), `upstream 0.2 ${definition}`).toBe(true)
        }
        // spec 0.2.6 section 9.2, as written there (its message has no `kind`)
        const joke = (text: string) => ({
          message: { role: "user", parts: [{ kind: "text", text }], messageId: crypto.randomUUID() },
          metadata: {}
        })
        const direct = yield* call(server, "message/send", joke("tell me a joke"))
        expect(at(direct.json, "result")).toMatchObject({ kind: "message", role: "agent" })
        conforms02(at(direct.json, "result"))
        const task = yield* call(server, "message/send", joke("ask tell me a joke"))
        expect(at(task.json, "result")).toMatchObject({ kind: "task", status: { state: "input-required" } })
        conforms02(at(task.json, "result"))
        const taskId = at(task.json, "result", "id")
        const set = yield* call(server, "tasks/pushNotificationConfig/set", {
          taskId,
          pushNotificationConfig: { url: "https://client.example.com/webhook", token: "t" }
        })
        conforms02(at(set.json, "result"))
        const got = yield* call(server, "tasks/pushNotificationConfig/get", { id: taskId })
        expect(at(got.json, "result", "pushNotificationConfig", "url")).toBe("https://client.example.com/webhook")
        conforms02(at(got.json, "result"))
        yield* call(server, "tasks/cancel", { id: taskId })
        const streamed = yield* sse(`${server.url}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "message/stream", params: joke("task a story") })
        })
        expect(streamed.events.length).toBeGreaterThan(2)
        streamed.events.forEach((e) => conforms02(at(e, "result")))
        // early 0.2 peers still wrote parts with `type`
        const typed = yield* call(server, "message/send", {
          message: { role: "user", messageId: "msg-1", parts: [{ type: "text", text: "hi" }] }
        })
        expect(at(typed.json, "result")).toMatchObject({ kind: "message", role: "agent" })
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
        conforms("AgentCard", reply.json)
        expect(reply.json).toMatchObject({ url: `${server.url}/`, capabilities: { streaming: true } })
        // 0.1 is JSON-RPC only: no HTTP+JSON interface for it
        const interfaces = at(reply.json, "supportedInterfaces") as ReadonlyArray<unknown>
        expect(interfaces).toContainEqual({ url: `${server.url}/`, protocolBinding: "JSONRPC", protocolVersion: "0.1" })
        expect(interfaces.filter((i) => at(i, "protocolVersion") === "0.1")).toHaveLength(1)
      }))

    it.effect("with 0.3 and 0.1 on one JSON-RPC URL, the 0.3 card lists each interface once", () =>
      Effect.gen(function*() {
        const server = yield* All
        for (const path of ["/.well-known/agent-card.json", "/.well-known/agent.json"]) {
          const reply = yield* request(`${server.url}${path}`)
          expect(at(reply.json, "additionalInterfaces"), path).toStrictEqual([
            { url: `${server.url}/`, transport: "JSONRPC" },
            { url: server.url, transport: "HTTP+JSON" }
          ])
        }
      }))

    it.effect("0.3 off: agent.json is still the 0.1 card, and so is the card path's for A2A-Version 0.1", () =>
      Effect.gen(function*() {
        const server = yield* No03
        for (
          const reply of [
            yield* request(`${server.url}/.well-known/agent.json`),
            yield* request(`${server.url}/.well-known/agent-card.json`, { headers: { "a2a-version": "0.1" } })
          ]
        ) {
          conforms("AgentCard", reply.json)
          expect(reply.json).toMatchObject({ url: `${server.url}/` })
        }
        const modern = yield* request(`${server.url}/.well-known/agent-card.json`, {
          headers: { "a2a-version": "1.0" }
        })
        expect(modern.json).not.toHaveProperty("url")
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
