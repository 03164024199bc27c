/**
 * What a new stream's saves cost on SQLite (issue #44): a task's first save (its events start the task's sequence)
 * is written without reading the task's row first, and ahead of the routine saves waiting; a save tells the
 * PushNotifier whether its task has webhooks, so that the task's events make no read of its push configs per
 * batch; a config made by another process sharing the file is seen from the task's next save on, one made here at
 * once. Statements are counted by the SqlClient's own spans (their `db.query.text`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Option, Tracer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SavedEvents } from "../../src/server/engine/Commit.ts"
import type { TaskEvent } from "../../src/server/EventBus.ts"
import { type PushConfig, PushConfigStore } from "../../src/server/PushConfigStore.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqliteClient from "../../src/sql/SqliteClient.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { message, record, recordingStatements, root, task } from "./fixtures.ts"

/** The stores over a fresh SQLite file, and a way to open the same file again (another process's stores). */
const stores = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-sqlite-saves-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  const filename = join(dir, "a2a.db")
  const open = Layer.build(SqlStore.layerSqlite({ filename }))
  return { here: yield* open, open }
})

/** The save of a task's first events: sequence 1 on, over nothing stored (as Commit gives them). */
const firstSave = (store: TaskStore["Service"], t: Parameters<typeof record>[0], owner: string, events = 1) =>
  store.save(record(t, owner, events)).pipe(
    Effect.provideService(
      SavedEvents,
      Array.from({ length: events }, (_, i): TaskEvent => ({ taskId: t.id, sequence: i + 1, event: { task: t } }))
    )
  )

const isRead = (statement: string) => /^select\b/i.test(statement)

describe("SQLite saves of a new stream", () => {
  it.effect("a task's first save reads nothing first: the task's row and its history, in one write", () =>
    Effect.gen(function*() {
      const { statements, tracer } = recordingStatements()
      const { here } = yield* stores
      const store = Context.get(here, TaskStore)
      const t = task({ history: [message("one")] })
      yield* firstSave(store, t, "alice", 2).pipe(Effect.provideService(Tracer.Tracer, tracer))
      assert.deepStrictEqual(statements.filter(isRead), [], statements.join("\n"))
      assert.isTrue(statements.some((s) => s.startsWith("INSERT INTO a2a_tasks")), statements.join("\n"))
      assert.isTrue(statements.some((s) => s.startsWith("INSERT INTO a2a_task_history")), statements.join("\n"))
      const stored = Option.getOrThrow(yield* store.get(t.id, root("alice")))
      assert.strictEqual(stored.version, 2)
      assert.deepStrictEqual(stored.task.history, t.history)
    }).pipe(Effect.scoped))

  it.effect("a first save over a task stored meanwhile (another owner's id) is refused, and the stored one kept", () =>
    Effect.gen(function*() {
      const { here, open } = yield* stores
      const store = Context.get(here, TaskStore)
      const t = task({ history: [message("theirs")] })
      // Stored by another process: this one has never seen the task.
      yield* Context.get(yield* open, TaskStore).save(record(t, "mallory", 1))
      const refused = yield* Effect.exit(firstSave(store, { ...t, history: [message("mine")] }, "alice"))
      assert.isTrue(Exit.isFailure(refused))
      assert.include(String(refused), "another owner")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.get(t.id, root("mallory"))).task.history, t.history)
    }).pipe(Effect.scoped))

  it.effect("a task's first save goes ahead of the routine saves waiting", () =>
    Effect.gen(function*() {
      const { here } = yield* stores
      const store = Context.get(here, TaskStore)
      const client = Context.get(here, SqliteClient.SqliteClient)
      const sql = Context.get(here, SqlClient.SqlClient)
      yield* sql`CREATE TABLE backlog (id INTEGER PRIMARY KEY, n INTEGER)`
      let written = 0
      // 30 slow routine writes (a running task's status saves are routine), each several milliseconds long.
      const slow = (id: number) =>
        client.writeAtomically(
          sql`INSERT INTO backlog (id, n) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c
            WHERE i < 100000) SELECT ${id}, MAX(i) FROM c`
        ).pipe(Effect.andThen(Effect.sync(() => written++)))
      const backlog = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 30 }, (_, i) => i), slow, { concurrency: "unbounded" })
      )
      yield* Effect.yieldNow
      const t = task({ history: [message("one")] })
      yield* firstSave(store, t, "alice")
      const before = written
      yield* Fiber.join(backlog)
      assert.isBelow(before, 10, `the first save waited for ${before} of the 30 routine writes`)
      assert.strictEqual(Option.getOrThrow(yield* store.get(t.id, root("alice"))).version, 1)
    }).pipe(Effect.scoped))

  it.effect("the PushNotifier's read of a task's configs: none after a save found none; a config is seen", () =>
    Effect.gen(function*() {
      const { statements, tracer } = recordingStatements()
      const { here, open } = yield* stores
      // Opened before the task is saved: a store starting on the file fails the tasks in flight it finds (recovery).
      const there = yield* open
      const store = Context.get(here, TaskStore)
      const configs = Context.get(here, PushConfigStore)
      const t = task({ history: [message("one")] })
      const config = (id: string): PushConfig => ({ id, taskId: t.id, url: `https://hooks.example.com/${id}` })
      yield* firstSave(store, t, "alice")
      const forTask = Effect.suspend(() => configs.forTask(t.id)).pipe(Effect.provideService(Tracer.Tracer, tracer))
      assert.deepStrictEqual(yield* forTask, [])
      assert.deepStrictEqual(statements, [], "the save said the task has no configs: nothing to read")

      // Made by another process sharing the file: seen from the task's next save on.
      yield* Context.get(there, PushConfigStore).set(config("there"))
      yield* store.save(record({ ...t, history: [message("one"), message("two")] }, "alice", 2))
      assert.deepStrictEqual((yield* forTask).map((c) => c.id), ["there"])
      assert.isTrue(statements.some(isRead), "the save said the task has configs: they are read")

      // Made here: seen at once.
      yield* configs.set(config("here"))
      assert.deepStrictEqual((yield* forTask).map((c) => c.id), ["here", "there"])
    }).pipe(Effect.scoped))
})
