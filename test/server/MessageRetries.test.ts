/**
 * Safe retries over the memory stores and the SQLite stores (see MessageRetries.ts), and what only they show: the
 * memory receipts' bounds and a window of zero; a receipt the storage cannot take back at once; SQLite's receipts
 * surviving a restart.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Arbitrary, ConfigProvider, Effect, Fiber, Layer, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as MemoryMessageReceipts from "../../src/server/memory/MemoryMessageReceipts.ts"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import { fingerprint, MessageReceipts } from "../../src/server/MessageReceipts.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { TaskStoreError } from "../../src/server/TaskStore.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { card, coreOver, CountingAgent, ctxFor, message, retrySuite, uniqueId } from "./MessageRetries.ts"

const memory = Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer, EventBus.layerInProcess)

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-retries-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

retrySuite("safe retries (memory stores)", memory)

retrySuite(
  "safe retries (SQLite stores)",
  Layer.unwrap(Effect.map(tempDir, (dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)

/** The server over the memory stores, keeping no receipts. */
const withoutReceipts = (agent: CountingAgent) =>
  coreOver(agent).pipe(Layer.provide(MemoryMessageReceipts.layerWith({ window: 0 })), Layer.provide(memory))

/** A task waiting for input: its id. */
const askedTask = (handler: RequestHandler["Service"], ctx: ReturnType<typeof ctxFor>) =>
  Effect.map(
    handler.sendMessage({ message: message(`ask ${uniqueId("x")}`) }, ctx),
    (asked) => "task" in asked ? asked.task.id : ""
  )

const sends = (text: string) =>
  Effect.gen(function*() {
    const handler = yield* RequestHandler
    const ctx = ctxFor("alice")
    const sent = message(text)
    yield* handler.sendMessage({ message: sent }, ctx)
    yield* handler.sendMessage({ message: sent }, ctx)
  })

describe("the fingerprint of a message body", () => {
  it("is the same for the same body in any field order and with unset fields; else different", () => {
    const base: v1.Message = { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] }
    const same: ReadonlyArray<v1.Message> = [
      { parts: [{ text: "hi", metadata: {} }], role: "ROLE_USER", messageId: "m", contextId: "" },
      { ...base, extensions: [], referenceTaskIds: [], metadata: {} }
    ]
    for (const m of same) assert.strictEqual(fingerprint(m), fingerprint(base))
    const different: ReadonlyArray<v1.Message> = [
      { ...base, parts: [{ text: "hi!" }] },
      { ...base, contextId: "c" },
      { ...base, metadata: { a: 1 } },
      { ...base, parts: [{ text: "hi" }, { text: "hi" }] },
      { ...base, role: "ROLE_AGENT" }
    ]
    const prints = new Set([fingerprint(base), ...different.map(fingerprint)])
    assert.strictEqual(prints.size, different.length + 1)
    // A long body is digested (64 hex digits); two long bodies differing in one character differ.
    const long = (c: string) => fingerprint({ ...base, parts: [{ text: "x".repeat(1000) + c }] })
    assert.match(long("a"), /^[0-9a-f]{64}$/)
    assert.notStrictEqual(long("a"), long("b"))
    assert.isTrue(fingerprint(base).startsWith("{"))
  })
})

/**
 * The fingerprint as it was first written (keys sorted by `Object.keys(...).sort()`): receipts kept in SQLite hold
 * fingerprints made by it, so the one in use must give the same string for every body.
 */
const oracle = (message: v1.Message): string => {
  const canonical = (value: unknown): string | undefined => {
    if (value === undefined || value === null || value === "") return undefined
    if (typeof value !== "object") return JSON.stringify(value)
    if (Array.isArray(value)) {
      if (value.length === 0) return undefined
      return `[${value.map((item) => canonical(item) ?? "null").join(",")}]`
    }
    const fields = Object.keys(value).sort().flatMap((key) => {
      const field = canonical((value as Record<string, unknown>)[key])
      return field === undefined ? [] : [`${JSON.stringify(key)}:${field}`]
    })
    return fields.length === 0 ? undefined : `{${fields.join(",")}}`
  }
  const body = canonical(message) ?? "{}"
  return body.length <= 256 ? body : createHash("sha256").update(body).digest("hex")
}

