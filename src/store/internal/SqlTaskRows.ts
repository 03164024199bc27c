/**
 * How the SQL stores lay out a task (see SqlMigrations, "9_create_task_history"): its row in `a2a_tasks` holds its
 * JSON without the history, and `a2a_task_history` holds the history, one row per message. A save writes the task
 * row and appends the messages the stored history does not hold yet, so its cost is the task's state and its
 * new messages, not the whole history again (which grows with the task's age: a long-running task reports its
 * status in messages). Reading puts the two back together in one statement, so one snapshot.
 *
 * A save's history is taken as an extension of the stored one when it holds, at the stored length, the stored last
 * message (its messageId); any other history (an agent that replaced it) is written anew.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as v1 from "../../generated/v1.ts"
import { TERMINAL } from "../../protocol/TaskStates.ts"
import { statusTimestampOf, type TaskRecord } from "../../server/TaskStore.ts"
import { SqliteClient } from "../SqliteClient.ts"
import { SqlNode } from "./SqlNode.ts"

const decodeTask = Schema.decodeUnknownEffect(Schema.fromJsonString(v1.Task))
const encodeTask = Schema.encodeEffect(Schema.fromJsonString(v1.Task))
const encodeMessage = Schema.encodeEffect(Schema.fromJsonString(v1.Message))

/** A task as `columns` selects it. */
export interface TaskRow {
  readonly task: string
  /** The history's messages (JSON) joined by commas, in order; null when it has none. */
  readonly history: string | null
  readonly version: number | string
  readonly owner: string
  readonly tenant: string
}

/** The stored row a write found: what refused it, when it did. */
export interface StoredRow {
  readonly owner: string
  readonly tenant: string
  readonly version: number | string
  readonly state: v1.TaskState
  readonly history_count: number | string
  readonly history_tail: string | null
}

/** A write's outcome: saved, or refused by the row stored (undefined: none was, nor could be made). */
export type Written = { readonly saved: true } | { readonly saved: false; readonly stored: StoredRow | undefined }

/** The task's JSON with its history's messages put back in (both JSON text, so no parse to do it). */
const withHistory = (task: string, history: string | null) =>
  history === null ? task : `${task.slice(0, -1)}${task.length > 2 ? "," : ""}"history":[${history}]}`

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const node = yield* SqlNode
  const sqlite = yield* Effect.serviceOption(SqliteClient)
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  // On SQLite a save is one write of a group commit; on PostgreSQL a transaction.
  const atomically = Option.isSome(sqlite) ? sqlite.value.writeAtomically : sql.withTransaction
  const jsonParam = (json: string) => isPg ? sql`${json}::jsonb` : sql`${json}`

  /** The select list of a TaskRow, over `a2a_tasks`. JSONB comes back as text, so both dialects give JSON text. */
  const columns = sql.literal(
    isPg
      ? `task::text AS task, (SELECT string_agg(h.message::text, ',' ORDER BY h.seq) FROM a2a_task_history h
          WHERE h.task_id = a2a_tasks.id AND h.seq < a2a_tasks.history_count) AS history, version, owner, tenant`
      : `task, (SELECT group_concat(h.message, ',' ORDER BY h.seq) FROM a2a_task_history h
          WHERE h.task_id = a2a_tasks.id AND h.seq < a2a_tasks.history_count) AS history, version, owner, tenant`
  )

  const toTask = (row: TaskRow) => decodeTask(withHistory(row.task, row.history))

  const toRecord = (row: TaskRow) =>
    Effect.map(toTask(row), (task): TaskRecord => ({
      task,
      owner: row.owner,
      tenant: row.tenant,
      version: Number(row.version)
    }))

  /**
   * Inserts or replaces the task, unless the stored one belongs to another owner or tenant, has a version as new,
   * or has ended; with its new history messages, atomically.
   */
  const write = (record: TaskRecord, now: number): Effect.Effect<Written, SqlError | Schema.SchemaError> =>
    atomically(Effect.gen(function*() {
      const { owner, task, tenant, version } = record
      const history = task.history ?? []
      const [stored] = yield* sql<StoredRow>`
        SELECT owner, tenant, version, state, history_count, history_tail FROM a2a_tasks WHERE id = ${task.id}
        ${isPg ? sql`FOR UPDATE` : sql``}`
      const storedCount = stored !== undefined && stored.owner === owner && stored.tenant === tenant
        ? Number(stored.history_count)
        : 0
      const kept = storedCount > 0 && storedCount <= history.length &&
          history[storedCount - 1]!.messageId === stored!.history_tail
        ? storedCount
        : 0
      const { history: _, ...withoutHistory } = task
      const json = yield* encodeTask(withoutHistory)
      const saved = yield* sql<{ id: string }>`
        INSERT INTO a2a_tasks (id, owner, tenant, context_id, state, status_ts, version, node_id, updated_at, task,
          history_count, history_tail)
        VALUES (${task.id}, ${owner}, ${tenant}, ${task.contextId ?? null}, ${task.status.state}, ${
        statusTimestampOf(task)
      },
          ${version}, ${node.id}, ${now}, ${jsonParam(json)}, ${history.length}, ${
        history[history.length - 1]?.messageId ?? null
      })
        ON CONFLICT (id) DO UPDATE SET
          context_id = excluded.context_id,
          state = excluded.state,
          status_ts = excluded.status_ts,
          version = excluded.version,
          node_id = excluded.node_id,
          updated_at = excluded.updated_at,
          task = excluded.task,
          history_count = excluded.history_count,
          history_tail = excluded.history_tail
        WHERE a2a_tasks.owner = excluded.owner AND a2a_tasks.tenant = excluded.tenant
          AND a2a_tasks.version < excluded.version AND a2a_tasks.state NOT IN ${sql.in(TERMINAL)}
        RETURNING id`
      if (saved.length === 0) return { saved: false, stored }
      if (kept < storedCount) yield* sql`DELETE FROM a2a_task_history WHERE task_id = ${task.id}`
      if (history.length > kept) {
        const rows = yield* Effect.forEach(
          history.slice(kept),
          (message, i) =>
            Effect.map(encodeMessage(message), (json) => sql`(${task.id}, ${kept + i}, ${jsonParam(json)})`)
        )
        // Rows past the stored count are none of the task's: a newer message takes their place.
        yield* sql`INSERT INTO a2a_task_history (task_id, seq, message) VALUES ${sql.csv(rows)}
          ON CONFLICT (task_id, seq) DO UPDATE SET message = excluded.message`
      }
      return { saved: true }
    }))

  return { columns, toTask, toRecord, write } as const
})
