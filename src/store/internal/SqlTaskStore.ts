/**
 * TaskStore over `effect/sql` (SQLite or PostgreSQL; see SqlMigrations for the schema). Filters, ordering,
 * cursor pagination and the total count are done in SQL on indexed columns; only history/artifact shaping of
 * the returned page happens here. Every statement is scoped by owner and tenant (spec 13.1).
 *
 * Writes are one atomic upsert that also guards against lost updates: a save only replaces the stored task
 * when it belongs to the same owner and tenant and carries a newer version, so two writers racing on the same task
 * cannot silently overwrite each other (the loser fails with a TaskStoreError). A task that has ended is never
 * replaced (a terminal state never changes): a save over it fails as a conflict, whatever its version.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as v1 from "../../generated/v1.ts"
import { isTerminal, TERMINAL } from "../../protocol/TaskStates.ts"
import * as Observability from "../../server/Observability.ts"
import {
  cursorOf,
  limitHistory,
  shapeArtifacts,
  statusTimestampOf,
  type TaskRecord,
  TaskStore,
  TaskStoreError,
  terminalConflict
} from "../../server/TaskStore.ts"
import { storeError } from "./SqlFailure.ts"
import { SqlNode } from "./SqlNode.ts"

const TaskJson = Schema.fromJsonString(v1.Task)
const decodeTask = Schema.decodeUnknownEffect(TaskJson)
const encodeTask = Schema.encodeEffect(TaskJson)

interface TaskRow {
  readonly task: string
  readonly version: number
  readonly owner: string
  readonly tenant: string
}

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const traced = yield* Observability.spanMaker
  const node = yield* SqlNode
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  // JSONB comes back as text, so both dialects hand the same JSON to the decoder.
  const taskColumn = sql.literal(isPg ? "task::text AS task" : "task")
  const jsonParam = (json: string) => isPg ? sql`${json}::jsonb` : sql`${json}`

  const toRecord = (row: TaskRow) =>
    Effect.map(decodeTask(row.task), (task): TaskRecord => ({
      task,
      owner: row.owner,
      tenant: row.tenant,
      version: Number(row.version)
    }))

  const get: TaskStore["Service"]["get"] = (taskId, { owner, tenant }) =>
    sql<TaskRow>`SELECT ${taskColumn}, version, owner, tenant FROM a2a_tasks
      WHERE id = ${taskId} AND owner = ${owner} AND tenant = ${tenant}`.pipe(
      Effect.flatMap((rows) => rows[0] === undefined ? Effect.succeedNone : Effect.asSome(toRecord(rows[0]))),
      Effect.mapError(storeError(`Cannot read task ${taskId}`)),
      traced("SqlTaskStore.get")
    )

  // Effect.fnUntraced: its generator function is made once, not per save (BENCHMARKS.md, "Generator functions made
  // per call").
  const save: TaskStore["Service"]["save"] = Effect.fnUntraced(
    function*(record) {
      const { owner, task, tenant, version } = record
      const json = yield* encodeTask(task)
      const now = yield* Clock.currentTimeMillis
      const saved = yield* sql<{ id: string }>`
        INSERT INTO a2a_tasks (id, owner, tenant, context_id, state, status_ts, version, node_id, updated_at, task)
        VALUES (${task.id}, ${owner}, ${tenant}, ${task.contextId ?? null}, ${task.status.state}, ${
        statusTimestampOf(task)
      },
          ${version}, ${node.id}, ${now}, ${jsonParam(json)})
        ON CONFLICT (id) DO UPDATE SET
          context_id = excluded.context_id,
          state = excluded.state,
          status_ts = excluded.status_ts,
          version = excluded.version,
          node_id = excluded.node_id,
          updated_at = excluded.updated_at,
          task = excluded.task
        WHERE a2a_tasks.owner = excluded.owner AND a2a_tasks.tenant = excluded.tenant
          AND a2a_tasks.version < excluded.version AND a2a_tasks.state NOT IN ${sql.in(TERMINAL)}
        RETURNING id`
      if (saved.length > 0) return
      // Nothing written: say why.
      const [current] = yield* sql<{ owner: string; tenant: string; version: number; state: v1.TaskState }>`
        SELECT owner, tenant, version, state FROM a2a_tasks WHERE id = ${task.id}`
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
      const [rows, counted] = yield* sql.withTransaction(Effect.all([
        sql<TaskRow>`SELECT ${taskColumn}, version, owner, tenant FROM a2a_tasks WHERE ${sql.and(paged)}
          ORDER BY status_ts DESC, id DESC LIMIT ${query.pageSize + 1}`,
        sql<{ n: number | string }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM a2a_tasks WHERE ${sql.and(filters)}`
      ]))
      const page = rows.slice(0, query.pageSize)
      const tasks = yield* Effect.forEach(page, (row) => decodeTask(row.task))
      const last = tasks[tasks.length - 1]
      return {
        tasks: tasks.map((t) => shapeArtifacts(limitHistory(t, query.historyLength), query.includeArtifacts)),
        totalSize: Number(counted[0]?.n ?? 0),
        next: rows.length > page.length && last !== undefined ? Option.some(cursorOf(last)) : Option.none()
      }
    }).pipe(
      Effect.mapError(storeError("Cannot list tasks")),
      traced("SqlTaskStore.list")
    )

  // Each save is a commit (BENCHMARKS.md, "Sustained load and the SQLite store"; an fsync with FULL): worth
  // coalescing.
  return TaskStore.of({ get, save, list, coalesceSaves: true })
})

/** The TaskStore over the SqlClient in context (migrations must have run: see SqlStore). */
export const layer: Layer.Layer<TaskStore, never, SqlClient.SqlClient | SqlNode> = Layer.effect(TaskStore, make)
