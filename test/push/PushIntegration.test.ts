/**
 * Push notifications through the RequestHandler, on the durable stack (SQLite store, webhook notifier,
 * guarded handler, demo agent): configs created with SendMessage or CreateTaskPushNotificationConfig reach
 * a local receiver in order; internal URLs are refused with InvalidParams before anything is stored.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Result } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as v1 from "../../src/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as CallContext from "../../src/server/CallContext.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as GuardedRequestHandler from "../../src/server/push/GuardedRequestHandler.ts"
import * as WebhookGuard from "../../src/server/push/WebhookGuard.ts"
import * as WebhookPush from "../../src/server/push/WebhookPush.ts"
import { WebhookDeliveries } from "../../src/server/push/WebhookPushNotifier.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import * as SqlStore from "../../src/store/SqlStore.ts"
import * as Receiver from "./receiver.ts"

const allowlist = Result.getOrThrow(WebhookGuard.parseAllowlist("127.0.0.1"))

const makeStack = (card = DemoAgent.card) =>
  Layer.unwrap(
    Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-push-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ).pipe(Effect.map((dir) => {
      const services = Layer.mergeAll(
        WebhookPush.layer({ allowlist, retryBaseDelay: "5 millis", retryMaxDelay: "20 millis", timeout: "2 seconds" }),
        EventBus.layerInProcess
      ).pipe(Layer.provideMerge(SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
      return GuardedRequestHandler.layer.pipe(
        Layer.provideMerge(A2AServer.layerCore({ card })),
        Layer.provide(DemoAgent.layer({ stepDelay: Duration.millis(5) })),
        Layer.provideMerge(services),
        Layer.provideMerge(Auth.layerNone)
      )
    }))
  )

const stack = makeStack()

const ctx = CallContext.make()
let n = 0
const userMessage = (text: string, taskId?: string): v1.Message => ({
  messageId: `push-it-${++n}`,
  role: "ROLE_USER",
  parts: [{ text }],
  ...(taskId !== undefined ? { taskId } : {})
})

const taskOf = (response: v1.SendMessageResponse): v1.Task => {
  if (!("task" in response)) throw new Error("expected a task")
  return response.task
}

const idle = Effect.flatMap(Effect.service(WebhookDeliveries), (d) => d.idle)

describe("push notifications through the RequestHandler", () => {
  it.live("SendMessage with a push config: every event of the task reaches the webhook, in order", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const receiver = yield* Receiver.make
      const task = taskOf(
        yield* handler.sendMessage({
          message: userMessage("task write it"),
          configuration: {
            taskPushNotificationConfig: {
              url: receiver.url("/send"),
              token: "t-1",
              authentication: { scheme: "Bearer", credentials: "abc" }
            }
          }
        }, ctx)
      )
      assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
      yield* idle
      const bodies = receiver.on("/send").map((r) => JSON.parse(r.body) as v1.StreamResponse)
      const kinds = bodies.map((b) =>
        "statusUpdate" in b ? b.statusUpdate.status.state : "artifactUpdate" in b ? "artifact" : Object.keys(b)[0]
      )
      assert.strictEqual(kinds.at(-1), "TASK_STATE_COMPLETED")
      assert.isTrue(kinds.includes("artifact"))
      // Ordered: the artifact chunks arrive in the order they were produced.
      const chunks = bodies.flatMap((b) =>
        "artifactUpdate" in b ? b.artifactUpdate.artifact.parts.flatMap((p) => ("text" in p ? [p.text] : [])) : []
      )
      assert.deepStrictEqual(chunks, ["Chunk 1. ", "Chunk 2. ", "Chunk 3."])
      for (const r of receiver.on("/send")) {
        assert.strictEqual(r.headers["x-a2a-notification-token"], "t-1")
        assert.strictEqual(r.headers["authorization"], "Bearer abc")
        assert.strictEqual(r.headers["content-type"], "application/a2a+json")
      }
      for (const b of bodies) {
        const id = "statusUpdate" in b
          ? b.statusUpdate.taskId
          : "artifactUpdate" in b
          ? b.artifactUpdate.taskId
          : "task" in b
          ? b.task.id
          : undefined
        assert.strictEqual(id, task.id)
      }
    }).pipe(Effect.provide(stack)))

  it.live("CreateTaskPushNotificationConfig on a waiting task; the continuation is pushed; delete stops it", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const receiver = yield* Receiver.make
      const asked = taskOf(yield* handler.sendMessage({ message: userMessage("ask") }, ctx))
      assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
      const created = yield* handler.createTaskPushNotificationConfig(
        { taskId: asked.id, url: receiver.url("/later"), token: "t-2" },
        ctx
      )
      assert.isString(created.id)
      const done = taskOf(yield* handler.sendMessage({ message: userMessage("Grace", asked.id) }, ctx))
      assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
      yield* idle
      const states = receiver.on("/later").flatMap((r) => {
        const b = JSON.parse(r.body) as v1.StreamResponse
        return "statusUpdate" in b ? [b.statusUpdate.status.state] : []
      })
      assert.strictEqual(states.at(-1), "TASK_STATE_COMPLETED")

      // Another waiting task: after its config is deleted, nothing is sent for it.
      const second = taskOf(yield* handler.sendMessage({ message: userMessage("ask") }, ctx))
      const config = yield* handler.createTaskPushNotificationConfig(
        { taskId: second.id, url: receiver.url("/deleted") },
        ctx
      )
      yield* handler.deleteTaskPushNotificationConfig({ taskId: second.id, id: config.id! }, ctx)
      yield* handler.sendMessage({ message: userMessage("Linus", second.id) }, ctx)
      yield* idle
      assert.strictEqual(receiver.on("/deleted").length, 0)
    }).pipe(Effect.provide(stack)))

  it.live("internal webhook URLs are refused with InvalidParams, and nothing is stored or started", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const asked = taskOf(yield* handler.sendMessage({ message: userMessage("ask") }, ctx))
      for (const url of ["http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data/", "http://[::1]:9/hook"]) {
        const error = yield* Effect.flip(handler.createTaskPushNotificationConfig({ taskId: asked.id, url }, ctx))
        assert.strictEqual(error._tag, "InvalidParams")
        assert.include(error.message, "refused")
        assert.deepStrictEqual(
          error._tag === "InvalidParams" ? error.fieldViolations?.map((v) => v.field) : [],
          ["url"]
        )
      }
      const listed = yield* handler.listTaskPushNotificationConfigs({ taskId: asked.id }, ctx)
      assert.deepStrictEqual(listed.configs ?? [], [])

      const before = (yield* handler.listTasks({}, ctx)).totalSize
      const error = yield* Effect.flip(handler.sendMessage({
        message: userMessage("task never"),
        configuration: { taskPushNotificationConfig: { url: "http://192.168.1.20/hook" } }
      }, ctx))
      assert.strictEqual(error._tag, "InvalidParams")
      assert.deepStrictEqual(
        error._tag === "InvalidParams" ? error.fieldViolations?.map((v) => v.field) : [],
        ["configuration.taskPushNotificationConfig.url"]
      )
      assert.strictEqual((yield* handler.listTasks({}, ctx)).totalSize, before)

      // A header-smuggling token is refused the same way.
      const smuggled = yield* Effect.flip(handler.createTaskPushNotificationConfig(
        { taskId: asked.id, url: "http://127.0.0.1:9/hook", token: "x\r\nX-Evil: 1" },
        ctx
      ))
      assert.strictEqual(smuggled._tag, "InvalidParams")
      assert.include(smuggled.message, "token")
    }).pipe(Effect.provide(stack)))

  it.live("without the push capability, push configs are PushNotificationNotSupported (before any URL check)", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const asked = taskOf(yield* handler.sendMessage({ message: userMessage("ask") }, ctx))
      const error = yield* Effect.flip(
        handler.createTaskPushNotificationConfig({ taskId: asked.id, url: "http://10.0.0.1/hook" }, ctx)
      )
      assert.strictEqual(error._tag, "PushNotificationNotSupported")
    }).pipe(
      Effect.provide(makeStack({ ...DemoAgent.card, capabilities: { streaming: true, pushNotifications: false } }))
    ))
})
