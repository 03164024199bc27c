/**
 * How the SQL stores lay out a task (see SqlMigrations, "9_create_task_history"): its row in `a2a_tasks` holds its
 * JSON without the history, and `a2a_task_history` holds the history, one row per message. A save writes the task
 * row and appends the messages the stored history does not hold yet, so its cost is the task's state and its
 * new messages, not the whole history again (which grows with the task's age: a long-running task reports its
 * status in messages). Reading puts the two back together in one statement, so one snapshot.
 *
 * A save's history is taken as an extension of the stored one when it holds, at the stored length, the stored last
 * message (its messageId); any other history (an agent that replaced it) is written anew.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type * as Statement from "effect/sql/Statement"
import * as v1 from "../../protocol/generated/v1.ts"
import { isFinal, isTerminal, TERMINAL } from "../../protocol/TaskStates.ts"
import { SavedEvents } from "../../server/engine/Commit.ts"
import type { TaskEvent } from "../../server/EventBus.ts"
import { statusTimestampOf, type TaskRecord } from "../../server/TaskStore.ts"
import { SqliteClient } from "../SqliteClient.ts"
import * as RecentTasks from "./RecentTasks.ts"
import { SqlNode } from "./SqlNode.ts"

const decodeTask = Schema.decodeUnknownEffect(Schema.fromJsonString(v1.Task))
// A task's and a message's wire form is the value itself (the protocol's schemas encode every field as it is), so
// a save writes them with JSON.stringify, as the answers to the client are written, instead of walking their
// Schemas on every save; a read still decodes them with the Schemas.
const encodeTask = (task: Omit<v1.Task, "history">): Effect.Effect<string> => Effect.succeed(JSON.stringify(task))
const encodeMessage = (message: v1.Message): Effect.Effect<string> => Effect.succeed(JSON.stringify(message))

/**
 * A task as `columns` selects it.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskRow {
  readonly task: string
  /** The history's messages (JSON) joined by commas, in order; null when it has none. */
  readonly history: string | null
  readonly version: number | string
  readonly owner: string
  readonly tenant: string
  readonly turn: string | null
}

/**
 * The stored row a write found: what refused it, when it did.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredRow {
  readonly owner: string
  readonly tenant: string
  readonly version: number | string
  readonly state: v1.TaskState
  readonly history_count: number | string
  readonly history_tail: string | null
}

/**
 * A write's outcome: saved, or refused by the row stored (undefined: none was, nor could be made).
 *
 * @since 0.1.0
 * @category models
 */
export type Written = { readonly saved: true } | { readonly saved: false; readonly stored: StoredRow | undefined }

/** What of a task's history is stored: how many messages, and the last one's id. */
interface Known {
  readonly count: number
  readonly tail: string | null
}

/** No history stored: a task not stored yet. */
const NONE: Known = { count: 0, tail: null }

/** Whether `history` extends the stored one: it holds, at the stored length, the stored last message. */
const extendsHistory = (history: ReadonlyArray<v1.Message>, stored: Known) =>
  stored.count <= history.length && (stored.count === 0 || history[stored.count - 1]!.messageId === stored.tail)

/** The task's JSON with its history's messages put back in (both JSON text, so no parse to do it). */
const withHistory = (task: string, history: string | null) =>
  history === null ? task : `${task.slice(0, -1)}${task.length > 2 ? "," : ""}"history":[${history}]}`

