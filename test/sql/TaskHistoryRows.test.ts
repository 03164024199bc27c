/**
 * A task's history in rows of its own (SqlTaskRows): a save appends the messages the stored history lacks and
 * leaves the stored ones alone; a replaced history is written anew; a history another writer changed is read
 * before appending, as is one stored meanwhile of a task found absent; a refused save writes no row; reads put the task back together, on SQLite and PostgreSQL.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqlTaskStore from "../../src/sql/internal/SqlTaskStore.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { message, record, root, task } from "./fixtures.ts"
import { skipReason, testDatabaseUrl, withFreshSchema } from "./pg.ts"

const sqlite = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-history-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)

/** The history rows stored for a task, as [seq, messageId]. */
const rowsOf = (taskId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ seq: number | string; message: string }>`
      SELECT seq, ${sql.onDialectOrElse({ pg: () => sql`message::text AS message`, orElse: () => sql`message` })}
      FROM a2a_task_history WHERE task_id = ${taskId} ORDER BY seq`
    return rows.map((row) => [Number(row.seq), (JSON.parse(row.message) as v1.Message).messageId] as const)
  })

/** Marks a stored history row, so a later save that rewrote it would show. */
const mark = (taskId: string, seq: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const marked = JSON.stringify({ ...message("marked"), messageId: `marked-${seq}` })
    yield* sql.onDialectOrElse({
      pg: () => sql`UPDATE a2a_task_history SET message = ${marked}::jsonb WHERE task_id = ${taskId} AND seq = ${seq}`,
      orElse: () => sql`UPDATE a2a_task_history SET message = ${marked} WHERE task_id = ${taskId} AND seq = ${seq}`
    })
  })

