/**
 * What the SQL stores write as JSON (src/sql/internal/SqlMessageReceipts.ts, SqlTaskRows.ts: JSON.stringify of the
 * protocol values, read back with their Schemas) on a real SQLite file: a direct reply recorded in a receipt, and a
 * task with its history, read back as the same values, every kind of part and field included, also after the
 * server restarts on its file.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { fingerprint, MessageReceipts } from "../../src/server/MessageReceipts.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-receipts-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** A reply with every kind of part, metadata, a null inside data, unicode and the optional fields set. */
const reply: v1.Message = {
  messageId: "reply-1",
  role: "ROLE_AGENT",
  contextId: "ctx-1",
  taskId: "",
  extensions: ["https://example.com/ext/v1"],
  referenceTaskIds: ["t-0"],
  metadata: { source: "test", nested: { n: 1.5, ok: true, none: null, list: ["a", 2] } },
  parts: [
    { text: "héllo \"quoted\" \u2028 line" },
    { raw: "AAECAwQ=", mediaType: "application/octet-stream", filename: "bytes.bin" },
    { url: "https://example.com/file.txt", mediaType: "text/plain" },
    { data: { answer: 42, items: [null, { deep: "x" }] }, metadata: { part: "data" } }
  ]
}

const asked: v1.Message = { messageId: "asked-1", role: "ROLE_USER", parts: [{ text: "hi" }] }
const key = { owner: "alice", tenant: "", messageId: asked.messageId }

describe("SQL receipts, a direct reply", () => {
  it.live("reads back as the same message, also after a restart on the same file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const store = SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })
      const first = yield* Effect.gen(function*() {
        const receipts = yield* MessageReceipts
        const claimed = yield* receipts.claim(key, fingerprint(asked), "t-1")
        assert.isTrue(Option.isNone(claimed))
        yield* receipts.reply(key, reply)
        return yield* receipts.get(key)
      }).pipe(Effect.provide(store))
      const again = yield* Effect.gen(function*() {
        const receipts = yield* MessageReceipts
        return yield* receipts.claim(key, fingerprint(asked), "t-2")
      }).pipe(Effect.provide(store))
      for (const receipt of [first, again]) {
        assert.isTrue(Option.isSome(receipt))
        if (Option.isNone(receipt)) return
        assert.strictEqual(receipt.value.taskId, "t-1")
        assert.deepStrictEqual(receipt.value.reply, Option.some(reply))
      }
    }).pipe(Effect.scoped))
})

/** A completed task with every kind of part in its artifact, metadata, a status message and a rich history. */
const task: v1.Task = {
  id: "t-json",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-12-06T12:00:00.123Z", message: reply },
  artifacts: [{
    artifactId: "a-1",
    name: "result",
    description: "all parts",
    parts: reply.parts,
    metadata: { k: [1, "two", null] },
    extensions: ["https://example.com/ext/v1"]
  }],
  history: [asked, reply],
  metadata: { owner: "alice", deep: { list: [{ x: 1 }] } }
}

describe("SQL task rows, a task with its history", () => {
  it.live("reads back as the same task, also after a restart on the same file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const store = SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })
      const scope = { owner: "alice", tenant: "" }
      const first = yield* Effect.gen(function*() {
        const tasks = yield* TaskStore
        yield* tasks.save({ ...scope, task, version: 0 })
        return yield* tasks.get(task.id, scope)
      }).pipe(Effect.provide(store))
      const again = yield* TaskStore.use((tasks) => tasks.get(task.id, scope)).pipe(Effect.provide(store))
      for (const record of [first, again]) {
        assert.isTrue(Option.isSome(record))
        if (Option.isNone(record)) return
        assert.deepStrictEqual(record.value.task, task)
      }
    }).pipe(Effect.scoped))
})
