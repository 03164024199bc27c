/**
 * Tenants on the wire (spec 13.1; AgentInterface.tenant; the proto's `/{tenant}/...` REST bindings and the
 * JSON-RPC `tenant` param): a task created under one tenant is TaskNotFound under another and at the root, on
 * every binding (JSON-RPC 1.0, HTTP+JSON 1.0, and 0.3, which has no tenant and so reaches the root only), and
 * the bindings agree on what a tenant is.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { at, request, type Server, start } from "../v0_3/fixtures/Server.ts"

class Demo extends Context.Service<Demo, Server>()("test/http/Tenants/Demo") {
  static readonly layer = Layer.effect(Demo, start())
}

const V1 = { "a2a-version": "1.0" }
let n = 0
const message = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: `tenant-${++n}`,
  role: "ROLE_USER",
  parts: [{ text }],
  ...extra
})

const rpc = (server: Server, method: string, params: unknown, headers: Record<string, string> = V1) =>
  request(`${server.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })

const rest = (server: Server, method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, {
    method,
    headers: { ...V1, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })

/** A waiting (input-required) task created over REST under `/{tenant}`, and a push config on it. */
const waitingTask = (server: Server, tenant: string) =>
  Effect.gen(function*() {
    const sent = yield* rest(server, "POST", `/${tenant}/message:send`, { message: message("ask") })
    assert.strictEqual(sent.status, 200)
    const id = at(sent.json, "task", "id") as string
    assert.strictEqual(at(sent.json, "task", "status", "state"), "TASK_STATE_INPUT_REQUIRED")
    const config = yield* rest(server, "POST", `/${tenant}/tasks/${id}/pushNotificationConfigs`, {
      id: "hook",
      url: "https://hooks.example.com/h"
    })
    assert.strictEqual(config.status, 200)
    return id
  })

