/**
 * The HTTP+JSON/REST binding on the wire: every route of spec 11.3 (also below a tenant segment), query
 * mapping (spec 11.5), google.rpc.Status errors with ErrorInfo reasons (spec 11.6), SSE streams.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Auth from "../../src/server/Auth.ts"
import * as TestServer from "./fixtures/TestServer.ts"

const { userMessage } = TestServer

const V1 = { "a2a-version": "1.0" }
const JSON_V1 = { "content-type": "application/json", ...V1 }

interface Status {
  readonly error: {
    readonly code: number
    readonly status: string
    readonly message: string
    readonly details: ReadonlyArray<Record<string, unknown>>
  }
}

const statusOf = (reply: TestServer.Reply, httpStatus: number, reason: string): Status => {
  assert.strictEqual(reply.status, httpStatus, reply.text)
  const body = reply.json as Status
  assert.strictEqual(body.error.code, httpStatus)
  const info = body.error.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")
  assert.strictEqual(info?.["reason"], reason)
  assert.strictEqual(info?.["domain"], "a2a-protocol.org")
  return body
}

const violationsOf = (body: Status): ReadonlyArray<string> => {
  const badRequest = body.error.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest")
  return ((badRequest?.["fieldViolations"] ?? []) as ReadonlyArray<{ field: string }>).map((v) => v.field)
}

const descriptionsOf = (body: Status): ReadonlyArray<string> => {
  const badRequest = body.error.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest")
  return ((badRequest?.["fieldViolations"] ?? []) as ReadonlyArray<{ description: string }>).map((v) => v.description)
}

const get = (server: TestServer.TestServer, path: string, headers: Record<string, string> = V1) =>
  TestServer.request(`${server.url}${path}`, { headers })

const post = (server: TestServer.TestServer, path: string, body?: unknown, headers: Record<string, string> = JSON_V1) =>
  TestServer.request(`${server.url}${path}`, {
    method: "POST",
    headers,
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {})
  })

const sendTask = (server: TestServer.TestServer, text = "hello", prefix = "") =>
  Effect.map(
    post(server, `${prefix}/message:send`, { message: userMessage(text) }),
    (reply) => (reply.json as { task: { id: string } }).task.id
  )

const stillServing = (server: TestServer.TestServer) =>
  Effect.gen(function*() {
    const reply = yield* post(server, "/message:send", { message: userMessage("message") })
    assert.strictEqual(reply.status, 200)
    assert.property(reply.json, "message")
  })

layer(TestServer.layer())("REST binding", (it) => {
  describe("operations", () => {
    it.effect("POST /message:send returns the SendMessageResponse as application/a2a+json", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* post(server, "/message:send", { message: userMessage("hello") }, {
          ...JSON_V1,
          accept: "application/a2a+json, application/json"
        })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers.get("content-type"), "application/a2a+json")
        assert.strictEqual(
          (reply.json as { task: { status: { state: string } } }).task.status.state,
          "TASK_STATE_COMPLETED"
        )
        const plain = yield* post(server, "/message:send", { message: userMessage("message") }, {
          ...JSON_V1,
          accept: "application/json"
        })
        assert.strictEqual(plain.headers.get("content-type"), "application/json")
      }))

    it.effect("GET /tasks/{id} with historyLength, GET /tasks with filters", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const id = yield* sendTask(server)
        const got = yield* get(server, `/tasks/${id}?historyLength=3`)
        assert.strictEqual((got.json as { id: string }).id, id)
        const req = server.stub.calls[server.stub.calls.length - 1]!.req
        assert.deepStrictEqual(req, { id, historyLength: 3 })

        const listed = yield* get(
          server,
          "/tasks?status=TASK_STATE_COMPLETED&pageSize=5&includeArtifacts=true&historyLength=0&contextId=ctx-1" +
            "&statusTimestampAfter=2025-01-01T00:00:00Z&unknownParam=x"
        )
        assert.strictEqual(listed.status, 200)
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.req, {
          status: "TASK_STATE_COMPLETED",
          pageSize: 5,
          includeArtifacts: true,
          historyLength: 0,
          contextId: "ctx-1",
          statusTimestampAfter: "2025-01-01T00:00:00Z"
        })
        assert.strictEqual((listed.json as { nextPageToken: string }).nextPageToken, "")
      }))

    it.effect("task ids are percent-decoded, an escaped colon stays part of the id", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        yield* get(server, `/tasks/${encodeURIComponent("urn:task 1")}`)
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.req, { id: "urn:task 1" })
        yield* post(server, `/tasks/${encodeURIComponent("urn:task 1")}:cancel`)
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.req, { id: "urn:task 1" })
      }))

    it.effect("POST /tasks/{id}:cancel with and without a body", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const id = yield* sendTask(server)
        const done = statusOf(yield* post(server, `/tasks/${id}:cancel`), 400, "TASK_NOT_CANCELABLE")
        assert.strictEqual(done.error.status, "FAILED_PRECONDITION")
        yield* post(server, `/tasks/${id}:cancel`, { metadata: { why: "test" } })
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.req, { id, metadata: { why: "test" } })
        statusOf(yield* post(server, "/tasks/missing:cancel"), 404, "TASK_NOT_FOUND")
      }))

    it.effect("push notification configs: create, get, list, delete", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const created = yield* post(server, "/tasks/t-9/pushNotificationConfigs", {
          url: "https://hooks.example.com/x",
          taskId: "ignored-the-path-wins"
        })
        const config = created.json as { id: string; taskId: string }
        assert.strictEqual(config.taskId, "t-9")
        const got = yield* get(server, `/tasks/t-9/pushNotificationConfigs/${config.id}`)
        assert.deepStrictEqual(got.json, config)
        const listed = yield* get(server, "/tasks/t-9/pushNotificationConfigs?pageSize=10")
        assert.deepStrictEqual((listed.json as { configs: unknown }).configs, [config])
        const deleted = yield* TestServer.request(`${server.url}/tasks/t-9/pushNotificationConfigs/${config.id}`, {
          method: "DELETE",
          headers: V1
        })
        assert.strictEqual(deleted.status, 200)
        assert.deepStrictEqual(deleted.json, {})
        statusOf(yield* get(server, `/tasks/t-9/pushNotificationConfigs/${config.id}`), 404, "TASK_NOT_FOUND")
        const invalid = statusOf(
          yield* post(server, "/tasks/t-9/pushNotificationConfigs", { token: "no url" }),
          400,
          "INVALID_PARAMS"
        )
        assert.deepStrictEqual(violationsOf(invalid), ["url"])
      }))

    it.effect("GET /extendedAgentCard", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        statusOf(yield* get(server, "/extendedAgentCard"), 400, "EXTENDED_AGENT_CARD_NOT_CONFIGURED")
      }))

    it.effect("every route also answers below a tenant segment, with the tenant in the request", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const id = yield* sendTask(server, "hello", "/acme")
        assert.strictEqual(
          (server.stub.calls[server.stub.calls.length - 1]!.req as { tenant: string }).tenant,
          "acme"
        )
        yield* get(server, `/acme/tasks/${id}`)
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.req, { id, tenant: "acme" })
        yield* get(server, "/acme/tasks?pageSize=1")
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.req, { pageSize: 1, tenant: "acme" })
        yield* get(server, "/acme/extendedAgentCard")
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.req, { tenant: "acme" })
      }))
  })

  describe("errors", () => {
    it.effect("query values of the wrong form are 400 INVALID_PARAMS with field violations", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const body = statusOf(
          yield* get(server, "/tasks?pageSize=ten&includeArtifacts=yes&historyLength=1.5"),
          400,
          "INVALID_PARAMS"
        )
        assert.strictEqual(body.error.status, "INVALID_ARGUMENT")
        assert.deepStrictEqual(violationsOf(body), ["pageSize", "historyLength", "includeArtifacts"])
        assert.strictEqual(body.error.message, "Invalid parameters: pageSize, historyLength, includeArtifacts")
        assert.deepStrictEqual(descriptionsOf(body), [
          "Expected an integer, got \"ten\"",
          "Expected an integer, got \"1.5\"",
          "Expected true or false, got \"yes\""
        ])
        const repeated = statusOf(yield* get(server, "/tasks?pageSize=1&pageSize=2"), 400, "INVALID_PARAMS")
        assert.deepStrictEqual(violationsOf(repeated), ["pageSize"])
        assert.strictEqual(repeated.error.message, "Invalid parameters: pageSize: Expected a single value, got 2")
        const history = statusOf(yield* get(server, "/tasks/t-1?historyLength=x"), 400, "INVALID_PARAMS")
        assert.deepStrictEqual(descriptionsOf(history), ["Expected an integer, got \"x\""])
        const state = statusOf(yield* get(server, "/tasks?status=TASK_STATE_RUNNING"), 400, "INVALID_PARAMS")
        assert.deepStrictEqual(violationsOf(state), ["status"])
        const time = statusOf(yield* get(server, "/tasks?statusTimestampAfter=yesterday"), 400, "INVALID_PARAMS")
        assert.deepStrictEqual(violationsOf(time), ["statusTimestampAfter"])
        yield* stillServing(server)
      }))

    it.effect("semantic violations from the handler keep their fields", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const body = statusOf(
          yield* get(server, "/tasks?pageSize=150&historyLength=-5&pageToken=bogus"),
          400,
          "INVALID_PARAMS"
        )
        assert.deepStrictEqual(violationsOf(body), ["pageSize", "historyLength", "pageToken"])
      }))

    it.effect("bad bodies: invalid JSON, not an object, missing fields, empty parts", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const parse = statusOf(yield* post(server, "/message:send", "{oops"), 400, "PARSE_ERROR")
        assert.include(parse.error.message, "Invalid JSON")
        statusOf(yield* post(server, "/message:send", [1, 2]), 400, "INVALID_REQUEST")
        const missing = statusOf(yield* post(server, "/message:send"), 400, "INVALID_PARAMS")
        assert.deepStrictEqual(violationsOf(missing), ["message"])
        const noRole = statusOf(
          yield* post(server, "/message:send", { message: { parts: [{ text: "x" }] } }),
          400,
          "INVALID_PARAMS"
        )
        assert.includeMembers([...violationsOf(noRole)], ["message.messageId", "message.role"])
        const noParts = statusOf(
          yield* post(server, "/message:send", { message: { ...userMessage("x"), parts: [] } }),
          400,
          "INVALID_PARAMS"
        )
        assert.deepStrictEqual(violationsOf(noParts), ["message.parts"])
        yield* stillServing(server)
      }))

    it.effect("a non-JSON content type is 415", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* post(server, "/message:send", "message=hi", {
          ...V1,
          "content-type": "application/x-www-form-urlencoded"
        })
        statusOf(reply, 415, "INVALID_REQUEST")
        yield* stillServing(server)
      }))

    it.effect("unknown routes and verbs are 404 Status bodies", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        for (
          const [method, path] of [
            ["GET", "/nope"],
            ["POST", "/tasks/t-1:explode"],
            ["GET", "/tasks/t-1:cancel"],
            ["PUT", "/message:send"],
            ["GET", "/a/b/c/d/e"]
          ] as const
        ) {
          const reply = yield* TestServer.request(`${server.url}${path}`, { method, headers: V1 })
          const body = statusOf(reply, 404, "METHOD_NOT_FOUND")
          assert.include(body.error.message, method)
        }
        yield* stillServing(server)
      }))

    it.effect("a path with malformed percent-encoding is 400 with a Status body, on every route family", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        // RFC 3986 section 2.1: `%` starts a triplet of two hex digits; %C0%AF decodes to no UTF-8 character.
        for (
          const path of [
            "/tasks/%ZZ",
            "/tasks/%",
            "/tasks/%C0%AF",
            "/tasks/%ZZ:cancel",
            "/acme/tasks/%ZZ",
            "/v1/tasks/%ZZ"
          ]
        ) {
          for (const method of ["GET", "POST"] as const) {
            const reply = yield* TestServer.request(`${server.url}${path}`, { method, headers: V1 })
            const body = statusOf(reply, 400, "INVALID_REQUEST")
            assert.include(body.error.message, "percent-encoded", `${method} ${path}`)
            assert.strictEqual(reply.headers.get("content-type"), "application/a2a+json")
          }
        }
        yield* stillServing(server)
      }))

    it.effect("the 1.0 routes read without a 1.0 version (absent = 0.3) are 400 VERSION_NOT_SUPPORTED naming 1.0", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        for (const headers of [{}, { "a2a-version": "" }, { "a2a-version": "0.3" }]) {
          const body = statusOf(yield* get(server, "/tasks", headers), 400, "VERSION_NOT_SUPPORTED")
          assert.include(body.error.message, "A2A-Version: 1.0")
          const info = body.error.details[0] as { metadata: { supportedVersions: string } }
          assert.strictEqual(info.metadata.supportedVersions, "1.0")
        }
        const viaQuery = yield* get(server, "/tasks?A2A-Version=1.0", {})
        assert.strictEqual(viaQuery.status, 200)
        // Without a version, the 0.3 routes (under /v1) answer, in 0.3 shapes (a bare error body).
        const legacy = yield* get(server, "/v1/tasks/no-such-task", {})
        assert.strictEqual(legacy.status, 404)
        assert.strictEqual((legacy.json as { code: number }).code, -32001)
      }))

    it.effect("an unsupported version is 400 VERSION_NOT_SUPPORTED listing the versions served", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        for (const version of ["9.9", "0.2", "latest"]) {
          const body = statusOf(yield* get(server, "/tasks", { "a2a-version": version }), 400, "VERSION_NOT_SUPPORTED")
          const info = body.error.details[0] as { metadata: { supportedVersions: string } }
          assert.strictEqual(info.metadata.supportedVersions, "1.0,0.3", version)
        }
        yield* stillServing(server)
      }))

    it.effect("with versions [\"1.0\"], an absent version is 400 VERSION_NOT_SUPPORTED listing 1.0", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.start({ versions: ["1.0"] })
        for (const headers of [{}, { "a2a-version": "0.3" }, { "a2a-version": "9.9" }]) {
          const body = statusOf(yield* get(server, "/tasks", headers), 400, "VERSION_NOT_SUPPORTED")
          const info = body.error.details[0] as { metadata: { supportedVersions: string } }
          assert.strictEqual(info.metadata.supportedVersions, "1.0")
        }
        const absent = statusOf(yield* get(server, "/tasks", {}), 400, "VERSION_NOT_SUPPORTED")
        assert.include(absent.error.message, "0.3 (no A2A-Version given)")
        assert.strictEqual((yield* get(server, "/tasks?A2A-Version=1.0", {})).status, 200)
      }).pipe(Effect.scoped))

    it.effect("A2A-Extensions: the supported requested extensions are echoed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* get(server, "/tasks", { ...V1, "a2a-extensions": "https://example.com/ext/cite/v1,x:y" })
        assert.strictEqual(reply.headers.get("a2a-extensions"), "https://example.com/ext/cite/v1")
      }))
  })

  describe("streaming", () => {
    it.effect("POST /message:stream is SSE with bare StreamResponse events", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const reply = yield* TestServer.sse(`${server.url}/message:stream`, {
          method: "POST",
          headers: { ...JSON_V1, accept: "text/event-stream" },
          body: JSON.stringify({ message: userMessage("hello") })
        })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.contentType, "text/event-stream")
        assert.strictEqual(reply.events.every((e) => e.event === "message"), true)
        assert.deepStrictEqual(reply.events.map((e) => Object.keys(e.data as object)), [
          ["task"],
          ["statusUpdate"],
          ["artifactUpdate"],
          ["statusUpdate"]
        ])
      }))

    it.effect("a failure before the first event is a Status response; after it, an `error` event", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const before = yield* TestServer.request(`${server.url}/tasks/missing:subscribe`, {
          method: "POST",
          headers: V1
        })
        statusOf(before, 404, "TASK_NOT_FOUND")

        const after = yield* TestServer.sse(`${server.url}/message:stream`, {
          method: "POST",
          headers: JSON_V1,
          body: JSON.stringify({ message: userMessage("stream-fail") })
        })
        assert.strictEqual(after.contentType, "text/event-stream")
        const last = after.events[after.events.length - 1]!
        assert.strictEqual(last.event, "error")
        assert.strictEqual((last.data as Status).error.status, "INTERNAL")
        assert.strictEqual((last.data as Status).error.code, 500)
        yield* stillServing(server)
      }))

    it.effect("subscribe works with GET and POST; a terminal task is refused", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const id = yield* sendTask(server)
        for (const method of ["GET", "POST"]) {
          const reply = yield* TestServer.request(`${server.url}/tasks/${id}:subscribe`, { method, headers: V1 })
          statusOf(reply, 400, "UNSUPPORTED_OPERATION")
        }
        assert.deepStrictEqual(server.stub.calls[server.stub.calls.length - 1]!.op, "subscribeToTask")
      }))
  })
})

layer(TestServer.layer({ restPath: "/a2a/rest", jsonRpcPath: "/a2a/rpc", tenantPaths: false }))(
  "REST binding under a prefix",
  (it) => {
    it.effect("routes live below the prefix only", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.Server
        const id = yield* sendTask(server, "hello", "/a2a/rest")
        const got = yield* get(server, `/a2a/rest/tasks/${id}`)
        assert.strictEqual((got.json as { id: string }).id, id)
        statusOf(yield* post(server, `/a2a/rest/tasks/${id}:cancel`), 400, "TASK_NOT_CANCELABLE")
        statusOf(yield* post(server, "/message:send", { message: userMessage("x") }), 404, "METHOD_NOT_FOUND")
        statusOf(yield* get(server, "/acme/tasks"), 404, "METHOD_NOT_FOUND")
        const rpc = yield* TestServer.request(`${server.url}/a2a/rpc`, {
          method: "POST",
          headers: JSON_V1,
          body: JSON.stringify(TestServer.call("GetTask", { id }))
        })
        assert.strictEqual((rpc.json as { result: { id: string } }).result.id, id)
      }))
  }
)

layer(TestServer.layer({}, Auth.apiKey({ keys: { k1: "bob" } })))("REST auth", (it) => {
  it.effect("a missing key is 401 UNAUTHENTICATED with a challenge; a good key reaches the handler", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const denied = yield* get(server, "/tasks")
      const body = statusOf(denied, 401, "UNAUTHENTICATED")
      assert.strictEqual(body.error.status, "UNAUTHENTICATED")
      assert.include(denied.headers.get("www-authenticate") ?? "", "X-API-Key")
      const ok = yield* get(server, "/tasks", { ...V1, "x-api-key": "k1" })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(server.stub.calls[server.stub.calls.length - 1]!.ctx.principal.id, "bob")
    }))
})

layer(TestServer.layer({ maxBodyBytes: 1024 }))("REST request limits", (it) => {
  it.effect("a body over the limit is 413 with a Status body", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.Server
      const reply = yield* post(server, "/message:send", { message: userMessage("x".repeat(5000)) })
      assert.strictEqual(reply.status, 413)
      assert.strictEqual((reply.json as Status).error.code, 413)
      yield* stillServing(server)
    }))
})
