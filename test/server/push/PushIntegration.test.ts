/**
 * Push notifications through the RequestHandler, on the durable stack (SQLite store, webhook notifier,
 * guarded handler, demo agent): configs created with SendMessage or CreateTaskPushNotificationConfig reach
 * a local receiver in order; internal URLs are refused with InvalidParams before anything is stored. Served
 * over HTTP (1.0 and 0.3), each webhook receives payloads of the protocol version its config was registered in.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Logger, Result } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeA2AServer from "../../../src/node/NodeA2AServer.ts"
import * as WebhookPush from "../../../src/node/push/WebhookPush.ts"
import type * as v0_3 from "../../../src/protocol/generated/v0_3.ts"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../../src/server/A2AServer.ts"
import * as Auth from "../../../src/server/Auth.ts"
import * as CallContext from "../../../src/server/CallContext.ts"
import * as DemoAgent from "../../../src/server/DemoAgent.ts"
import * as EventBus from "../../../src/server/EventBus.ts"
import * as GuardedRequestHandler from "../../../src/server/push/GuardedRequestHandler.ts"
import * as WebhookGuard from "../../../src/server/push/WebhookGuard.ts"
import { WebhookDeliveries } from "../../../src/server/push/WebhookPushNotifier.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import * as SqlStore from "../../../src/sql/SqlStore.ts"
import * as A2A03 from "../../../src/v0_3/A2A03.ts"
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

/** The durable stack served over HTTP with 1.0 and 0.3, on 127.0.0.1. */
const served = Effect.gen(function*() {
  const context = yield* Layer.build(
    NodeA2AServer.serve({ host: "127.0.0.1", port: 0, versions: ["1.0", "0.3"] }).pipe(
      Layer.provideMerge(stack),
      Layer.provide(A2A03.layer),
      Layer.provide(Logger.layer([]))
    )
  ).pipe(Effect.orDie)
  const address = Context.get(context, HttpServer.HttpServer).address
  const port = NetAddress.isInetAddress(address) ? address.port : 0
  return { url: `http://127.0.0.1:${port}/`, idle: Context.get(context, WebhookDeliveries).idle }
})

/** A JSON-RPC call; `version` "1.0" sends A2A-Version 1.0, undefined sends none (a 0.3 client). */
const rpc = (url: string, method: string, params: unknown, version?: "1.0") =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(version !== undefined ? { "a2a-version": version } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
    })
    return (await response.json()) as { readonly result?: Record<string, unknown>; readonly error?: unknown }
  })