const uniqueTenant = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`

layer(Demo.layer, { excludeTestServices: true })("tenants on the wire", (it) => {
  describe("HTTP+JSON: /{tenant}/...", () => {
    it.effect("a task under /acme is TaskNotFound under /other and at the root, for every route", () =>
      Effect.gen(function*() {
        const server = yield* Demo
        const acme = uniqueTenant("acme")
        const id = yield* waitingTask(server, acme)
        for (const prefix of [`/${uniqueTenant("other")}`, ""]) {
          const replies = [
            yield* rest(server, "GET", `${prefix}/tasks/${id}`),
            yield* rest(server, "POST", `${prefix}/tasks/${id}:cancel`, {}),
            yield* rest(server, "GET", `${prefix}/tasks/${id}:subscribe`),
            yield* rest(server, "POST", `${prefix}/message:send`, { message: message("more", { taskId: id }) }),
            yield* rest(server, "POST", `${prefix}/tasks/${id}/pushNotificationConfigs`, {
              url: "https://hooks.example.com/evil"
            }),
            yield* rest(server, "GET", `${prefix}/tasks/${id}/pushNotificationConfigs`),
            yield* rest(server, "GET", `${prefix}/tasks/${id}/pushNotificationConfigs/hook`),
            yield* rest(server, "DELETE", `${prefix}/tasks/${id}/pushNotificationConfigs/hook`)
          ]
          assert.deepStrictEqual(replies.map((r) => r.status), Array(8).fill(404), `prefix "${prefix}"`)
          for (const r of replies) assert.strictEqual(at(r.json, "error", "details", 0, "reason"), "TASK_NOT_FOUND")
          const listed = yield* rest(server, "GET", `${prefix}/tasks`)
          assert.strictEqual(listed.status, 200)
          assert.notInclude((at(listed.json, "tasks") as ReadonlyArray<unknown>).map((t) => at(t, "id")), id)
        }
        // Under its own tenant it is all there, untouched.
        const own = yield* rest(server, "GET", `/${acme}/tasks/${id}`)
        assert.strictEqual(at(own.json, "status", "state"), "TASK_STATE_INPUT_REQUIRED")
        const listed = yield* rest(server, "GET", `/${acme}/tasks`)
        assert.deepStrictEqual((at(listed.json, "tasks") as ReadonlyArray<unknown>).map((t) => at(t, "id")), [id])
        const hook = yield* rest(server, "GET", `/${acme}/tasks/${id}/pushNotificationConfigs/hook`)
        assert.strictEqual(at(hook.json, "url"), "https://hooks.example.com/h")
        const done = yield* rest(server, "POST", `/${acme}/message:send`, { message: message("Ada", { taskId: id }) })
        assert.strictEqual(at(done.json, "task", "status", "state"), "TASK_STATE_COMPLETED")
      }))
  })

  describe("JSON-RPC: the tenant param", () => {
    it.effect("a task under tenant acme is TaskNotFound (-32001) under another tenant and without one", () =>
      Effect.gen(function*() {
        const server = yield* Demo
        const acme = uniqueTenant("acme")
        const sent = yield* rpc(server, "SendMessage", { tenant: acme, message: message("ask") })
        const id = at(sent.json, "result", "task", "id") as string
        assert.strictEqual(at(sent.json, "result", "task", "status", "state"), "TASK_STATE_INPUT_REQUIRED")
        const hook = yield* rpc(server, "CreateTaskPushNotificationConfig", {
          tenant: acme,
          taskId: id,
          id: "hook",
          url: "https://hooks.example.com/h"
        })
        assert.strictEqual(at(hook.json, "result", "id"), "hook")
        for (const scope of [{ tenant: uniqueTenant("other") }, {}, { tenant: "" }]) {
          const replies = [
            yield* rpc(server, "GetTask", { ...scope, id }),
            yield* rpc(server, "CancelTask", { ...scope, id }),
            yield* rpc(server, "SendMessage", { ...scope, message: message("more", { taskId: id }) }),
            yield* rpc(server, "CreateTaskPushNotificationConfig", {
              ...scope,
              taskId: id,
              url: "https://hooks.example.com/evil"
            }),
            yield* rpc(server, "ListTaskPushNotificationConfigs", { ...scope, taskId: id }),
            yield* rpc(server, "GetTaskPushNotificationConfig", { ...scope, taskId: id, id: "hook" }),
            yield* rpc(server, "DeleteTaskPushNotificationConfig", { ...scope, taskId: id, id: "hook" })
          ]
          assert.deepStrictEqual(replies.map((r) => at(r.json, "error", "code")), Array(7).fill(-32001))
          // A stream that fails before its first event is answered with the JSON-RPC error alone.
          const subscribed = yield* rpc(server, "SubscribeToTask", { ...scope, id })
          assert.strictEqual(at(subscribed.json, "error", "code"), -32001)
          const listed = yield* rpc(server, "ListTasks", scope)
          assert.notInclude((at(listed.json, "result", "tasks") as ReadonlyArray<unknown>).map((t) => at(t, "id")), id)
        }
        // The bindings agree: the task is under /{acme} on REST, and there only.
        const viaRest = yield* rest(server, "GET", `/${acme}/tasks/${id}`)
        assert.strictEqual(at(viaRest.json, "id"), id)
        const listed = yield* rpc(server, "ListTasks", { tenant: acme })
        assert.deepStrictEqual((at(listed.json, "result", "tasks") as ReadonlyArray<unknown>).map((t) => at(t, "id")), [
          id
        ])
        assert.strictEqual(at((yield* rpc(server, "GetTask", { tenant: acme, id })).json, "result", "id"), id)
      }))
  })

  describe("0.3 (no tenant: the root only)", () => {
    it.effect("a task under a tenant is TaskNotFound over 0.3 JSON-RPC and 0.3 REST; a root task is found", () =>
      Effect.gen(function*() {
        const server = yield* Demo
        const id = yield* waitingTask(server, uniqueTenant("acme"))
        const none = {}
        const replies = [
          yield* rpc(server, "tasks/get", { id }, none),
          yield* rpc(server, "tasks/cancel", { id }, none),
          yield* rpc(server, "tasks/pushNotificationConfig/get", { id, pushNotificationConfigId: "hook" }, none),
          yield* rpc(server, "tasks/pushNotificationConfig/list", { id }, none)
        ]
        assert.deepStrictEqual(replies.map((r) => at(r.json, "error", "code")), Array(4).fill(-32001))
        const viaRest = yield* request(`${server.url}/v1/tasks/${id}`)
        assert.strictEqual(viaRest.status, 404)
        // A task made at the root (no tenant) is the same task for 0.3 and 1.0 clients.
        const rootTask = yield* rest(server, "POST", "/message:send", { message: message("ask") })
        const rootId = at(rootTask.json, "task", "id") as string
        assert.strictEqual(at((yield* rpc(server, "tasks/get", { id: rootId }, none)).json, "result", "id"), rootId)
      }))
  })
})