const suite = (name: string, stores: Layer.Layer<SqlStore.Services, unknown>) =>
  describe(name, () => {
    it.effect("a save appends the new messages only; reads give the whole history in order", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const [m1, m2, m3, m4] = [message("one"), message("two", "ROLE_AGENT"), message("three"), message("four")]
        const t = task({ history: [m1!] })
        yield* store.save(record(t, "alice", 1))
        yield* store.save(record({ ...t, history: [m1!, m2!] }, "alice", 2))
        assert.deepStrictEqual(yield* rowsOf(t.id), [[0, m1!.messageId], [1, m2!.messageId]])
        // Were the stored rows written again, the marks would be gone.
        yield* mark(t.id, 0)
        yield* store.save(record({ ...t, history: [m1!, m2!, m3!, m4!] }, "alice", 3))
        assert.deepStrictEqual(yield* rowsOf(t.id), [
          [0, "marked-0"],
          [1, m2!.messageId],
          [2, m3!.messageId],
          [3, m4!.messageId]
        ])
        const read = Option.getOrThrow(yield* store.get(t.id, root("alice")))
        assert.deepStrictEqual(
          read.task.history?.map((m) => m.messageId),
          ["marked-0", m2!.messageId, m3!.messageId, m4!.messageId]
        )
        assert.strictEqual(read.version, 3)
        const page = yield* store.list(root("alice"), { pageSize: 10, includeArtifacts: false })
        assert.deepStrictEqual(page.tasks.find((x) => x.id === t.id)?.history, read.task.history)
      }).pipe(Effect.provide(stores)))

    it.effect("a replaced history is written anew; an emptied one leaves no rows; a task without one reads so", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const old = [message("a"), message("b"), message("c")]
        const t = task({ history: old })
        yield* store.save(record(t, "alice", 1))
        const replaced = [message("x"), message("y")]
        yield* store.save(record({ ...t, history: replaced }, "alice", 2))
        assert.deepStrictEqual(yield* rowsOf(t.id), replaced.map((m, i) => [i, m.messageId] as const))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.get(t.id, root("alice"))).task.history, replaced)
        // Same length, another last message: replaced too.
        const swapped = [replaced[0]!, message("z")]
        yield* store.save(record({ ...t, history: swapped }, "alice", 3))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.get(t.id, root("alice"))).task.history, swapped)
        const { history: _, ...bare } = t
        yield* store.save(record(bare, "alice", 4))
        assert.deepStrictEqual(yield* rowsOf(t.id), [])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.get(t.id, root("alice"))).task, bare)
      }).pipe(Effect.provide(stores)))

    it.effect("a history changed by another writer since this store's last save is read before appending", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const sql = yield* SqlClient.SqlClient
        const [m1, m2, m3] = [message("one"), message("two"), message("three")]
        const t = task({ history: [m1!, m2!] })
        yield* store.save(record(t, "alice", 1))
        // Another node cut the stored history back to its first message (as a save of its own would).
        yield* sql`UPDATE a2a_tasks SET history_count = 1, history_tail = ${m1!.messageId}, version = 2
          WHERE id = ${t.id}`
        yield* sql`DELETE FROM a2a_task_history WHERE task_id = ${t.id} AND seq = 1`
        yield* store.save(record({ ...t, history: [m1!, m2!, m3!] }, "alice", 3))
        assert.deepStrictEqual(yield* rowsOf(t.id), [[0, m1!.messageId], [1, m2!.messageId], [2, m3!.messageId]])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.get(t.id, root("alice"))).task.history, [m1, m2, m3])
      }).pipe(Effect.provide(stores)))

    it.effect("a task found absent, or saved at version 0, is written as new; stored by another writer meanwhile, it is read first", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const [m1, m2, m3] = [message("one"), message("two"), message("three")]
        const t = task({ history: [m1!] })
        assert.isTrue(Option.isNone(yield* store.get(t.id, root("alice"))))
        // Another writer (another node) stores the task meanwhile, further along.
        const other = yield* SqlTaskStore.make
        yield* other.save(record({ ...t, history: [m1!, m2!] }, "alice", 2))
        // This store's save as of the absent task: refused (not newer), and the stored history left alone.
        assert.isTrue(Exit.isFailure(yield* Effect.exit(store.save(record(t, "alice", 2)))))
        assert.deepStrictEqual(yield* rowsOf(t.id), [[0, m1!.messageId], [1, m2!.messageId]])
        yield* store.save(record({ ...t, history: [m1!, m2!, m3!] }, "alice", 3))
        assert.deepStrictEqual(yield* rowsOf(t.id), [[0, m1!.messageId], [1, m2!.messageId], [2, m3!.messageId]])
        // A version-0 save (a queued task's) over a stored task, from a store that never saw it: refused.
        const third = yield* SqlTaskStore.make
        assert.isTrue(Exit.isFailure(yield* Effect.exit(third.save(record(t, "alice", 0)))))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.get(t.id, root("alice"))).task.history, [m1, m2, m3])
        // ... and of a new task: written, with its history.
        const queued = task({ history: [m1!] })
        yield* third.save(record(queued, "alice", 0))
        assert.deepStrictEqual(yield* rowsOf(queued.id), [[0, m1!.messageId]])
        assert.strictEqual(Option.getOrThrow(yield* other.get(queued.id, root("alice"))).version, 0)
      }).pipe(Effect.provide(stores)))

    it.effect("a refused save (older version, another owner, an ended task) writes no history", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const m1 = message("one")
        const t = task({ history: [m1] })
        yield* store.save(record(t, "alice", 2))
        const stale = yield* Effect.exit(store.save(record({ ...t, history: [m1, message("stale")] }, "alice", 2)))
        const foreign = yield* Effect.exit(store.save(record({ ...t, history: [message("theirs")] }, "mallory", 3)))
        assert.isTrue(Exit.isFailure(stale))
        assert.isTrue(Exit.isFailure(foreign))
        assert.deepStrictEqual(yield* rowsOf(t.id), [[0, m1.messageId]])
        const done = { ...t, status: { state: "TASK_STATE_COMPLETED" as const }, history: [m1, message("done")] }
        yield* store.save(record(done, "alice", 3))
        const late = yield* Effect.exit(
          store.save(record({ ...done, history: [...done.history, message("late")] }, "alice", 4))
        )
        assert.isTrue(Exit.isFailure(late))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.get(t.id, root("alice"))).task.history, done.history)
      }).pipe(Effect.provide(stores)))
  })

suite("history rows, SQLite", sqlite)
if (testDatabaseUrl !== undefined) {
  suite("history rows, PostgreSQL", withFreshSchema((url) => SqlStore.layerPg({ url })))
} else {
  it.skip(`PostgreSQL: ${skipReason}`, () => {})
}