describe("webhook payloads in the protocol version of their config", () => {
  it.live("a config registered over 0.3 receives 0.3 Tasks (spec 0.3 section 9.5); one over 1.0 StreamResponses", () =>
    Effect.gen(function*() {
      const server = yield* served
      const receiver = yield* Receiver.make
      // A waiting task, created by a 0.3 client.
      const asked = yield* rpc(server.url, "message/send", {
        message: { kind: "message", messageId: `push-v03-${++n}`, role: "user", parts: [{ kind: "text", text: "ask" }] }
      })
      const taskId = asked.result?.["id"] as string
      assert.strictEqual(asked.result?.["kind"], "task")
      const set = yield* rpc(server.url, "tasks/pushNotificationConfig/set", {
        taskId,
        pushNotificationConfig: { id: "legacy", url: receiver.url("/v03"), token: "t-03" }
      })
      assert.isUndefined(set.error)
      const created = yield* rpc(server.url, "CreateTaskPushNotificationConfig", {
        taskId,
        id: "current",
        url: receiver.url("/v10"),
        token: "t-10"
      }, "1.0")
      assert.isUndefined(created.error)
      // The stored version stays on the server: neither binding shows it.
      assert.notProperty(created.result ?? {}, "protocolVersion")
      const listed = yield* rpc(server.url, "ListTaskPushNotificationConfigs", { taskId }, "1.0")
      for (const config of (listed.result?.["configs"] ?? []) as ReadonlyArray<object>) {
        assert.notProperty(config, "protocolVersion")
      }
      // Continued by a 1.0 client: the task runs to completion and both webhooks hear of every step.
      const done = yield* rpc(server.url, "SendMessage", {
        message: { messageId: `push-v10-${++n}`, role: "ROLE_USER", parts: [{ text: "Grace" }], taskId }
      }, "1.0")
      assert.isUndefined(done.error)
      yield* server.idle

      const legacy = receiver.on("/v03")
      const current = receiver.on("/v10")
      assert.isAbove(legacy.length, 1)
      assert.strictEqual(legacy.length, current.length)
      for (const r of legacy) {
        assert.strictEqual(r.headers["content-type"], "application/json")
        assert.strictEqual(r.headers["x-a2a-notification-token"], "t-03")
        const task = JSON.parse(r.body) as v0_3.Task
        assert.strictEqual(task.kind, "task")
        assert.strictEqual(task.id, taskId)
        assert.isString(task.contextId)
        assert.notProperty(task, "statusUpdate")
      }
      const legacyStates = legacy.map((r) => (JSON.parse(r.body) as v0_3.Task).status.state)
      assert.strictEqual(legacyStates.at(-1), "completed")
      const last = JSON.parse(legacy.at(-1)!.body) as v0_3.Task
      // The whole task as it then is, in 0.3 shapes: the artifact and the history (0.3 parts carry `kind`).
      assert.deepStrictEqual(last.artifacts?.map((a) => a.parts), [[{ kind: "text", text: "Hello, Grace!" }]])
      assert.deepStrictEqual(last.history?.map((m) => m.role).slice(0, 1), ["user"])

      for (const r of current) {
        assert.strictEqual(r.headers["content-type"], "application/a2a+json")
        assert.strictEqual(r.headers["x-a2a-notification-token"], "t-10")
      }
      const currentEvents = current.map((r) => JSON.parse(r.body) as v1.StreamResponse)
      const lastEvent = currentEvents.at(-1)
      assert.isTrue(lastEvent !== undefined && "statusUpdate" in lastEvent)
      assert.strictEqual(
        lastEvent !== undefined && "statusUpdate" in lastEvent ? lastEvent.statusUpdate.status.state : undefined,
        "TASK_STATE_COMPLETED"
      )
    }).pipe(Effect.scoped))

  it.live("a 0.3 message/send with a pushNotificationConfig: its webhook receives 0.3 Tasks", () =>
    Effect.gen(function*() {
      const server = yield* served
      const receiver = yield* Receiver.make
      const sent = yield* rpc(server.url, "message/send", {
        message: {
          kind: "message",
          messageId: `push-v03-${++n}`,
          role: "user",
          parts: [{ kind: "text", text: "task write it" }]
        },
        configuration: { pushNotificationConfig: { url: receiver.url("/send03"), token: "t" } }
      })
      assert.strictEqual(sent.result?.["kind"], "task")
      yield* server.idle
      const bodies = receiver.on("/send03").map((r) => JSON.parse(r.body) as v0_3.Task)
      assert.isAbove(bodies.length, 2)
      assert.deepStrictEqual([...new Set(bodies.map((b) => b.kind))], ["task"])
      assert.strictEqual(bodies.at(-1)?.status.state, "completed")
      // Artifact chunks show up as the task's artifact grows, in order.
      const texts = bodies.map((b) =>
        (b.artifacts ?? []).flatMap((a) => a.parts.flatMap((p) => (p.kind === "text" ? [p.text] : []))).join("")
      )
      assert.strictEqual(texts.at(-1), "Chunk 1. Chunk 2. Chunk 3.")
      assert.deepStrictEqual(texts.filter((t, i) => i === 0 || t !== texts[i - 1]).filter((t) => t !== ""), [
        "Chunk 1. ",
        "Chunk 1. Chunk 2. ",
        "Chunk 1. Chunk 2. Chunk 3."
      ])
    }).pipe(Effect.scoped))
})
