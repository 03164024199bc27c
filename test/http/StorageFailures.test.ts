/**
 * A store that fails says nothing of itself to the client (#12 item 12): whatever the store's error names (SQL, a
 * file, a version), every binding answers a generic InternalError and the detail goes to the log only. A store
 * that cannot be reached (its database down, #29) is told as UNAVAILABLE, retry later, in each binding's terms.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Option } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as PushNotifier from "../../src/server/PushNotifier.ts"
import { TaskStore, TaskStoreError } from "../../src/server/TaskStore.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import { at, request } from "../v0_3/fixtures/Server.ts"

const SECRET = "SQLITE_CORRUPT: database disk image is malformed in /var/lib/a2a/a2a.db at version 42 (UPDATE tasks SET"

/** A TaskStore whose every call fails with an error naming its internals (and saying it is unreachable or not). */
const failingStore = (unavailable: boolean) => {
  const failure = () => Effect.fail(new TaskStoreError({ message: SECRET, ...(unavailable ? { unavailable } : {}) }))
  return Layer.succeed(TaskStore, TaskStore.of({ get: failure, save: failure, list: failure }))
}

/** What reached the log, so the test can see the detail went there and not to the client. */
const logged: Array<string> = []

/** A server over `failingStore(unavailable)`: its URL. */
const serveOver = (unavailable: boolean) =>
  Effect.gen(function*() {
    const core = A2AServer.layerCore({ card: DemoAgent.card }).pipe(
      Layer.provide(AgentExecutor.layer(DemoAgent.make())),
      Layer.provide(
        Layer.mergeAll(
          failingStore(unavailable),
          MemoryPushConfigStore.layer,
          EventBus.layerInProcess,
          PushNotifier.layerNoop
        )
      ),
      Layer.provideMerge(Layer.succeed(Auth.Auth, Auth.none))
    )
    const server = NodeA2AServer.serve({ host: "127.0.0.1", port: 0, versions: ["1.0", "0.3"] }).pipe(
      Layer.provide(core),
      Layer.provide(A2A03.layer),
      Layer.provide(Logger.layer([Logger.make(({ cause, message }) => logged.push(`${String(message)} ${cause}`))]))
    )
    const context = yield* Layer.build(server).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    return { url: `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}` }
  })

class Failing extends Context.Service<Failing, { readonly url: string }>()("test/http/StorageFailures/Failing") {
  static readonly layer = Layer.effect(Failing, serveOver(false))
}

class Unreachable
  extends Context.Service<Unreachable, { readonly url: string }>()("test/http/StorageFailures/Unreachable")
{
  static readonly layer = Layer.effect(Unreachable, serveOver(true))
}

const V1 = { "a2a-version": "1.0", "content-type": "application/json" }

const leaks = (body: unknown): boolean => /SQLITE|a2a\.db|version 42|UPDATE tasks/.test(JSON.stringify(body))

const message = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "task report" }] }

const rpc = (url: string, method: string, params: unknown, headers: Record<string, string> = V1) =>
  request(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })

/** The same calls, over every binding (JSON-RPC 1.0 and 0.3, REST 1.0 and 0.3). */
const everyBinding = (url: string) =>
  Effect.all([
    rpc(url, "GetTask", { id: "t-1" }),
    rpc(url, "ListTasks", {}),
    rpc(url, "SendMessage", { message: { ...message, taskId: "t-1" } }),
    rpc(url, "CancelTask", { id: "t-1" }),
    rpc(url, "tasks/get", { id: "t-1" }, {}),
    request(`${url}/tasks/t-1`, { headers: V1 }),
    request(`${url}/tasks`, { headers: V1 }),
    request(`${url}/tasks/t-1:cancel`, { method: "POST", headers: V1 }),
    request(`${url}/v1/tasks/t-1`)
  ])

layer(Layer.merge(Failing.layer, Unreachable.layer), { excludeTestServices: true })(
  "storage failures on the wire",
  (it) => {
    it.effect("every binding answers a generic InternalError; the detail is logged", () =>
      Effect.gen(function*() {
        const { url } = yield* Failing
        const replies = [
          ...(yield* everyBinding(url))
        ]
        for (const reply of replies) {
          assert.isFalse(leaks(reply.json), JSON.stringify(reply.json))
          const code = at(reply.json, "error", "code") ?? at(reply.json, "code")
          assert.oneOf(code, [-32603, 500], JSON.stringify(reply.json))
          const text = (at(reply.json, "error", "message") ?? at(reply.json, "message")) as string
          assert.strictEqual(text, "Task storage failed")
        }
        assert.isTrue(logged.some((line) => line.includes("SQLITE_CORRUPT")), "the detail is logged")
        // A new task whose first save fails: the client gets the same generic answer.
        const fresh = yield* rpc(url, "SendMessage", { message: { ...message, messageId: "m-2" } })
        assert.isFalse(leaks(fresh.json), JSON.stringify(fresh.json))
        assert.strictEqual(Option.fromUndefinedOr(at(fresh.json, "error", "code")).pipe(Option.getOrUndefined), -32603)
      }))

    it.effect("an unreachable store: every binding says UNAVAILABLE, retry later (REST 503 + Retry-After)", () =>
      Effect.gen(function*() {
        const { url } = yield* Unreachable
        const fresh = yield* rpc(url, "SendMessage", { message: { ...message, messageId: "m-3" } })
        for (const reply of [...(yield* everyBinding(url)), fresh]) {
          assert.isFalse(leaks(reply.json), JSON.stringify(reply.json))
          // JSON-RPC: `error.data`; REST 1.0: `error.details` (google.rpc.Status); REST 0.3: the bare `data`.
          const details = (at(reply.json, "error", "data") ?? at(reply.json, "error", "details") ??
            at(reply.json, "data")) as ReadonlyArray<{ readonly reason?: string; readonly retryDelay?: string }>
          const reason = details.find((d) => d.reason !== undefined)?.reason
          assert.strictEqual(reason, "UNAVAILABLE", JSON.stringify(reply.json))
          assert.strictEqual(details.find((d) => d.retryDelay !== undefined)?.retryDelay, "2s")
          if (reply.status === 200) assert.strictEqual(at(reply.json, "error", "code"), -32603)
          else {
            assert.strictEqual(reply.status, 503)
            assert.strictEqual(reply.headers.get("retry-after"), "2")
          }
        }
      }))
  }
)
