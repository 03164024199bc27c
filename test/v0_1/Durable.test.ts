/**
 * A2A 0.1 on the durable stack (SQLite store, webhook notifier, guarded handler, demo agent) served over HTTP with
 * the 0.1 wing: webhooks registered over 0.1 (with `tasks/send`'s `pushNotification`, spec 0.1 section 9.4, or with
 * `tasks/pushNotification/set`) receive 0.1 Tasks under the id their client gave, with the client's token; two
 * sends that name one new task at once make one task (a store that saves asynchronously leaves a window there).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Logger, Result, Schema } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as WebhookPush from "../../src/node/push/WebhookPush.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as GuardedRequestHandler from "../../src/server/push/GuardedRequestHandler.ts"
import * as WebhookGuard from "../../src/server/push/WebhookGuard.ts"
import { WebhookDeliveries } from "../../src/server/push/WebhookPushNotifier.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import * as A2A01 from "../../src/v0_1/A2A01.ts"
import * as V01 from "../../src/v0_1/protocol/Schemas.ts"
import * as Receiver from "../server/push/receiver.ts"
import { upstream } from "./fixtures/UpstreamSchema.ts"

const spec01 = upstream("0.1.0")

const allowlist = Result.getOrThrow(WebhookGuard.parseAllowlist("127.0.0.1"))

const stack = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-push01-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) =>
    GuardedRequestHandler.layer.pipe(
      Layer.provideMerge(A2AServer.layerCore({ card: DemoAgent.card })),
      Layer.provide(DemoAgent.layer({ stepDelay: Duration.millis(5) })),
      Layer.provideMerge(
        Layer.mergeAll(
          WebhookPush.layer({
            allowlist,
            retryBaseDelay: "5 millis",
            retryMaxDelay: "20 millis",
            timeout: "2 seconds"
          }),
          EventBus.layerInProcess
        ).pipe(Layer.provideMerge(SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
      ),
      Layer.provideMerge(Auth.layerNone)
    )
  ))
)

const served = Effect.gen(function*() {
  const context = yield* Layer.build(
    NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provideMerge(stack),
      Layer.provide(A2A01.layer),
      Layer.provide(Logger.layer([]))
    )
  ).pipe(Effect.orDie)
  const address = Context.get(context, HttpServer.HttpServer).address
  const port = NetAddress.isInetAddress(address) ? address.port : 0
  return { url: `http://127.0.0.1:${port}/`, idle: Context.get(context, WebhookDeliveries).idle }
})

const rpc = (url: string, method: string, params: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
    })
    return (await response.json()) as { readonly result?: Record<string, unknown>; readonly error?: unknown }
  })

const decodeTask = Schema.decodeUnknownSync(Schema.fromJsonString(V01.Task))

describe("0.1 on the durable stack", () => {
  it.live("two sends naming one new task at once: one starts it, the other continues it or is told to retry", () =>
    Effect.gen(function*() {
      const server = yield* served
      for (let round = 0; round < 5; round++) {
        const id = `task-race-${round}-${Math.random().toString(36).slice(2)}`
        const send = (text: string) =>
          rpc(server.url, "tasks/send", { id, message: { role: "user", parts: [{ type: "text", text }] } })
        const replies = yield* Effect.all([send("ask one"), send("ask two")], { concurrency: 2 })
        for (const reply of replies) {
          if (reply.error === undefined) assert.strictEqual(reply.result?.["id"], id)
          else assert.strictEqual((reply.error as { code?: number }).code, -32004)
        }
        const got = yield* rpc(server.url, "tasks/get", { id })
        const history = (got.result?.["history"] ?? []) as ReadonlyArray<{ role: string }>
        // every message taken is in the one task: none was lost to a second task saved over the first
        assert.strictEqual(
          history.filter((m) => m.role === "user").length,
          replies.filter((r) => r.error === undefined).length
        )
        yield* rpc(server.url, "tasks/cancel", { id })
      }
    }).pipe(Effect.scoped))

  it.live("receive 0.1 Tasks under the client's task id, with its token", () =>
    Effect.gen(function*() {
      const server = yield* served
      const receiver = yield* Receiver.make
      const id = `task-reportgen-${Math.random().toString(36).slice(2)}`
      const sent = yield* rpc(server.url, "tasks/send", {
        id,
        message: { role: "user", parts: [{ type: "text", text: "ask Generate the Q1 sales report." }] },
        pushNotification: { url: receiver.url("/send"), token: "secure-client-token-for-task-aaa" }
      })
      assert.isUndefined(sent.error)
      const set = yield* rpc(server.url, "tasks/pushNotification/set", {
        id,
        pushNotificationConfig: { url: receiver.url("/set"), token: "t-set" }
      })
      assert.isUndefined(set.error)
      const done = yield* rpc(server.url, "tasks/send", {
        id,
        message: { role: "user", parts: [{ type: "text", text: "Grace" }] }
      })
      assert.strictEqual((done.result?.["status"] as { state?: string } | undefined)?.state, "completed")
      yield* server.idle

      // `set` replaced the config the send registered (one per task in 0.1): later events go to /set only
      const after = receiver.on("/set")
      assert.isAbove(after.length, 0)
      for (const r of [...receiver.on("/send"), ...after]) {
        assert.strictEqual(r.headers["content-type"], "application/json")
        const task = decodeTask(r.body)
        if (spec01 !== undefined) assert.isTrue(spec01("Task")(task), r.body)
        assert.strictEqual(task.id, id)
        assert.notProperty(task, "kind")
      }
      for (const r of after) assert.strictEqual(r.headers["x-a2a-notification-token"], "t-set")
      const last = decodeTask(after.at(-1)!.body)
      assert.strictEqual(last.status.state, "completed")
      assert.deepStrictEqual(last.artifacts?.map((a) => a.parts), [[{ type: "text", text: "Hello, Grace!" }]])
    }).pipe(Effect.scoped))
})
