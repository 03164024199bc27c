/**
 * The JSON-RPC binding on the wire: a real server on 127.0.0.1, raw HTTP requests, exact envelopes. Every
 * bad-input test ends by checking the server still answers a good request.
 */
import { assert, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Auth from "../../src/server/Auth.ts"
import * as TestServer from "./fixtures/TestServer.ts"

const { call, rpc, userMessage } = TestServer

interface ErrorBody {
  readonly jsonrpc: string
  readonly id: unknown
  readonly error: {
    readonly code: number
    readonly message: string
    readonly data?: ReadonlyArray<Record<string, unknown>>
  }
}

const errorOf = (json: unknown): ErrorBody => {
  const body = json as ErrorBody
  assert.strictEqual(body.jsonrpc, "2.0")
  assert.isObject(body.error, `expected an error response, got ${JSON.stringify(json)}`)
  return body
}

const violationsOf = (body: ErrorBody): ReadonlyArray<{ field: string; description: string }> => {
  const badRequest = body.error.data?.find((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest")
  return (badRequest?.["fieldViolations"] ?? []) as ReadonlyArray<{ field: string; description: string }>
}

const reasonOf = (body: ErrorBody): unknown =>
  body.error.data?.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")?.["reason"]

/** A JSON-RPC POST as a 0.3 client sends it: no A2A-Version. */
const legacyPost = (server: TestServer.TestServer, payload: unknown) =>
  TestServer.request(`${server.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload)
  })

/** The server still serves a plain request. */
const stillServing = (server: TestServer.TestServer) =>
  Effect.gen(function*() {
    const reply = yield* rpc(server, call("SendMessage", { message: userMessage("message") }, "alive"))
    assert.strictEqual(reply.status, 200)
    assert.deepStrictEqual((reply.json as { id: unknown }).id, "alive")
    assert.property((reply.json as { result: object }).result, "message")
  })

layer(TestServer.layer())("JSON-RPC binding", (it) => {
  describe("operations", () => {
    it.effect("SendMessage returns the task, with the request id", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* rpc(server, call("SendMessage", { message: userMessage("hello") }, "req-7"))
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers.get("content-type"), "application/json")
        const body = reply.json as { id: string; result: { task: { status: { state: string }; artifacts: unknown } } }
        assert.strictEqual(body.id, "req-7")
        assert.strictEqual(body.result.task.status.state, "TASK_STATE_COMPLETED")
        assert.deepStrictEqual(body.result.task.artifacts, [{ artifactId: "art-1", parts: [{ text: "echo: hello" }] }])
      }))

    it.effect("SendMessage accepts snake_case fields and ignores unknown ones", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* rpc(
          server,
          call("SendMessage", {
            message: { message_id: "m-snake", role: "ROLE_USER", parts: [{ text: "message" }], context_id: "c-1" },
            futureField: { anything: true }
          }, 3)
        )
        assert.strictEqual(reply.status, 200)
        assert.property((reply.json as { result: object }).result, "message")
        const sent = server.stub.calls.find((c) =>
          (c.req as { message?: { messageId?: string } }).message?.messageId ===
            "m-snake"
        )
        assert.isDefined(sent)
        assert.strictEqual((sent!.req as { message: { contextId: string } }).message.contextId, "c-1")
      }))

    it.effect("GetTask, ListTasks and CancelTask", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const created = yield* rpc(server, call("SendMessage", { message: userMessage("hello") }))
        const taskId = (created.json as { result: { task: { id: string } } }).result.task.id

        const got = yield* rpc(server, call("GetTask", { id: taskId, historyLength: 1 }, 2))
        assert.strictEqual((got.json as { result: { id: string } }).result.id, taskId)

        const listed = yield* rpc(server, call("ListTasks", { pageSize: 10, status: "TASK_STATE_COMPLETED" }, 3))
        const list = (listed.json as { result: { tasks: ReadonlyArray<{ id: string }>; nextPageToken: string } })
          .result
        assert.include(list.tasks.map((t) => t.id), taskId)
        assert.strictEqual(list.nextPageToken, "")

        const canceled = errorOf((yield* rpc(server, call("CancelTask", { id: taskId }, 4))).json)
        assert.strictEqual(canceled.error.code, -32002)
        assert.strictEqual(reasonOf(canceled), "TASK_NOT_CANCELABLE")
      }))

    it.effect("push notification config methods", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const created = yield* rpc(
          server,
          call("CreateTaskPushNotificationConfig", { taskId: "t-1", url: "https://hooks.example.com/a2a", token: "tk" })
        )
        const config = (created.json as { result: { id: string; taskId: string; url: string } }).result
        assert.strictEqual(config.taskId, "t-1")
        assert.strictEqual(config.url, "https://hooks.example.com/a2a")

        const got = yield* rpc(server, call("GetTaskPushNotificationConfig", { taskId: "t-1", id: config.id }))
        assert.deepStrictEqual((got.json as { result: unknown }).result, config)

        const listed = yield* rpc(server, call("ListTaskPushNotificationConfigs", { taskId: "t-1" }))
        assert.deepStrictEqual((listed.json as { result: { configs: unknown } }).result.configs, [config])

        const deleted = yield* rpc(server, call("DeleteTaskPushNotificationConfig", { taskId: "t-1", id: config.id }))
        assert.deepStrictEqual((deleted.json as { result: unknown }).result, {})

        const gone = errorOf(
          (yield* rpc(server, call("GetTaskPushNotificationConfig", { taskId: "t-1", id: config.id })))
            .json
        )
        assert.strictEqual(gone.error.code, -32001)
      }))

    it.effect("GetExtendedAgentCard takes no params and maps the handler's error", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const body = errorOf((yield* rpc(server, { jsonrpc: "2.0", id: 9, method: "GetExtendedAgentCard" })).json)
        assert.strictEqual(body.id, 9)
        assert.strictEqual(body.error.code, -32007)
        assert.strictEqual(reasonOf(body), "EXTENDED_AGENT_CARD_NOT_CONFIGURED")
      }))

    it.effect("handler errors keep their code, message and ErrorInfo metadata", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const body = errorOf((yield* rpc(server, call("GetTask", { id: "nope" }, "x"))).json)
        assert.strictEqual(body.id, "x")
        assert.strictEqual(body.error.code, -32001)
        assert.strictEqual(body.error.message, "Task not found")
        assert.deepStrictEqual(body.error.data?.[0], {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "TASK_NOT_FOUND",
          domain: "a2a-protocol.org",
          metadata: { taskId: "nope" }
        })
      }))

    it.effect("a defect in the handler is -32603 with a generic message", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const body = errorOf((yield* rpc(server, call("SendMessage", { message: userMessage("defect") }))).json)
        assert.strictEqual(body.error.code, -32603)
        assert.strictEqual(body.error.message, "Internal error")
        assert.notInclude(JSON.stringify(body), "stub defect")
        yield* stillServing(server)
      }))
  })

  describe("malformed requests", () => {
    it.effect("invalid JSON is -32700 with id null", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        for (const payload of ["{\"jsonrpc\": \"2.0\", ", "not json", ""]) {
          const reply = yield* rpc(server, payload)
          assert.strictEqual(reply.status, 200)
          const body = errorOf(reply.json)
          assert.strictEqual(body.id, null)
          assert.strictEqual(body.error.code, -32700)
          assert.strictEqual(reasonOf(body), "PARSE_ERROR")
        }
        yield* stillServing(server)
      }))

    it.effect("invalid envelopes are -32600, never -32602", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const cases: ReadonlyArray<readonly [unknown, unknown]> = [
          [{ jsonrpc: "1.0", id: 1, method: "GetTask", params: { id: "t" } }, 1],
          [{ id: 2, method: "GetTask", params: { id: "t" } }, 2],
          [{ jsonrpc: "2.0", id: 3, params: { id: "t" } }, 3],
          [{ jsonrpc: "2.0", id: 4, method: 42 }, 4],
          [{ jsonrpc: "2.0", id: 5, method: "" }, 5],
          [{ jsonrpc: "2.0", id: { nested: true }, method: "GetTask", params: { id: "t" } }, null],
          [{ jsonrpc: "2.0", id: [1], method: "GetTask", params: { id: "t" } }, null],
          [{ jsonrpc: "2.0", id: true, method: "GetTask", params: { id: "t" } }, null],
          [{ jsonrpc: "2.0", id: 7, method: "GetTask", params: "t" }, 7],
          [{ jsonrpc: "2.0", id: 8, method: "GetTask", params: null }, 8],
          [42, null],
          [JSON.stringify("GetTask"), null] // a JSON string, sent as is
        ]
        for (const [payload, id] of cases) {
          const body = errorOf((yield* rpc(server, payload)).json)
          expect(body.error.code, JSON.stringify(payload)).toBe(-32600)
          expect(body.id, JSON.stringify(payload)).toStrictEqual(id)
        }
        yield* stillServing(server)
      }))

    it.effect("by-position params are a valid request whose params are invalid: -32602 (JSON-RPC 2.0 section 4.2)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        // JSON-RPC 2.0 section 4.2: params "MUST be a Structured value": an Array (by-position) or an Object
        // (by-name). A2A's methods take theirs by name (spec 9.3), so an array is this method's invalid params.
        const legacy = (payload: unknown) => legacyPost(server, payload)
        const replies = [
          yield* rpc(server, { jsonrpc: "2.0", id: 6, method: "GetTask", params: ["t"] }),
          yield* rpc(server, { jsonrpc: "2.0", id: 6, method: "SendStreamingMessage", params: [] }),
          yield* legacy({ jsonrpc: "2.0", id: 6, method: "tasks/get", params: [{ id: "t" }] })
        ]
        for (const reply of replies) {
          const body = errorOf(reply.json)
          assert.strictEqual(reply.status, 200)
          assert.strictEqual(body.id, 6)
          assert.strictEqual(body.error.code, -32602)
          assert.include(body.error.message, "by name")
        }
        // The method is looked up first: an unknown one stays -32601.
        const unknown = errorOf((yield* rpc(server, { jsonrpc: "2.0", id: 7, method: "Nope", params: [1] })).json)
        assert.strictEqual(unknown.error.code, -32601)
        yield* stillServing(server)
      }))

    it.effect("an unknown method is -32601 with the request id", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        for (const method of ["message/send", "getTask", "Nope"]) {
          const body = errorOf((yield* rpc(server, call(method, {}, "m"))).json)
          assert.strictEqual(body.error.code, -32601)
          assert.strictEqual(body.id, "m")
          assert.include(body.error.message, method)
        }
        yield* stillServing(server)
      }))

    it.effect("a message without role and messageId is -32602 with field violations", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const body = errorOf((yield* rpc(server, call("SendMessage", { message: { parts: [{ text: "x" }] } }))).json)
        assert.strictEqual(body.error.code, -32602)
        assert.strictEqual(reasonOf(body), "INVALID_PARAMS")
        const fields = violationsOf(body).map((v) => v.field)
        assert.includeMembers(fields, ["message.messageId", "message.role"])
        for (const v of violationsOf(body)) assert.isNotEmpty(v.description)
      }))

    it.effect("empty parts, a missing message and wrong types are -32602", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const empty = errorOf(
          (yield* rpc(server, call("SendMessage", { message: { ...userMessage("x"), parts: [] } }))).json
        )
        assert.strictEqual(empty.error.code, -32602)
        assert.deepStrictEqual(violationsOf(empty).map((v) => v.field), ["message.parts"])

        const missing = errorOf((yield* rpc(server, call("SendMessage", {}))).json)
        assert.deepStrictEqual(violationsOf(missing).map((v) => v.field), ["message"])

        const noParams = errorOf((yield* rpc(server, { jsonrpc: "2.0", id: 1, method: "GetTask" })).json)
        assert.deepStrictEqual(violationsOf(noParams).map((v) => v.field), ["id"])

        const types = errorOf(
          (yield* rpc(server, call("GetTask", { id: 12, historyLength: "ten" }))).json
        )
        assert.strictEqual(types.error.code, -32602)
        assert.includeMembers(violationsOf(types).map((v) => v.field), ["id", "historyLength"])

        const role = errorOf(
          (yield* rpc(server, call("SendMessage", { message: { ...userMessage("x"), role: "ROLE_ROBOT" } }))).json
        )
        assert.deepStrictEqual(violationsOf(role).map((v) => v.field), ["message.role"])

        const twoParts = errorOf(
          (yield* rpc(
            server,
            call("SendMessage", { message: { ...userMessage("x"), parts: [{ text: "a", url: "b" }] } })
          ))
            .json
        )
        assert.strictEqual(twoParts.error.code, -32602)
        assert.deepStrictEqual(violationsOf(twoParts).map((v) => v.field), ["message.parts[0]"])
        yield* stillServing(server)
      }))

    it.effect("semantic violations from the handler: negative historyLength, pageSize out of range, bad pageToken", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const negative = errorOf((yield* rpc(server, call("ListTasks", { historyLength: -5 }))).json)
        assert.strictEqual(negative.error.code, -32602)
        assert.deepStrictEqual(violationsOf(negative).map((v) => v.field), ["historyLength"])

        const page = errorOf((yield* rpc(server, call("ListTasks", { pageSize: 150, pageToken: "bogus" }))).json)
        assert.strictEqual(page.error.code, -32602)
        assert.deepStrictEqual(violationsOf(page).map((v) => v.field), ["pageSize", "pageToken"])
        yield* stillServing(server)
      }))

    it.effect("a non-JSON content type is refused with 415", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* rpc(server, call("GetTask", { id: "t" }), { "content-type": "text/plain" })
        assert.strictEqual(reply.status, 415)
        assert.strictEqual(errorOf(reply.json).error.code, -32600)
        const charset = yield* rpc(server, call("GetTask", { id: "t" }), {
          "content-type": "application/json; charset=utf-8"
        })
        assert.strictEqual(errorOf(charset.json).error.code, -32001)
        yield* stillServing(server)
      }))
  })

  describe("notifications and batches", () => {
    it.effect("a notification is run but gets no response (204)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const before = server.stub.calls.length
        const reply = yield* rpc(server, {
          jsonrpc: "2.0",
          method: "SendMessage",
          params: { message: userMessage("notified") }
        })
        assert.strictEqual(reply.status, 204)
        assert.strictEqual(reply.text, "")
        assert.isTrue(
          server.stub.calls.slice(before).some((c) =>
            (c.req as { message?: { messageId?: string } }).message?.messageId === "m-notified"
          )
        )
        const unknown = yield* rpc(server, { jsonrpc: "2.0", method: "Nope" })
        assert.strictEqual(unknown.status, 204)
        const failing = yield* rpc(server, { jsonrpc: "2.0", method: "GetTask", params: { id: "missing" } })
        assert.strictEqual(failing.status, 204)
      }))

    it.effect("a batch gets an array of responses, notifications left out", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* rpc(server, [
          call("SendMessage", { message: userMessage("message") }, 1),
          { jsonrpc: "2.0", method: "SendMessage", params: { message: userMessage("message") } },
          call("GetTask", { id: "missing" }, 2),
          call("Nope", {}, 3),
          { jsonrpc: "1.0", id: 4, method: "GetTask" },
          call("SendStreamingMessage", { message: userMessage("hello") }, 5),
          42
        ])
        assert.strictEqual(reply.status, 200)
        const responses = reply.json as ReadonlyArray<{ id: unknown; result?: unknown; error?: { code: number } }>
        assert.isArray(responses)
        const byId = new Map(responses.map((r) => [JSON.stringify(r.id), r]))
        assert.strictEqual(responses.length, 6)
        assert.property(byId.get("1")!.result, "message")
        assert.strictEqual(byId.get("2")!.error?.code, -32001)
        assert.strictEqual(byId.get("3")!.error?.code, -32601)
        assert.strictEqual(byId.get("4")!.error?.code, -32600)
        assert.strictEqual(byId.get("5")!.error?.code, -32600)
        assert.strictEqual(byId.get("null")!.error?.code, -32600)
      }))

    it.effect("an empty batch is one -32600 error; a batch of notifications is 204", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const empty = yield* rpc(server, [])
        const body = errorOf(empty.json)
        assert.strictEqual(body.error.code, -32600)
        assert.strictEqual(body.id, null)
        const notes = yield* rpc(server, [
          { jsonrpc: "2.0", method: "GetTask", params: { id: "a" } },
          { jsonrpc: "2.0", method: "GetTask", params: { id: "b" } }
        ])
        assert.strictEqual(notes.status, 204)
        const huge = errorOf(
          (yield* rpc(server, Array.from({ length: 101 }, (_, i) => call("GetTask", { id: "a" }, i))))
            .json
        )
        assert.strictEqual(huge.error.code, -32600)
        yield* stillServing(server)
      }))
  })

  describe("version negotiation", () => {
    it.effect("A2A-Version 1.0 (header or query, patch ignored) is served", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        for (const version of ["1.0", "1.0.3", "1"]) {
          const reply = yield* rpc(server, call("SendMessage", { message: userMessage("message") }), {
            "a2a-version": version
          })
          assert.property((reply.json as { result: object }).result, "message", version)
        }
        const viaQuery = yield* TestServer.request(`${server.url}/?A2A-Version=1.0`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(call("SendMessage", { message: userMessage("message") }))
        })
        assert.property((viaQuery.json as { result: object }).result, "message")
        const last = server.stub.calls[server.stub.calls.length - 1]!
        assert.strictEqual(last.ctx.requestedVersion, "1.0")
      }))

    it.effect("no A2A-Version means 0.3: 0.3 methods answer in 0.3 shapes", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const legacy = (payload: unknown) => legacyPost(server, payload)
        const message = {
          kind: "message",
          messageId: "m-legacy",
          role: "user",
          parts: [{ kind: "text", text: "message" }]
        }
        const reply = yield* legacy(call("message/send", { message }, "l-1"))
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json, {
          jsonrpc: "2.0",
          id: "l-1",
          result: {
            kind: "message",
            messageId: "reply-1",
            role: "agent",
            parts: [{ kind: "text", text: "echo: message" }]
          }
        })
        const last = server.stub.calls[server.stub.calls.length - 1]!
        assert.strictEqual(last.ctx.requestedVersion, "0.3")
        assert.strictEqual((last.req as { message: { role: string } }).message.role, "ROLE_USER")

        const missing = errorOf((yield* legacy(call("tasks/get", { id: "no-such-task" }, "l-2"))).json)
        assert.strictEqual(missing.id, "l-2")
        assert.strictEqual(missing.error.code, -32001)
        yield* stillServing(server)
      }))

    it.effect("a 1.0 method read as 0.3 (no, empty or 0.3 A2A-Version) is -32009 pointing to A2A-Version: 1.0", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const absent = yield* TestServer.request(`${server.url}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(call("GetTask", { id: "t" }, "v"))
        })
        const replies = [absent]
        for (const headers of [{ "a2a-version": "" }, { "a2a-version": "0.3" }]) {
          replies.push(yield* rpc(server, call("GetTask", { id: "t" }, "v"), headers))
        }
        for (const reply of replies) {
          const body = errorOf(reply.json)
          assert.strictEqual(body.error.code, -32009)
          assert.strictEqual(body.id, "v")
          assert.strictEqual(reasonOf(body), "VERSION_NOT_SUPPORTED")
          assert.include(body.error.message, "A2A-Version: 1.0")
          const info = body.error.data?.[0] as { metadata: { supportedVersions: string } }
          assert.strictEqual(info.metadata.supportedVersions, "1.0")
        }
        yield* stillServing(server)
      }))

    it.effect("an unsupported version is -32009 listing the versions served", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        for (const version of ["2.0", "0.2", "latest"]) {
          const body = errorOf((yield* rpc(server, call("GetTask", { id: "t" }, "v"), { "a2a-version": version })).json)
          assert.strictEqual(body.error.code, -32009, version)
          assert.strictEqual(body.id, "v")
          assert.strictEqual(reasonOf(body), "VERSION_NOT_SUPPORTED")
          assert.include(body.error.message, "supported versions: 1.0, 0.3")
          const info = body.error.data?.[0] as { metadata: { supportedVersions: string } }
          assert.strictEqual(info.metadata.supportedVersions, "1.0,0.3")
        }
        yield* stillServing(server)
      }))

    it.effect("with versions [\"1.0\"], an absent version means 0.3 and is refused with -32009 listing 1.0", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.start({ versions: ["1.0"] })
        for (const headers of [{ "a2a-version": "" }, { "a2a-version": "0.3" }, { "a2a-version": "2.0" }]) {
          const body = errorOf((yield* rpc(server, call("GetTask", { id: "t" }, "v"), headers)).json)
          assert.strictEqual(body.error.code, -32009)
          assert.strictEqual(body.id, "v")
          assert.strictEqual(reasonOf(body), "VERSION_NOT_SUPPORTED")
          const info = body.error.data?.[0] as { metadata: { supportedVersions: string } }
          assert.strictEqual(info.metadata.supportedVersions, "1.0")
        }
        for (const payload of [call("GetTask", { id: "t" }), call("message/send", { message: {} })]) {
          const absent = yield* TestServer.request(`${server.url}/`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(payload)
          })
          assert.strictEqual(errorOf(absent.json).error.code, -32009)
          assert.include(errorOf(absent.json).error.message, "0.3 (no A2A-Version given)")
        }
        yield* stillServing(server)
      }).pipe(Effect.scoped))
  })

  describe("service parameters", () => {
    it.effect("A2A-Extensions reaches the handler; the supported ones are echoed back", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* rpc(server, call("SendMessage", { message: userMessage("message") }), {
          "a2a-extensions":
            "https://example.com/ext/geo/v1, https://unknown.example/ext , https://example.com/ext/cite/v1"
        })
        assert.strictEqual(
          reply.headers.get("a2a-extensions"),
          "https://example.com/ext/geo/v1,https://example.com/ext/cite/v1"
        )
        const last = server.stub.calls[server.stub.calls.length - 1]!
        assert.deepStrictEqual(last.ctx.extensions, [
          "https://example.com/ext/geo/v1",
          "https://unknown.example/ext",
          "https://example.com/ext/cite/v1"
        ])
        assert.strictEqual(last.ctx.headers["a2a-extensions"]?.startsWith("https://example.com/ext/geo/v1"), true)
        const none = yield* rpc(server, call("SendMessage", { message: userMessage("message") }))
        assert.isNull(none.headers.get("a2a-extensions"))
      }))

    it.effect("the call context carries the interfaces at the request's origin", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        yield* rpc(server, call("SendMessage", { message: userMessage("message") }))
        const last = server.stub.calls[server.stub.calls.length - 1]!
        assert.deepStrictEqual(last.ctx.interfaces, [
          { url: `${server.url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: server.url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
          { url: `${server.url}/`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
          { url: server.url, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
        ])
        assert.isTrue(last.ctx.principal.anonymous)
      }))
  })

  describe("streaming", () => {
    const stream = (server: TestServer.TestServer, payload: unknown, headers: Record<string, string> = {}) =>
      TestServer.sse(`${server.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
        body: JSON.stringify(payload)
      })

    it.effect("SendStreamingMessage is SSE, each event a JSON-RPC response with the request id", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* stream(server, call("SendStreamingMessage", { message: userMessage("hello") }, "s-1"))
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.contentType, "text/event-stream")
        const results = reply.events.map((e) => e.data as { jsonrpc: string; id: string; result: object })
        assert.deepStrictEqual(results.map((r) => [r.jsonrpc, r.id]), Array(4).fill(["2.0", "s-1"]))
        assert.deepStrictEqual(results.map((r) => Object.keys(r.result)[0]), [
          "task",
          "statusUpdate",
          "artifactUpdate",
          "statusUpdate"
        ])
      }))

    it.effect("a failure before the first event is a plain JSON-RPC error, not a stream", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* stream(server, call("SubscribeToTask", { id: "missing" }, 8))
        assert.strictEqual(reply.contentType, "application/json")
        const body = errorOf(JSON.parse(reply.raw))
        assert.strictEqual(body.id, 8)
        assert.strictEqual(body.error.code, -32001)

        const invalid = yield* stream(server, call("SendStreamingMessage", { message: { parts: [] } }, 9))
        assert.strictEqual(errorOf(JSON.parse(invalid.raw)).error.code, -32602)
      }))

    it.effect("a failure after the first event ends the stream with an error event", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* stream(server, call("SendStreamingMessage", { message: userMessage("stream-fail") }, 10))
        assert.strictEqual(reply.contentType, "text/event-stream")
        const last = reply.events[reply.events.length - 1]!.data as ErrorBody
        assert.strictEqual(reply.events.length, 3)
        assert.strictEqual(last.id, 10)
        assert.strictEqual(last.error.code, -32006)
        yield* stillServing(server)
      }))
  })
})

