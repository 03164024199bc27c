/**
 * Our server speaking A2A 0.3 on the wire (JSON-RPC, as a 0.3 client sends it: no A2A-Version), and the
 * version negotiation rules: header, query parameter, absent (= 0.3), unsupported, and 0.3 turned off.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { at, Both, OnlyV1, request, rpc, sse, start, userMessage03 } from "./fixtures/Server.ts"

const errorCode = (json: unknown) => at(json, "error", "code")
const kinds = (events: ReadonlyArray<unknown>) =>
  events.map((e) => {
    const kind = at(e, "result", "kind")
    return kind === "status-update"
      ? `status:${String(at(e, "result", "status", "state"))}:${String(at(e, "result", "final"))}`
      : kind === "task"
      ? `task:${String(at(e, "result", "status", "state"))}`
      : String(kind)
  })

layer(Layer.mergeAll(Both.layer, OnlyV1.layer), { excludeTestServices: true })("0.3 on the wire", (it) => {
  describe("agent card", () => {
    it.effect("no A2A-Version (a 0.3 client): the 0.3 card, carrying the 1.0 interfaces too", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* request(`${server.url}/.well-known/agent-card.json`)
        expect(reply.status).toBe(200)
        expect(reply.headers.get("vary")).toContain("A2A-Version")
        expect(reply.json).toMatchObject({
          name: "effect-a2a demo agent",
          protocolVersion: "0.3.0",
          url: `${server.url}/`,
          preferredTransport: "JSONRPC",
          capabilities: { streaming: true, pushNotifications: true },
          supportsAuthenticatedExtendedCard: false
        })
        expect(at(reply.json, "additionalInterfaces")).toContainEqual({ url: `${server.url}/`, transport: "JSONRPC" })
        const interfaces = at(reply.json, "supportedInterfaces")
        expect(interfaces).toContainEqual({ url: `${server.url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" })
        expect(interfaces).toContainEqual({ url: `${server.url}/`, protocolBinding: "JSONRPC", protocolVersion: "0.3" })
      }))

    it.effect("A2A-Version 1.0 (header or query): the 1.0 card, listing the 1.0 interfaces first", () =>
      Effect.gen(function*() {
        const server = yield* Both
        for (
          const reply of [
            yield* request(`${server.url}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }),
            yield* request(`${server.url}/.well-known/agent-card.json?A2A-Version=1.0`)
          ]
        ) {
          expect(reply.json).not.toHaveProperty("url")
          expect(reply.json).not.toHaveProperty("protocolVersion")
          expect(at(reply.json, "supportedInterfaces", 0, "protocolVersion")).toBe("1.0")
          expect(at(reply.json, "supportedInterfaces")).toContainEqual(
            { url: `${server.url}/`, protocolBinding: "JSONRPC", protocolVersion: "0.3" }
          )
        }
        const legacy = yield* request(`${server.url}/.well-known/agent-card.json`)
        const modern = yield* request(`${server.url}/.well-known/agent-card.json`, {
          headers: { "a2a-version": "1.0" }
        })
        expect(legacy.headers.get("etag")).not.toBe(modern.headers.get("etag"))
      }))

    it.effect("0.3 turned off: one 1.0 card for everyone, without 0.3 interfaces", () =>
      Effect.gen(function*() {
        const server = yield* OnlyV1
        const reply = yield* request(`${server.url}/.well-known/agent-card.json`)
        expect(reply.json).not.toHaveProperty("url")
        const versions = (at(reply.json, "supportedInterfaces") as ReadonlyArray<unknown>).map((i) =>
          at(i, "protocolVersion")
        )
        expect(new Set(versions)).toEqual(new Set(["1.0"]))
      }))
  })

  describe("JSON-RPC 0.3 methods", () => {
    it.effect("message/send: a direct reply in 0.3 shapes", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* rpc(server, "message/send", { message: userMessage03("hi") })
        expect(reply.status).toBe(200)
        expect(reply.json).toMatchObject({
          jsonrpc: "2.0",
          id: 7,
          result: { kind: "message", role: "agent", parts: [{ kind: "text", text: "Echo: hi" }] }
        })
      }))

    it.effect("message/send: a task run to completion, with history and artifacts in 0.3 shapes", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* rpc(server, "message/send", { message: userMessage03("task report") })
        expect(reply.json).toMatchObject({
          result: {
            kind: "task",
            status: { state: "completed", message: { kind: "message", role: "agent" } },
            artifacts: [{ name: "result" }]
          }
        })
        const parts = at(reply.json, "result", "artifacts", 0, "parts") as ReadonlyArray<unknown>
        expect(parts.map((p) => at(p, "kind"))).toEqual(["text", "text", "text"])
        expect(parts.map((p) => at(p, "text")).join("")).toBe("Chunk 1. Chunk 2. Chunk 3.")
        expect(at(reply.json, "result", "contextId")).toEqual(expect.any(String))
        expect(at(reply.json, "result", "history", 0)).toMatchObject({ kind: "message", role: "user" })
      }))

    it.effect("message/send blocking: false returns before the task is done", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* rpc(server, "message/send", {
          message: userMessage03("slow"),
          configuration: { blocking: false }
        })
        expect(at(reply.json, "result", "kind")).toBe("task")
        expect(["submitted", "working"]).toContain(at(reply.json, "result", "status", "state"))
        yield* rpc(server, "tasks/cancel", { id: at(reply.json, "result", "id") })
      }))

    it.effect("parts with `type` (0.1 / 0.2) and a message without `kind` are accepted", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* rpc(server, "message/send", {
          message: { messageId: "legacy-1", role: "user", parts: [{ type: "text", text: "old" }] }
        })
        expect(at(reply.json, "result", "parts", 0)).toEqual({ kind: "text", text: "Echo: old" })
      }))

    it.effect("message/stream: every event a 0.3 JSON-RPC response; final on the last status", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const stream = yield* sse(`${server.url}/`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: "s1",
            method: "message/stream",
            params: { message: userMessage03("task report") }
          })
        })
        expect(stream.contentType).toContain("text/event-stream")
        for (const event of stream.events) expect(event).toMatchObject({ jsonrpc: "2.0", id: "s1" })
        const k = kinds(stream.events)
        expect(k[0]).toMatch(/^task:/)
        expect(k).toContain("artifact-update")
        expect(k).toContain("status:working:false")
        expect(k[k.length - 1]).toBe("status:completed:true")
        expect(k.filter((x) => x.endsWith(":true"))).toHaveLength(1)
      }))

    it.effect("message/stream ending at input-required marks it final; the answer completes the task", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const body = (params: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params })
        const init = { method: "POST", headers: { "content-type": "application/json" } }
        const first = yield* sse(`${server.url}/`, { ...init, body: body({ message: userMessage03("ask") }) })
        const k = kinds(first.events)
        expect(k[k.length - 1]).toBe("status:input-required:true")
        const taskId = at(first.events[0], "result", "id") as string
        const contextId = at(first.events[0], "result", "contextId") as string
        const second = yield* rpc(server, "message/send", { message: userMessage03("Ada", { taskId, contextId }) })
        expect(at(second.json, "result", "status", "state")).toBe("completed")
        expect(at(second.json, "result", "artifacts", 0, "parts", 0, "text")).toBe("Hello, Ada!")
      }))

    it.effect("tasks/get (historyLength), tasks/cancel", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const done = yield* rpc(server, "message/send", { message: userMessage03("task a") })
        const id = at(done.json, "result", "id")
        const got = yield* rpc(server, "tasks/get", { id, historyLength: 0 })
        expect(at(got.json, "result", "kind")).toBe("task")
        expect(at(got.json, "result", "status", "state")).toBe("completed")
        expect((at(got.json, "result", "history") ?? []) as ReadonlyArray<unknown>).toHaveLength(0)

        const slow = yield* rpc(server, "message/send", {
          message: userMessage03("slow"),
          configuration: { blocking: false }
        })
        const canceled = yield* rpc(server, "tasks/cancel", { id: at(slow.json, "result", "id") })
        expect(at(canceled.json, "result", "status", "state")).toBe("canceled")
        const again = yield* rpc(server, "tasks/cancel", { id: at(slow.json, "result", "id") })
        expect(errorCode(again.json)).toBe(-32002)
      }))

    it.effect("tasks/resubscribe: the task, then its events until a terminal state", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const slow = yield* rpc(server, "message/send", {
          message: userMessage03("slow"),
          configuration: { blocking: false }
        })
        const id = at(slow.json, "result", "id")
        const events = yield* Effect.promise(async () => {
          const response = await fetch(`${server.url}/`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tasks/resubscribe", params: { id } })
          })
          // The stream is open (its first event is out): cancel the task, then read to the end.
          await fetch(`${server.url}/`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tasks/cancel", params: { id } })
          })
          const text = await response.text()
          return text.split("\n").filter((l) => l.startsWith("data: ")).map((l): unknown => JSON.parse(l.slice(6)))
        })
        const k = kinds(events)
        expect(k[0]).toMatch(/^task:(submitted|working)$/)
        expect(k[k.length - 1]).toBe("status:canceled:true")
        // an interrupted state does not end a subscription, so only terminal states are final here
        expect(k.slice(1, -1).every((x) => x === "status:working:false")).toBe(true)
      }))

    it.effect("push configs: set (task id as default config id), get with and without id, list, delete", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const slow = yield* rpc(server, "message/send", {
          message: userMessage03("slow"),
          configuration: { blocking: false }
        })
        const taskId = at(slow.json, "result", "id") as string
        const set = yield* rpc(server, "tasks/pushNotificationConfig/set", {
          taskId,
          pushNotificationConfig: {
            url: "https://example.com/hook",
            token: "t",
            authentication: { schemes: ["Bearer"], credentials: "c" }
          }
        })
        expect(set.json).toMatchObject({
          result: {
            taskId,
            pushNotificationConfig: {
              id: taskId,
              url: "https://example.com/hook",
              token: "t",
              authentication: { schemes: ["Bearer"], credentials: "c" }
            }
          }
        })
        yield* rpc(server, "tasks/pushNotificationConfig/set", {
          taskId,
          pushNotificationConfig: { id: "second", url: "https://example.com/other" }
        })
        const bare = yield* rpc(server, "tasks/pushNotificationConfig/get", { id: taskId })
        expect(at(bare.json, "result", "pushNotificationConfig", "id")).toBe(taskId)
        const named = yield* rpc(server, "tasks/pushNotificationConfig/get", {
          id: taskId,
          pushNotificationConfigId: "second"
        })
        expect(at(named.json, "result", "pushNotificationConfig", "url")).toBe("https://example.com/other")
        const list = yield* rpc(server, "tasks/pushNotificationConfig/list", { id: taskId })
        expect(
          (at(list.json, "result") as ReadonlyArray<unknown>).map((c) => at(c, "pushNotificationConfig", "id")).sort()
        )
          .toEqual(["second", taskId].sort())
        const deleted = yield* rpc(server, "tasks/pushNotificationConfig/delete", {
          id: taskId,
          pushNotificationConfigId: "second"
        })
        expect(deleted.json).toEqual({ jsonrpc: "2.0", id: 7, result: null })
        const after = yield* rpc(server, "tasks/pushNotificationConfig/list", { id: taskId })
        expect(at(after.json, "result")).toHaveLength(1)
        yield* rpc(server, "tasks/cancel", { id: taskId })
      }))
  })

  describe("errors", () => {
    it.effect("an unknown task is -32001", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* rpc(server, "tasks/get", { id: "nope" })
        expect(reply.json).toMatchObject({ id: 7, error: { code: -32001 } })
      }))

    it.effect("bad params are -32602 naming the 0.3 fields", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const noParts = yield* rpc(server, "message/send", {
          message: { kind: "message", messageId: "m", role: "user" }
        })
        expect(errorCode(noParts.json)).toBe(-32602)
        expect(JSON.stringify(at(noParts.json, "error", "data"))).toContain("message.parts")
        const badBytes = yield* rpc(server, "message/send", {
          message: userMessage03("x", { parts: [{ kind: "file", file: { bytes: "%%%" } }] })
        })
        expect(errorCode(badBytes.json)).toBe(-32602)
        expect(JSON.stringify(at(badBytes.json, "error", "data"))).toContain("message.parts[0].file.bytes")
        const badRole = yield* rpc(server, "message/send", { message: userMessage03("x", { role: "system" }) })
        expect(errorCode(badRole.json)).toBe(-32602)
        const noId = yield* rpc(server, "tasks/get", {})
        expect(errorCode(noId.json)).toBe(-32602)
      }))

    it.effect("a method 0.3 does not have is -32601; tasks/list was never a 0.3 JSON-RPC method", () =>
      Effect.gen(function*() {
        const server = yield* Both
        expect(errorCode((yield* rpc(server, "tasks/foo", {})).json)).toBe(-32601)
        expect(errorCode((yield* rpc(server, "tasks/list", {})).json)).toBe(-32601)
      }))

    it.effect("a required extension: -32008 unless named in X-A2A-Extensions (0.3) or A2A-Extensions", () =>
      Effect.gen(function*() {
        const server = yield* start({}, {
          ...DemoAgent.card,
          capabilities: { ...DemoAgent.card.capabilities, extensions: [{ uri: "urn:ext:req", required: true }] }
        })
        const missing = yield* rpc(server, "message/send", { message: userMessage03("hi") })
        expect(errorCode(missing.json)).toBe(-32008)
        for (const header of ["x-a2a-extensions", "a2a-extensions"]) {
          const named = yield* rpc(server, "message/send", { message: userMessage03("hi") }, {
            [header]: "urn:ext:req"
          })
          expect(at(named.json, "result", "kind")).toBe("message")
          // the extension is active for the response whichever header named it
          expect(named.headers.get("a2a-extensions")).toBe("urn:ext:req")
        }
        const rest = yield* request(`${server.url}/v1/message:send`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-a2a-extensions": "urn:ext:req" },
          body: JSON.stringify({ message: { messageId: "r", role: "ROLE_USER", content: [{ text: "hi" }] } })
        })
        expect(at(rest.json, "message", "content", 0, "text")).toBe("Echo: hi")
        expect(rest.headers.get("a2a-extensions")).toBe("urn:ext:req")
      }))

    it.effect("no extended card: agent/getAuthenticatedExtendedCard is -32004", () =>
      Effect.gen(function*() {
        const server = yield* Both
        expect(errorCode((yield* rpc(server, "agent/getAuthenticatedExtendedCard", undefined)).json)).toBe(-32004)
      }))
  })

  describe("version negotiation", () => {
    it.effect("absent, empty or 0.3 selects 0.3; 1.0 selects 1.0 (header or query, patch ignored)", () =>
      Effect.gen(function*() {
        const server = yield* Both
        for (const headers of [{}, { "a2a-version": "" }, { "a2a-version": "0.3" }, { "a2a-version": "0.3.0" }]) {
          const reply = yield* rpc(server, "message/send", { message: userMessage03("v") }, headers)
          expect(at(reply.json, "result", "kind")).toBe("message")
        }
        const v1 = {
          message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "v" }] }
        }
        for (const headers of [{ "a2a-version": "1.0" }, { "a2a-version": "1.0.1" }]) {
          const reply = yield* rpc(server, "SendMessage", v1, headers)
          expect(at(reply.json, "result", "message", "parts", 0, "text")).toBe("Echo: v")
        }
        const viaQuery = yield* request(`${server.url}/?A2A-Version=1.0`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: v1 })
        })
        expect(at(viaQuery.json, "result", "message", "parts", 0, "text")).toBe("Echo: v")
        // the header wins over the query parameter
        const both = yield* request(`${server.url}/?A2A-Version=0.3`, {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: v1 })
        })
        expect(at(both.json, "result", "message")).toBeDefined()
      }))

    it.effect("a 1.0 method read as 0.3 (no header) is -32009 telling to send A2A-Version: 1.0", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* rpc(server, "GetTask", { id: "t" })
        expect(errorCode(reply.json)).toBe(-32009)
        expect(at(reply.json, "error", "message")).toContain("A2A-Version: 1.0")
        expect(at(reply.json, "error", "data", 0, "metadata", "supportedVersions")).toBe("1.0")
        // and a 0.3 method asked for as 1.0 is simply not a 1.0 method
        const wrong = yield* rpc(server, "tasks/get", { id: "t" }, { "a2a-version": "1.0" })
        expect(errorCode(wrong.json)).toBe(-32601)
      }))

    it.effect("an unsupported version is -32009 listing both served versions", () =>
      Effect.gen(function*() {
        const server = yield* Both
        for (const version of ["2.0", "0.2", "latest"]) {
          const reply = yield* rpc(server, "message/send", { message: userMessage03("v") }, { "a2a-version": version })
          expect(errorCode(reply.json)).toBe(-32009)
          expect(at(reply.json, "error", "data", 0, "metadata", "supportedVersions")).toBe("1.0,0.3")
        }
      }))

    it.effect("0.3 turned off: no header is refused with -32009 naming 1.0 only", () =>
      Effect.gen(function*() {
        const server = yield* OnlyV1
        const reply = yield* rpc(server, "message/send", { message: userMessage03("v") })
        expect(errorCode(reply.json)).toBe(-32009)
        expect(at(reply.json, "error", "data", 0, "metadata", "supportedVersions")).toBe("1.0")
      }))

    it.effect("the 1.0 REST paths read without a version are refused with 400 VERSION_NOT_SUPPORTED", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* request(`${server.url}/tasks/abc`)
        expect(reply.status).toBe(400)
        expect(at(reply.json, "error", "details", 0, "reason")).toBe("VERSION_NOT_SUPPORTED")
        expect(at(reply.json, "error", "message")).toContain("A2A-Version: 1.0")
        const ok = yield* request(`${server.url}/tasks/abc`, { headers: { "a2a-version": "1.0" } })
        expect(ok.status).toBe(404)
      }))
  })
})
