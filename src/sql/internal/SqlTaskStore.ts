/**
 * TaskStore over `effect/sql` (SQLite or PostgreSQL; see SqlMigrations for the schema). Filters, ordering,
 * cursor pagination and the total count are done in SQL on indexed columns; only history/artifact shaping of
 * the returned page happens here. Every statement is scoped by owner and tenant (spec 13.1).
 *
 * A task is stored as a row and its history as rows appended by each save (see SqlTaskRows).
 *
 * Writes are atomic and guard against lost updates: a save only replaces the stored task
 * when it belongs to the same owner and tenant and carries a newer version, so two writers racing on the same task
 * cannot silently overwrite each other (the loser fails with a TaskStoreError). A task that has ended is never
 * replaced (a terminal state never changes): a save over it fails as a conflict, whatever its version.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import { isTerminal } from "../../protocol/TaskStates.ts"
import * as Observability from "../../server/Observability.ts"
import {
  cursorOf,
  limitHistory,
  shapeArtifacts,
  TaskStore,
  TaskStoreError,
  terminalConflict
} from "../../server/TaskStore.ts"
import { SqliteClient } from "../SqliteClient.ts"
import { storeError } from "./SqlFailure.ts"
import { type SqlNode } from "./SqlNode.ts"
import * as SqlTaskRows from "./SqlTaskRows.ts"

/**
 * The TaskStore over the SqlClient in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const traced = yield* Observability.spanMaker
  const rows = yield* SqlTaskRows.make

  const get: TaskStore["Service"]["get"] = (taskId, { owner, tenant }) =>
    sql<SqlTaskRows.TaskRow>`SELECT ${rows.columns} FROM a2a_tasks
      WHERE id = ${taskId} AND owner = ${owner} AND tenant = ${tenant}`.pipe(
      Effect.flatMap((found) => found[0] === undefined ? Effect.succeedNone : Effect.asSome(rows.toRecord(found[0]))),
      Effect.tap((record) => Effect.sync(() => rows.read(taskId, Option.getOrUndefined(record)))),
      Effect.mapError(storeError(`Cannot read task ${taskId}`)),
      traced("SqlTaskStore.get")
    )

  // Effect.fnUntraced: its generator function is made once, not per save.
  const save: TaskStore["Service"]["save"] = Effect.fnUntraced(
    function*(record) {
      const { owner, task, tenant, version } = record
      const written = yield* rows.write(record, yield* Clock.currentTimeMillis)
      if (written.saved) return
      // Nothing written: say why.
      const current = written.stored
      if (current !== undefined && current.owner === owner && current.tenant === tenant) {
        if (isTerminal(current.state)) return yield* terminalConflict(task.id, current.state)
        return yield* new TaskStoreError({
          message:
            `Task ${task.id} was updated concurrently: stored version ${current.version}, this save has ${version}`,
          conflict: true
        })
      }
      return yield* new TaskStoreError({
        message: current === undefined
          ? `Task ${task.id} was not saved`
          : `Task id ${task.id} is taken by another owner or tenant`
      })
    },
    (effect, record) =>
      effect.pipe(
        Effect.catchTags({
          SqlError: storeError(`Cannot save task ${record.task.id}`),
          SchemaError: storeError(`Cannot encode task ${record.task.id}`)
        }),
        traced("SqlTaskStore.save")
      )
  )

  const list: TaskStore["Service"]["list"] = ({ owner, tenant }, query) =>
    Effect.gen(function*() {
      const filters = [sql`owner = ${owner}`, sql`tenant = ${tenant}`]
      if (query.contextId !== undefined) filters.push(sql`context_id = ${query.contextId}`)
      if (query.status !== undefined) filters.push(sql`state = ${query.status}`)
      if (query.statusTimestampAfter !== undefined) filters.push(sql`status_ts >= ${query.statusTimestampAfter}`)
      const after = query.after
      const paged = after === undefined
        ? filters
        : [...filters, sql`(status_ts, id) < (${after.timestamp}, ${after.id})`]
      // One snapshot for the page and the count (SQLite: one connection; PostgreSQL: one transaction).
      const [found, counted] = yield* sql.withTransaction(Effect.all([
        sql<SqlTaskRows.TaskRow>`SELECT ${rows.columns} FROM a2a_tasks WHERE ${sql.and(paged)}
          ORDER BY status_ts DESC, id DESC LIMIT ${query.pageSize + 1}`,
        sql<{ n: number | string }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM a2a_tasks WHERE ${sql.and(filters)}`
      ]))
      const page = found.slice(0, query.pageSize)
      const tasks = yield* Effect.forEach(page, rows.toTask)
      const last = tasks[tasks.length - 1]
      return {
        tasks: tasks.map((t) => shapeArtifacts(limitHistory(t, query.historyLength), query.includeArtifacts)),
        totalSize: Number(counted[0]?.n ?? 0),
        next: found.length > page.length && last !== undefined ? Option.some(cursorOf(last)) : Option.none()
      }
    }).pipe(
      Effect.mapError(storeError("Cannot list tasks")),
      traced("SqlTaskStore.list")
    )

  // Each save is a commit (an fsync with FULL): worth coalescing. On SQLite, new work is refused while the writer
  // is too far behind (SqliteClient's `maxWriteLag`), and a cancel's task has its saves written ahead of the others.
  const sqlite = yield* Effect.serviceOption(SqliteClient)
  return TaskStore.of({
    get,
    save,
    list,
    coalesceSaves: true,
    // A task known absent is saved as a read that found nothing would have it (see SqlTaskRows' `write`).
    absent: (taskId) => rows.read(taskId, undefined),
    ...(Option.isSome(sqlite) ? { overloaded: sqlite.value.overloaded, hurry: rows.hurry } : {})
  })
})

/**
 * The TaskStore over the SqlClient in context (migrations must have run: see SqlStore).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<TaskStore, never, SqlClient.SqlClient | SqlNode> = Layer.effect(TaskStore, make)