layer(TestServer.layer({}, Auth.bearer({ tokens: { "secret-token": "alice" } })))("JSON-RPC auth", (it) => {
  it.effect("no or a bad token is HTTP 401 with WWW-Authenticate and a JSON-RPC error body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: "Basic abc" }]) {
        const reply = yield* rpc(server, call("GetTask", { id: "t" }, 1), headers)
        assert.strictEqual(reply.status, 401)
        assert.strictEqual(reply.headers.get("www-authenticate"), "Bearer realm=\"a2a\"")
        const body = errorOf(reply.json)
        assert.strictEqual(body.error.code, -32040)
        assert.strictEqual(reasonOf(body), "UNAUTHENTICATED")
      }
      assert.strictEqual(server.stub.calls.length, 0)
    }))

  it.effect("a valid token reaches the handler as the principal", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const reply = yield* rpc(server, call("SendMessage", { message: userMessage("message") }), {
        authorization: "Bearer secret-token"
      })
      assert.strictEqual(reply.status, 200)
      const last = server.stub.calls[server.stub.calls.length - 1]!
      assert.strictEqual(last.ctx.principal.id, "alice")
      assert.isFalse(last.ctx.principal.anonymous)
    }))
})

layer(TestServer.layer({ maxBodyBytes: 2048 }))("JSON-RPC request limits", (it) => {
  const big = (size: number) => JSON.stringify(call("SendMessage", { message: userMessage("x".repeat(size)) }))

  it.effect("a body over the limit is 413 with a JSON-RPC error body (declared length)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const reply = yield* rpc(server, big(4096))
      assert.strictEqual(reply.status, 413)
      const body = errorOf(reply.json)
      assert.strictEqual(body.error.code, -32600)
      assert.include(body.error.message, "2048")
      yield* stillServing(server)
    }))

  it.effect("a chunked body over the limit is 413 too", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const bytes = new TextEncoder().encode(big(8192))
      const reply = yield* TestServer.request(`${server.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000))
            controller.close()
          }
        }),
        duplex: "half"
      } as RequestInit)
      assert.strictEqual(reply.status, 413)
      assert.strictEqual(errorOf(reply.json).error.code, -32600)
      yield* stillServing(server)
    }))

  it.effect("a client that waits for 100 Continue gets it, then its answer", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const body = JSON.stringify(call("SendMessage", { message: userMessage("continue") }, "c1"))
      const reply = yield* Effect.callback<{ continued: boolean; status: number; text: string }>((resume) => {
        let continued = false
        const req = Http.request(`${server.url}/`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "a2a-version": "1.0",
            "content-length": Buffer.byteLength(body),
            expect: "100-continue"
          }
        })
        req.on("continue", () => {
          continued = true
          req.end(body)
        })
        req.on("response", (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => (text += chunk))
          res.on("end", () => resume(Effect.succeed({ continued, status: res.statusCode ?? 0, text })))
        })
        req.on("error", (e) => resume(Effect.die(e)))
      })
      assert.isTrue(reply.continued)
      assert.strictEqual(reply.status, 200)
      assert.strictEqual((JSON.parse(reply.text) as { id: string }).id, "c1")
    }))

  it.effect("a body split inside a multi-byte character is decoded whole", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const bytes = new TextEncoder().encode(JSON.stringify(call("SendMessage", { message: userMessage("é€😀") })))
      const cut = bytes.indexOf(0xf0) + 2
      const reply = yield* TestServer.request(`${server.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(bytes.slice(0, cut))
            controller.enqueue(bytes.slice(cut))
            controller.close()
          }
        }),
        duplex: "half"
      } as RequestInit)
      assert.strictEqual(reply.status, 200)
      assert.include(JSON.stringify(reply.json), "é€😀")
    }))

  it.effect("a client that leaves in the middle of its body leaves the server serving", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const { hostname, port } = new URL(server.url)
      yield* Effect.callback<void>((resume) => {
        const socket = Net.connect(Number(port), hostname, () => {
          socket.write(
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n" +
              "Content-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",",
            () => setTimeout(() => socket.destroy(), 50)
          )
        })
        socket.on("close", () => resume(Effect.void))
        socket.on("error", () => {})
      })
      yield* stillServing(server)
    }))

  it.effect("a body under the limit is served", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const reply = yield* rpc(server, big(100))
      assert.strictEqual(reply.status, 200)
    }))
})
