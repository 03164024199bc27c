/**
 * Our server on the A2A 0.3 HTTP+JSON wire: the /v1 routes, 0.3 ProtoJSON bodies (content, ROLE_*, file /
 * data parts, TASK_STATE_CANCELLED), bare `{ code, message }` errors with HTTP statuses, and SSE of bare
 * StreamResponse objects.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Auth from "../../src/server/Auth.ts"
import { serveDemo, TOKEN } from "../client/OurServer.ts"
import { at, Both, OnlyV1, request, sse } from "./fixtures/Server.ts"

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: "ROLE_USER", content: [{ text }], ...extra }
})

layer(Layer.mergeAll(Both.layer, OnlyV1.layer), { excludeTestServices: true })("0.3 HTTP+JSON on the wire", (it) => {
  describe("operations", () => {
    it.effect("POST /v1/message:send: a direct message as { message } in 0.3 ProtoJSON", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* request(`${server.url}/v1/message:send`, json(message("hi")))
        expect(reply.status).toBe(200)
        expect(reply.headers.get("content-type")).toContain("application/json")
        expect(reply.json).toMatchObject({ message: { role: "ROLE_AGENT", content: [{ text: "Echo: hi" }] } })
      }))

    it.effect("proto field names (request, message_id) are accepted; a task comes back as { task }", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* request(
          `${server.url}/v1/message:send`,
          json({ request: { message_id: "snake-1", role: "ROLE_USER", content: [{ text: "task report" }] } })
        )
        expect(reply.json).toMatchObject({
          task: {
            status: { state: "TASK_STATE_COMPLETED" },
            artifacts: [{ name: "result" }]
          }
        })
        const parts = at(reply.json, "task", "artifacts", 0, "parts") as ReadonlyArray<unknown>
        expect(parts.map((p) => at(p, "text")).join("")).toBe("Chunk 1. Chunk 2. Chunk 3.")
      }))

    it.effect("configuration without blocking does not wait (proto3 bool); GET /v1/tasks/{id}; :cancel", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const started = yield* request(
          `${server.url}/v1/message:send`,
          json({ ...message("slow"), configuration: { acceptedOutputModes: ["text/plain"] } })
        )
        const id = at(started.json, "task", "id") as string
        expect(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]).toContain(at(started.json, "task", "status", "state"))
        const got = yield* request(`${server.url}/v1/tasks/${id}?historyLength=1`)
        expect(at(got.json, "id")).toBe(id)
        expect((at(got.json, "history") as ReadonlyArray<unknown>).length).toBeLessThanOrEqual(1)
        const canceled = yield* request(`${server.url}/v1/tasks/${id}:cancel`, { method: "POST" })
        expect(at(canceled.json, "status", "state")).toBe("TASK_STATE_CANCELLED")
      }))

    it.effect("POST /v1/message:stream: SSE of bare StreamResponses, final on the last status", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const stream = yield* sse(`${server.url}/v1/message:stream`, json(message("task report")))
        expect(stream.contentType).toContain("text/event-stream")
        const keys = stream.events.map((e) => Object.keys(e as object)[0])
        expect(keys[0]).toBe("task")
        expect(keys).toContain("artifactUpdate")
        const last = stream.events[stream.events.length - 1]
        expect(last).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" }, final: true } })
      }))

    it.effect("GET /v1/tasks/{id}:subscribe streams until the task is canceled", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const started = yield* request(`${server.url}/v1/message:send`, json({ ...message("slow"), configuration: {} }))
        const id = at(started.json, "task", "id") as string
        const events = yield* Effect.promise(async () => {
          const response = await fetch(`${server.url}/v1/tasks/${id}:subscribe`)
          await fetch(`${server.url}/v1/tasks/${id}:cancel`, { method: "POST" })
          const text = await response.text()
          return text.split("\n").filter((l) => l.startsWith("data: ")).map((l): unknown => JSON.parse(l.slice(6)))
        })
        expect(Object.keys(events[0] as object)).toEqual(["task"])
        expect(events[events.length - 1]).toMatchObject({
          statusUpdate: { status: { state: "TASK_STATE_CANCELLED" }, final: true }
        })
      }))

    it.effect("push configs: create (task id as default id), get, list, delete", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const started = yield* request(`${server.url}/v1/message:send`, json({ ...message("slow"), configuration: {} }))
        const id = at(started.json, "task", "id") as string
        const created = yield* request(
          `${server.url}/v1/tasks/${id}/pushNotificationConfigs`,
          json({ pushNotificationConfig: { url: "https://example.com/hook", authentication: { schemes: ["Bearer"] } } })
        )
        expect(created.json).toEqual({
          name: `tasks/${id}/pushNotificationConfigs/${id}`,
          pushNotificationConfig: { id, url: "https://example.com/hook", authentication: { schemes: ["Bearer"] } }
        })
        const wrapped = yield* request(
          `${server.url}/v1/tasks/${id}/pushNotificationConfigs`,
          json({ config: { push_notification_config: { id: "two", url: "https://example.com/two" } } })
        )
        expect(at(wrapped.json, "pushNotificationConfig", "id")).toBe("two")
        const got = yield* request(`${server.url}/v1/tasks/${id}/pushNotificationConfigs/two`)
        expect(at(got.json, "name")).toBe(`tasks/${id}/pushNotificationConfigs/two`)
        const list = yield* request(`${server.url}/v1/tasks/${id}/pushNotificationConfigs`)
        expect((at(list.json, "configs") as ReadonlyArray<unknown>).length).toBe(2)
        const deleted = yield* request(`${server.url}/v1/tasks/${id}/pushNotificationConfigs/two`, { method: "DELETE" })
        expect(deleted.status).toBe(200)
        const missing = yield* request(`${server.url}/v1/tasks/${id}/pushNotificationConfigs/two`)
        expect(missing.status).toBe(404)
        yield* request(`${server.url}/v1/tasks/${id}:cancel`, { method: "POST" })
      }))
  })

  describe("errors", () => {
    it.effect("an unknown task: 404 with { code: -32001, message }", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* request(`${server.url}/v1/tasks/nope`)
        expect(reply.status).toBe(404)
        expect(reply.json).toMatchObject({ code: -32001, message: expect.stringContaining("nope") })
      }))

    it.effect("bad bodies: 400 -32602 naming the 0.3 fields; bad JSON -32700; bad query 400", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const noContent = yield* request(
          `${server.url}/v1/message:send`,
          json({ message: { messageId: "m", role: "ROLE_USER" } })
        )
        expect(noContent.status).toBe(400)
        expect(noContent.json).toMatchObject({ code: -32602 })
        expect(JSON.stringify(at(noContent.json, "data"))).toContain("message.content")
        const badBytes = yield* request(
          `${server.url}/v1/message:send`,
          json(message("x", { content: [{ file: { fileWithBytes: "%%%" } }] }))
        )
        expect(JSON.stringify(at(badBytes.json, "data"))).toContain("message.content[0].file.fileWithBytes")
        const notJson = yield* request(`${server.url}/v1/message:send`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{"
        })
        expect(notJson.status).toBe(400)
        expect(notJson.json).toMatchObject({ code: -32700 })
        const badQuery = yield* request(`${server.url}/v1/tasks/x?historyLength=-1`)
        expect(badQuery.status).toBe(400)
        expect(badQuery.json).toMatchObject({
          code: -32600,
          message: "Invalid query parameter historyLength: \"-1\" is not a non-negative integer"
        })
        const snake = yield* request(`${server.url}/v1/tasks/x?history_length=two`)
        expect(snake.json).toMatchObject({
          message: "Invalid query parameter historyLength: \"two\" is not a non-negative integer"
        })
      }))

    it.effect(":cancel and :subscribe read their body as every route does: 415 for another media type, 400 for bad JSON", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const started = yield* request(`${server.url}/v1/message:send`, json({ ...message("slow"), configuration: {} }))
        const id = at(started.json, "task", "id") as string
        for (const verb of ["cancel", "subscribe"]) {
          const url = `${server.url}/v1/tasks/${id}:${verb}`
          const form = yield* request(url, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: "a=b"
          })
          expect(form.status, verb).toBe(415)
          expect(form.json, verb).toMatchObject({ code: -32600 })
          const broken = yield* request(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{"
          })
          expect(broken.status, verb).toBe(400)
          expect(broken.json, verb).toMatchObject({ code: -32700 })
          const notObject = yield* request(url, json([1]))
          expect(notObject.status, verb).toBe(400)
        }
        // An empty body, with or without a JSON content type, is still a cancel.
        const canceled = yield* request(`${server.url}/v1/tasks/${id}:cancel`, { method: "POST" })
        expect(canceled.status).toBe(200)
        expect(at(canceled.json, "status", "state")).toBe("TASK_STATE_CANCELLED")
      }))

    it.effect("an unknown verb is 404; no extended card is 400 -32004", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const verb = yield* request(`${server.url}/v1/tasks/x:explode`, { method: "POST" })
        expect(verb.status).toBe(404)
        expect(verb.json).toMatchObject({ code: -32601 })
        const card = yield* request(`${server.url}/v1/card`)
        expect(card.status).toBe(400)
        expect(card.json).toMatchObject({ code: -32004 })
      }))

    it.effect("the /v1 routes are 0.3: a request for 1.0 there is refused, pointing to the 1.0 paths", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const reply = yield* request(`${server.url}/v1/tasks/x`, { headers: { "a2a-version": "1.0" } })
        expect(reply.status).toBe(400)
        expect(reply.json).toMatchObject({ code: -32009, message: expect.stringContaining("/v1") })
      }))

    it.effect("what HTTP says beside a 0.3 error: 401 with its challenge, 413 beyond the body limit", () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* serveDemo(
          { auth: Auth.bearer({ tokens: { [TOKEN]: "alice" } }) },
          { versions: ["1.0", "0.3"], maxBodyBytes: 1024 }
        )
        const anonymous = yield* request(`${server.url}/v1/message:send`, json(message("hi")))
        expect(anonymous.status).toBe(401)
        expect(anonymous.headers.get("www-authenticate")).toBe(`Bearer realm="a2a"`)
        expect(anonymous.json).toMatchObject({ code: -32040 })
        const authorization = { authorization: `Bearer ${TOKEN}` }
        const large = yield* request(`${server.url}/v1/message:send`, json(message("x".repeat(2048)), authorization))
        expect(large.status).toBe(413)
        expect(large.json).toMatchObject({ code: -32600, message: expect.stringContaining("1024 bytes") })
        const fine = yield* request(`${server.url}/v1/message:send`, json(message("hi"), authorization))
        expect(fine.json).toMatchObject({ message: { content: [{ text: "Echo: hi" }] } })
      })))

    it.effect("with 0.3 off there are no /v1 routes", () =>
      Effect.gen(function*() {
        const server = yield* OnlyV1
        const reply = yield* request(`${server.url}/v1/message:send`, json(message("hi")))
        expect(reply.status).not.toBe(200)
        expect(at(reply.json, "message")).toBeUndefined()
      }))
  })
})