/**
 * The task rows of the SqlClient in context: reading, writing and listing them, as the TaskStore and the
 * recovery use them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const node = yield* SqlNode
  const sqlite = yield* Effect.serviceOption(SqliteClient)
  const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  /**
   * Tasks a cancel waits for (see `hurry`): their saves go ahead of the routine ones until one ends the task. The
   * oldest are forgotten past RecentTasks' bound (a task whose cancel never saved its end).
   */
  const hurried = RecentTasks.make<true>()
  // On SQLite a save is one write of a group commit (ahead of the routine ones when `urgent`, or when its task is
  // hurried); on PostgreSQL a transaction.
  const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>, urgent: boolean, taskId: string) =>
    Option.isSome(sqlite)
      ? sqlite.value.writeAtomically(effect, { urgent: urgent || hurried.has(taskId), key: taskId })
      : sql.withTransaction(effect)
  const jsonParam = (json: string) => isPg ? sql`${json}::jsonb` : sql`${json}`

  /** The select list of a TaskRow, over `a2a_tasks`. JSONB comes back as text, so both dialects give JSON text. */
  const columns = sql.literal(
    isPg
      ? `task::text AS task, (SELECT string_agg(h.message::text, ',' ORDER BY h.seq) FROM a2a_task_history h
          WHERE h.task_id = a2a_tasks.id AND h.seq < a2a_tasks.history_count) AS history, version, owner, tenant, turn`
      : `task, (SELECT group_concat(h.message, ',' ORDER BY h.seq) FROM a2a_task_history h
          WHERE h.task_id = a2a_tasks.id AND h.seq < a2a_tasks.history_count) AS history, version, owner, tenant, turn`
  )

  const toTask = (row: TaskRow) => decodeTask(withHistory(row.task, row.history))

  const toRecord = (row: TaskRow) =>
    Effect.map(toTask(row), (task): TaskRecord => ({
      task,
      owner: row.owner,
      tenant: row.tenant,
      version: Number(row.version),
      ...(row.turn !== null ? { turn: row.turn } : {})
    }))

  /**
   * What this process last stored or read of each task's history (the most recently saved or read tasks, ended ones
   * left out; RecentTasks): a guess that spares a save reading the row first, which the save's guards check (see
   * `extend`).
   */
  const known = RecentTasks.make<Known>()
  const note = known.set
  const remember = (task: v1.Task) => {
    if (isTerminal(task.status.state)) {
      known.delete(task.id)
      return
    }
    const history = task.history ?? []
    note(task.id, { count: history.length, tail: history[history.length - 1]?.messageId ?? null })
  }

  // Whether the task has push configs, read in the save's own statement, for the PushNotifier to know without a
  // read of its own for each batch of the task's events (see SqlNode's PushPresence). A primary-key probe inside
  // the write, where the read it spares is a statement of its own on every batch.
  const pushedColumn = sql.literal(
    `, EXISTS (SELECT 1 FROM a2a_push_configs p WHERE p.task_id = a2a_tasks.id) AS pushed`
  )
  // PostgreSQL gives a boolean, SQLite 0 or 1.
  const notePushed = (taskId: string, rows: ReadonlyArray<{ readonly pushed?: boolean | number }>) => {
    const pushed = rows[0]?.pushed
    if (pushed !== undefined) node.pushConfigs.saved(taskId, pushed === true || pushed === 1)
  }

  /** The notifications of a save's events, to send in its own statement (see SqlNode's SaveNotices), if it can. */
  interface Notices {
    readonly events: ReadonlyArray<TaskEvent>
    readonly select: Statement.Fragment
  }
  const noticesOf = (events: ReadonlyArray<TaskEvent>): Notices | undefined => {
    const notices = node.saveNotices.current
    if (!isPg || events.length === 0 || notices === undefined) return undefined
    const payloads = notices.payloads(events)
    if (payloads === undefined) return undefined
    const channel = notices.channel
    return { events, select: sql.csv(payloads.map((payload) => sql`pg_notify(${channel}, ${payload})`)) }
  }
  const noticesSent = (notices: Notices | undefined) => {
    if (notices !== undefined) node.saveNotices.current?.sent(notices.events)
  }

  /**
   * The upsert of the task's row: refused when the stored task belongs to another owner or tenant, has a version as
   * new, or has ended, and, with `expected`, when its stored history is not that.
   */
  const upsert = (record: TaskRecord, json: string, now: number, expected: Known | undefined) => {
    const { owner, task, tenant, version } = record
    const history = task.history ?? []
    return sql<{ id: string; pushed?: boolean | number }>`
      INSERT INTO a2a_tasks (id, owner, tenant, context_id, state, status_ts, version, node_id, updated_at, task,
        history_count, history_tail, turn)
      VALUES (${task.id}, ${owner}, ${tenant}, ${task.contextId ?? null}, ${task.status.state}, ${
      statusTimestampOf(task)
    }, ${version}, ${node.id}, ${now}, ${jsonParam(json)}, ${history.length}, ${
      history[history.length - 1]?.messageId ?? null
    }, ${record.turn ?? null})
      ON CONFLICT (id) DO UPDATE SET
        context_id = excluded.context_id,
        state = excluded.state,
        status_ts = excluded.status_ts,
        version = excluded.version,
        node_id = excluded.node_id,
        updated_at = excluded.updated_at,
        task = excluded.task,
        history_count = excluded.history_count,
        history_tail = excluded.history_tail,
        turn = excluded.turn
      WHERE a2a_tasks.owner = excluded.owner AND a2a_tasks.tenant = excluded.tenant
        AND a2a_tasks.version < excluded.version AND a2a_tasks.state NOT IN ${sql.in(TERMINAL)}
        ${
      expected === undefined ? sql`` : sql`AND a2a_tasks.history_count = ${expected.count}
        AND a2a_tasks.history_tail IS NOT DISTINCT FROM ${expected.tail}`
    }
      RETURNING id${pushedColumn}`
  }

  /** The history's messages from `from` on, as `VALUES` rows (seq, message); none when there are none. */
  const valuesFrom = (history: ReadonlyArray<v1.Message>, from: number) =>
    Effect.map(
      Effect.forEach(history.slice(from), (message, i) =>
        Effect.map(
          encodeMessage(message),
          (json) => isPg ? sql`(${from + i}::integer, ${json}::jsonb)` : sql`(${from + i}, ${json})`
        )),
      (rows) => rows.length === 0 ? undefined : sql`VALUES ${sql.csv(rows)}`
    )

  // Rows past the stored count are none of the task's: a newer message takes their place. (SQLite names the
  // columns of VALUES itself; `WHERE true` tells its parser the ON CONFLICT is the upsert's.)
  const appendRows = (taskId: string, values: Statement.Fragment) =>
    sql`INSERT INTO a2a_task_history (task_id, seq, message) ${
      isPg
        ? sql`SELECT ${taskId}, v.seq, v.message FROM (${values}) AS v(seq, message)`
        : sql`SELECT ${taskId}, column1, column2 FROM (${values}) WHERE true`
    } ON CONFLICT (task_id, seq) DO UPDATE SET message = excluded.message`

  /**
   * The save of a task whose stored history this process knows: the row and the new messages in one statement
   * (PostgreSQL) or one write (SQLite, `urgent` when a client waits for it); false when refused, by the guards or
   * because the history stored is not the one known (another node saved the task since).
   */
  const extend = (
    record: TaskRecord,
    json: string,
    now: number,
    expected: Known,
    notices: Notices | undefined,
    urgent: boolean
  ) =>
    Effect.gen(function*() {
      const values = yield* valuesFrom(record.task.history ?? [], expected.count)
      if (isPg) {
        // The events' notifications, one per saved row (none when the save is refused).
        const notify = notices === undefined ? sql`` : sql`, ${notices.select}`
        const saved = values === undefined
          ? notices === undefined
            ? yield* upsert(record, json, now, expected)
            : yield* sql<{ id: string; pushed: boolean }>`WITH saved AS (${upsert(record, json, now, expected)})
          SELECT id, pushed${notify} FROM saved`
          : yield* sql<{ id: string; pushed: boolean }>`WITH saved AS (${upsert(record, json, now, expected)}),
          appended AS (INSERT INTO a2a_task_history (task_id, seq, message)
            SELECT saved.id, v.seq, v.message FROM saved, (${values}) AS v(seq, message)
            ON CONFLICT (task_id, seq) DO UPDATE SET message = excluded.message)
          SELECT id, pushed${notify} FROM saved`
        notePushed(record.task.id, saved)
        if (saved.length > 0) noticesSent(notices)
        return saved.length > 0
      }
      return yield* atomically(
        Effect.gen(function*() {
          const saved = yield* upsert(record, json, now, expected)
          if (saved.length === 0) return false
          notePushed(record.task.id, saved)
          if (values !== undefined) yield* appendRows(record.task.id, values)
          return true
        }),
        urgent,
        record.task.id
      )
    })

  /**
   * The save that reads the stored row first (locked, on PostgreSQL) to know what of the history it holds: a new
   * task's (urgent: its client waits for its first event), or one another writer saved last.
   */
  const replace = (record: TaskRecord, json: string, now: number, notices: Notices | undefined) =>
    atomically(
      Effect.gen(function*() {
        const { owner, task, tenant } = record
        const history = task.history ?? []
        const [stored] = yield* sql<StoredRow>`
        SELECT owner, tenant, version, state, history_count, history_tail FROM a2a_tasks WHERE id = ${task.id}
        ${isPg ? sql`FOR UPDATE` : sql``}`
        const storedCount = stored !== undefined && stored.owner === owner && stored.tenant === tenant
          ? Number(stored.history_count)
          : 0
        const kept = storedCount > 0 && extendsHistory(history, { count: storedCount, tail: stored!.history_tail })
          ? storedCount
          : 0
        const upserted = yield* upsert(record, json, now, undefined)
        if (upserted.length === 0) return { saved: false, stored } as const
        notePushed(task.id, upserted)
        if (kept < storedCount) yield* sql`DELETE FROM a2a_task_history WHERE task_id = ${task.id}`
        const values = yield* valuesFrom(history, kept)
        if (values !== undefined) yield* appendRows(task.id, values)
        if (notices !== undefined) {
          yield* sql`SELECT ${notices.select}`
          noticesSent(notices)
        }
        return { saved: true } as const
      }),
      true,
      record.task.id
    )

  /**
   * Inserts or replaces the task, unless the stored one belongs to another owner or tenant, has a version as new,
   * or has ended; with its new history messages, atomically. A task this process saved or read last, or a new one,
   * is saved without reading it first.
   */
  const write = (record: TaskRecord, now: number): Effect.Effect<Written, SqlError | Schema.SchemaError> =>
    Effect.gen(function*() {
      const { history: _, ...withoutHistory } = record.task
      const json = yield* encodeTask(withoutHistory)
      const events = yield* SavedEvents
      // A version-0 save is a task's first (every save has a newer version than the stored one), as is one of a
      // task this process found absent, and, on SQLite, one whose events start the task's sequence (over version
      // 0: nothing stored); PostgreSQL's cluster engine saves queued tasks at version 0 on other nodes. Written as
      // a new task without reading it first (refused, and read first, if it is stored after all); on SQLite ahead
      // of the routine saves, as a client waits for its first event.
      const first = record.version === 0 || (Option.isSome(sqlite) && events[0]?.sequence === 1)
      const expected = known.get(record.task.id) ?? (first ? NONE : undefined)
      // The events this save holds, sent to the other nodes with it when they can be (see SaveNotices).
      const notices = noticesOf(events)
      const urgent = first || isFinal(record.task.status.state)
      const extended = expected !== undefined && extendsHistory(record.task.history ?? [], expected) &&
        (yield* extend(record, json, now, expected, notices, urgent))
      const written: Written = extended ? { saved: true } : yield* replace(record, json, now, notices)
      if (written.saved) remember(record.task)
      else known.delete(record.task.id)
      if (isTerminal(record.task.status.state)) hurried.delete(record.task.id)
      return written
    })

  /**
   * A cancel is about to wait for the task's execution to stop, which waits for the save it has in flight: that
   * save, and the task's next ones (its end), go ahead of the routine saves of other tasks. Nothing on PostgreSQL.
   */
  const hurry = (taskId: string): void => {
    if (Option.isNone(sqlite)) return
    hurried.set(taskId, true)
    sqlite.value.hurry(taskId)
  }

  /** Notes what a read found of a task (`undefined`: no task), for its next save here (see `write`). */
  const read = (taskId: string, record: TaskRecord | undefined): void =>
    record === undefined ? note(taskId, NONE) : remember(record.task)

  return { columns, toTask, toRecord, write, read, hurry } as const
})