describe("the fingerprint against the first one written", () => {
  // Metadata of any JSON, with many keys (above the fingerprint's threshold for sorting) or few, any key order.
  const json = Arbitrary.schema(Schema.Record(Schema.String, Schema.Json))
  it.prop("any message, any metadata", [Arbitrary.schema(v1.Message), json, json], ([message, a, b]) => {
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${(i * 7) % 20}`, i % 3 === 0 ? "" : i]))
    const bodies: ReadonlyArray<v1.Message> = [
      message,
      { ...message, metadata: a },
      { ...message, metadata: { ...b, ...a, wide }, parts: [...message.parts, { data: b, metadata: wide }] }
    ]
    for (const body of bodies) assert.strictEqual(fingerprint(body), oracle(body))
  })
})

describe("safe retries, receipts kept in memory", () => {
  it.effect("a window of zero keeps no receipt: every send runs", () => {
    const agent = new CountingAgent()
    const text = `task ${uniqueId("x")}`
    return sends(text).pipe(
      Effect.provide(
        withoutReceipts(agent)
      ),
      Effect.andThen(Effect.sync(() => assert.strictEqual(agent.runs(text), 2)))
    )
  })

  it.effect("with no receipts, a message already in its task's history still does not run again", () => {
    const agent = new CountingAgent()
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const taskId = yield* askedTask(handler, ctx)
      const answer = message(`answer ${uniqueId("x")}`, { taskId })
      const first = yield* handler.sendMessage({ message: answer }, ctx)
      const again = yield* handler.sendMessage({ message: answer }, ctx)
      assert.deepStrictEqual(again, first)
      assert.strictEqual(agent.runs(AgentExecutor.textOf(answer)), 1)
      const history = "task" in again ? again.task.history ?? [] : []
      assert.strictEqual(history.filter((m) => m.messageId === answer.messageId).length, 1)
      const changed = { ...answer, parts: [{ text: `answer ${uniqueId("x")}` }] }
      assert.strictEqual((yield* Effect.flip(handler.sendMessage({ message: changed }, ctx)))._tag, "InvalidParams")
    }).pipe(
      Effect.provide(
        withoutReceipts(agent)
      )
    )
  })

  it.live("with no receipts, a message waiting twice for its task's turn runs once", () => {
    const agent = new CountingAgent()
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const taskId = yield* askedTask(handler, ctx)
      const gate = uniqueId("gate")
      const later = { configuration: { returnImmediately: true } }
      yield* handler.sendMessage({ message: message(`hold ${gate}`, { taskId }), ...later }, ctx)
      // Two sends of one message wait for the held turn; the first takes the next turn, the second finds it taken.
      const more = message(`more ${uniqueId("x")}`, { taskId })
      const first = yield* Effect.forkChild(handler.sendMessage({ message: more }, ctx))
      const second = yield* Effect.forkChild(handler.sendMessage({ message: more }, ctx))
      yield* Effect.sleep("20 millis")
      yield* agent.open(gate)
      const answers = [yield* Fiber.join(first), yield* Fiber.join(second)]
      assert.strictEqual(agent.runs(AgentExecutor.textOf(more)), 1)
      const states = answers.map((r) => ("task" in r ? r.task.status.state : "message"))
      assert.deepStrictEqual(states, ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_INPUT_REQUIRED"])
      const task = yield* handler.getTask({ id: taskId }, ctx)
      assert.strictEqual(task.history?.filter((m) => m.messageId === more.messageId).length, 1)
    }).pipe(
      Effect.provide(
        withoutReceipts(agent)
      )
    )
  })

  it.effect("the window is a server option, and A2A_IDEMPOTENCY_WINDOW", () =>
    Effect.gen(function*() {
      const agent = new CountingAgent()
      const [optioned, configured, defaulted] = [uniqueId("a"), uniqueId("b"), uniqueId("c")].map((x) => `task ${x}`)
      yield* sends(optioned!).pipe(
        Effect.provide(A2AServer.layer({ card, executor: agent.executor, idempotencyWindow: "0 millis" }))
      )
      const fromEnv = (env: Record<string, string>) =>
        A2AServer.layerConfig({ card, executor: agent.executor }).pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
        )
      yield* sends(configured!).pipe(Effect.provide(fromEnv({ A2A_IDEMPOTENCY_WINDOW: "0 millis" })))
      yield* sends(defaulted!).pipe(Effect.provide(fromEnv({})))
      assert.deepStrictEqual([optioned, configured, defaulted].map((text) => agent.runs(text!)), [2, 2, 1])
    }))

  layer(
    Layer.mergeAll(coreOver(new CountingAgent()), MemoryMessageReceipts.layerWith({ maxReceipts: 2 })).pipe(
      Layer.provideMerge(memory)
    )
  )("bounded", (it) => {
    it.effect("beyond maxReceipts the oldest receipt is forgotten", () =>
      Effect.gen(function*() {
        const receipts = yield* MemoryMessageReceipts.makeWith({ maxReceipts: 2 })
        const key = (messageId: string) => ({ owner: "alice", tenant: "", messageId })
        for (const id of ["m1", "m2", "m3"]) yield* receipts.claim(key(id), "print", `task-${id}`)
        assert.isTrue((yield* receipts.get(key("m1")))._tag === "None")
        assert.isTrue((yield* receipts.get(key("m3")))._tag === "Some")
        // Given back, m3 may be claimed again; a claim of another task is left alone.
        yield* receipts.release(key("m2"), "task-other")
        assert.isTrue((yield* receipts.get(key("m2")))._tag === "Some")
        yield* receipts.release(key("m3"), "task-m3")
        assert.isTrue((yield* receipts.claim(key("m3"), "print", "task-again"))._tag === "None")
      }))
  })
})

/** Memory receipts whose `release` fails as an unreachable database does while `down` holds. */
const flakyReceipts = (down: { value: boolean }) =>
  Layer.effect(
    MessageReceipts,
    Effect.map(MemoryMessageReceipts.make, (receipts) =>
      MessageReceipts.of({
        ...receipts,
        release: (key, taskId) =>
          Effect.suspend(() =>
            down.value
              ? Effect.fail(new TaskStoreError({ message: "connection refused", unavailable: true }))
              : receipts.release(key, taskId)
          )
      }))
  )

describe("safe retries, a receipt the storage cannot take back at once", () => {
  it.live("a retry meanwhile is refused promptly (Unavailable); once the storage answers, the same message runs again", () => {
    const agent = new CountingAgent()
    const down = { value: true }
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const receipts = yield* MessageReceipts
      const ctx = ctxFor("alice")
      // Each answer comes well before RETRY_WAIT (30 s), which a retry waits for a send in progress.
      const send = (sent: v1.Message) =>
        Effect.map(Effect.flip(Effect.timeout(handler.sendMessage({ message: sent }, ctx), "5 seconds")), (e) => e._tag)
      const held = (sent: v1.Message) =>
        Effect.map(receipts.get({ owner: "alice", tenant: "", messageId: sent.messageId }), (r) => r._tag === "Some")
      // Its agent fails before any task: the send is not accepted, and its receipt cannot be given back yet.
      const sent = message(`fail ${uniqueId("x")}`)
      assert.strictEqual(yield* send(sent), "ContentTypeNotSupported")
      // Sent again while the storage still fails: UNAVAILABLE, the agent not run.
      assert.strictEqual(yield* send(sent), "Unavailable")
      assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
      // The storage answers again: the same message runs anew at once (its receipt given back by this send).
      down.value = false
      assert.strictEqual(yield* send(sent), "ContentTypeNotSupported")
      assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 2)
      // With no send to give it back, the server does, once the storage answers.
      down.value = true
      const other = message(`fail ${uniqueId("x")}`)
      assert.strictEqual(yield* send(other), "ContentTypeNotSupported")
      yield* Effect.sleep("1500 millis")
      assert.isTrue(yield* held(other), "held while the storage fails")
      down.value = false
      yield* Effect.sleep("1500 millis")
      assert.isFalse(yield* held(other), "given back once it answers")
    }).pipe(
      Effect.provide(Layer.provideMerge(coreOver(agent), Layer.merge(flakyReceipts(down), memory)))
    )
  })
})

describe("safe retries, a task no longer kept", () => {
  const agent = new CountingAgent()
  layer(coreOver(agent).pipe(Layer.provideMerge(memory)))("memory store", (it) => {
    it.effect("a retry after its task was forgotten gets TaskNotFound, and the agent does not run again", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const sent = message(`task ${uniqueId("x")}`)
        yield* handler.sendMessage({ message: sent }, ctx)
        // The memory store forgets an ended task after an hour; the receipt is kept for a day.
        yield* TestClock.adjust("2 hours")
        const error = yield* Effect.flip(handler.sendMessage({ message: sent }, ctx))
        assert.strictEqual(error._tag, "TaskNotFound")
        assert.match(error.message, /was accepted for task .*which is not found/)
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
      }))
  })
})

describe("safe retries, SQLite across a restart", () => {
  it.live("a message sent again after the server restarts on its file is answered with its task", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const agent = new CountingAgent()
      const ctx = ctxFor("alice")
      const sent = message(`task ${uniqueId("x")}`)
      const replied = message(`reply ${uniqueId("x")}`)
      const server = coreOver(agent).pipe(
        Layer.provideMerge(SqlStore.layerSqlite({ filename: join(dir, "a2a.db") }))
      )
      const run = (f: (handler: RequestHandler["Service"]) => Effect.Effect<unknown, unknown>) =>
        RequestHandler.use(f).pipe(Effect.provide(server))
      const first = yield* run((handler) =>
        Effect.all([handler.sendMessage({ message: sent }, ctx), handler.sendMessage({ message: replied }, ctx)])
      )
      const again = yield* run((handler) =>
        Effect.all([handler.sendMessage({ message: sent }, ctx), handler.sendMessage({ message: replied }, ctx)])
      )
      assert.deepStrictEqual(again, first)
      assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
      assert.strictEqual(agent.runs(AgentExecutor.textOf(replied)), 1)
    }).pipe(Effect.scoped))

  it.live("receipts past the window are deleted from the database", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const agent = new CountingAgent()
      const server = coreOver(agent).pipe(
        Layer.provideMerge(SqlStore.layerSqlite({ filename: join(dir, "a2a.db"), idempotencyWindow: "300 millis" }))
      )
      const rows = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM a2a_message_receipts`
        return Number(row?.n ?? -1)
      })
      const counts = yield* Effect.gen(function*() {
        const handler = yield* RequestHandler
        yield* handler.sendMessage({ message: message(`task ${uniqueId("x")}`) }, ctxFor())
        yield* handler.sendMessage({ message: message(`reply ${uniqueId("x")}`) }, ctxFor())
        const before = yield* rows
        yield* Effect.sleep("1 second")
        return [before, yield* rows]
      }).pipe(Effect.provide(server))
      assert.deepStrictEqual(counts, [2, 0])
    }).pipe(Effect.scoped))
})
