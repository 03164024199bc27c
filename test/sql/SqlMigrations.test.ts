/**
 * Upgrading a database made before tenants and push-config versions existed (migrations 1 and 2 only): the
 * later migrations keep every row, tasks land at the root (empty tenant, where they were readable before) and
 * push configs keep no version (1.0, what their webhooks were sent).
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { PushConfigStore } from "../../src/server/PushConfigStore.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqlMigrations from "../../src/sql/internal/SqlMigrations.ts"
import * as SqliteClient from "../../src/sql/SqliteClient.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl } from "./pg.ts"

/** The schema as the first release made it, with one task and one push config written as it wrote them. */
const firstRelease = Effect.gen(function*() {
  yield* Migrator.make({})({
    loader: Effect.map(SqlMigrations.migrations, (all) => all.filter(([id]) => id <= 2)),
    table: SqlMigrations.MIGRATIONS_TABLE
  })
  const sql = yield* SqlClient.SqlClient
  const task = JSON.stringify({ id: "old-task", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" } })
  const config = JSON.stringify({ id: "old-hook", taskId: "old-task", url: "https://hooks.example.com/old" })
  yield* sql`INSERT INTO a2a_tasks (id, owner, context_id, state, status_ts, version, node_id, updated_at, task)
    VALUES ('old-task', 'alice', 'c', 'TASK_STATE_INPUT_REQUIRED', 0, 1, NULL, 0, ${task})`
  yield* sql`INSERT INTO a2a_push_configs (task_id, id, config, created_at) VALUES ('old-task', 'old-hook', ${config}, 0)`
})

const upgraded = Effect.gen(function*() {
  const tasks = yield* TaskStore
  const configs = yield* PushConfigStore
  const root = yield* tasks.get("old-task", { owner: "alice", tenant: "" })
  assert.deepStrictEqual(Option.getOrUndefined(root), {
    task: { id: "old-task", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" } },
    owner: "alice",
    tenant: "",
    version: 1
  })
  assert.isTrue(Option.isNone(yield* tasks.get("old-task", { owner: "alice", tenant: "acme" })))
  assert.strictEqual(
    (yield* tasks.list({ owner: "alice", tenant: "" }, { pageSize: 10, includeArtifacts: false }))
      .totalSize,
    1
  )
  assert.deepStrictEqual(yield* configs.forTask("old-task"), [
    { id: "old-hook", taskId: "old-task", url: "https://hooks.example.com/old" }
  ])
})

/**
 * A database as migration 8 left it, before history rows: tasks whose history is in their JSON (one with two
 * messages, one with none).
 */
const beforeHistoryRows = Effect.gen(function*() {
  yield* Migrator.make({})({
    loader: Effect.map(SqlMigrations.migrations, (all) => all.filter(([id]) => id <= 8)),
    table: SqlMigrations.MIGRATIONS_TABLE
  })
  const sql = yield* SqlClient.SqlClient
  const json = (value: unknown) =>
    sql.onDialectOrElse({ pg: () => sql`${JSON.stringify(value)}::jsonb`, orElse: () => sql`${JSON.stringify(value)}` })
  for (const t of [talkative, quiet]) {
    yield* sql`INSERT INTO a2a_tasks (id, owner, tenant, context_id, state, status_ts, version, node_id, updated_at, task)
      VALUES (${t.id}, 'alice', '', 'c', ${t.status.state}, 0, 2, NULL, 0, ${json(t)})`
  }
})

const history: ReadonlyArray<v1.Message> = [
  { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }], taskId: "talkative", contextId: "c" },
  { messageId: "m2", role: "ROLE_AGENT", parts: [{ text: "working, ünïcödé 🚀" }], taskId: "talkative", contextId: "c" }
]
const talkative: v1.Task = {
  id: "talkative",
  contextId: "c",
  status: { state: "TASK_STATE_INPUT_REQUIRED", message: history[1]! },
  history,
  artifacts: [{ artifactId: "a", parts: [{ text: "kept" }] }]
}
const quiet: v1.Task = { id: "quiet", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" } }

/** After the upgrade: the tasks read as they were, their history in rows, and a save appends to it. */
const historyMoved = Effect.gen(function*() {
  const tasks = yield* TaskStore
  const sql = yield* SqlClient.SqlClient
  const scope = { owner: "alice", tenant: "" }
  assert.deepStrictEqual(Option.getOrUndefined(yield* tasks.get("talkative", scope))?.task, talkative)
  assert.deepStrictEqual(Option.getOrUndefined(yield* tasks.get("quiet", scope))?.task, quiet)
  const stored = yield* sql<{ id: string; task: string; history_count: number | string; history_tail: string | null }>`
    SELECT id, ${sql.onDialectOrElse({ pg: () => sql`task::text AS task`, orElse: () => sql`task` })}, history_count,
      history_tail FROM a2a_tasks ORDER BY id`
  assert.deepStrictEqual(
    stored.map((row) => [row.id, "history" in JSON.parse(row.task), Number(row.history_count), row.history_tail]),
    [["quiet", false, 0, null], ["talkative", false, 2, "m2"]]
  )
  const rows = yield* sql<
    { seq: number | string }
  >`SELECT seq FROM a2a_task_history WHERE task_id = 'talkative' ORDER BY seq`
  assert.deepStrictEqual(rows.map((row) => Number(row.seq)), [0, 1])
  const reply: v1.Message = { messageId: "m3", role: "ROLE_USER", parts: [{ text: "go on" }], taskId: "talkative" }
  yield* tasks.save({ ...scope, version: 3, task: { ...talkative, history: [...history, reply] } })
  assert.deepStrictEqual(
    Option.getOrUndefined(yield* tasks.get("talkative", scope))?.task.history,
    [...history, reply]
  )
})

/** A database made by `made` (an older schema and its rows), then opened by the stores and checked by `check`. */
const upgrade = <E>(
  what: string,
  made: Effect.Effect<void, E, SqlClient.SqlClient>,
  check: Effect.Effect<void, unknown, SqlStore.Services>
) => {
  it.effect(`SQLite: ${what}`, () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-migrate-"))),
        (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
      )
      const filename = join(dir, "a2a.db")
      yield* made.pipe(Effect.provide(SqliteClient.layer({ filename })))
      yield* check.pipe(Effect.provide(SqlStore.layerSqlite({ filename })))
    }).pipe(Effect.scoped))

  if (testDatabaseUrl !== undefined) {
    it.effect(
      `PostgreSQL: ${what}`,
      () =>
        Effect.gen(function*() {
          const url = yield* freshSchemaUrl
          yield* made.pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 })))
          yield* check.pipe(Effect.provide(SqlStore.layerPg({ url })))
        }).pipe(Effect.scoped),
      { timeout: 60_000 }
    )
  } else {
    it.skip(`PostgreSQL: ${skipReason}`, () => {})
  }
}

describe("SQL migrations", () => {
  upgrade("a first-release database upgrades; its tasks are at the root, its configs 1.0", firstRelease, upgraded)
  upgrade("a database from before history rows upgrades; its histories move to rows", beforeHistoryRows, historyMoved)
})
