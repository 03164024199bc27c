/**
 * Schema of the SQL stores, one migration per step, for SQLite and PostgreSQL. Applied on start by effect's
 * Migrator (recorded in `a2a_migrations`, run in a transaction; on PostgreSQL under the schema lock every node's
 * start-up DDL takes, see SqlSchemaLock, so nodes starting together migrate once).
 *
 * Tasks are stored as their JSON (TEXT on SQLite, JSONB on PostgreSQL) next to the columns that ListTasks
 * filters and sorts on. Each index leads with `owner` and `tenant`, since every query is scoped by them (spec
 * 13.1), and ends with the list order (status timestamp, id), so a page is one index range scan.
 * Ids use the "C" collation on PostgreSQL so they sort by bytes, as on SQLite and in the memory store.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

const createTasks = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE a2a_tasks (
        id TEXT COLLATE "C" PRIMARY KEY,
        owner TEXT COLLATE "C" NOT NULL,
        context_id TEXT COLLATE "C",
        state TEXT NOT NULL,
        status_ts BIGINT NOT NULL,
        version INTEGER NOT NULL,
        node_id TEXT,
        updated_at BIGINT NOT NULL,
        task JSONB NOT NULL
      )`,
    orElse: () =>
      sql`CREATE TABLE a2a_tasks (
        id TEXT PRIMARY KEY NOT NULL,
        owner TEXT NOT NULL,
        context_id TEXT,
        state TEXT NOT NULL,
        status_ts INTEGER NOT NULL,
        version INTEGER NOT NULL,
        node_id TEXT,
        updated_at INTEGER NOT NULL,
        task TEXT NOT NULL
      )`
  })
  yield* sql`CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, status_ts DESC, id DESC)`
  yield* sql`CREATE INDEX a2a_tasks_by_context ON a2a_tasks (owner, context_id, status_ts DESC, id DESC)`
  yield* sql`CREATE INDEX a2a_tasks_by_state ON a2a_tasks (owner, state, status_ts DESC, id DESC)`
  // Small: only tasks in flight, for the restart recovery.
  yield* sql`CREATE INDEX a2a_tasks_in_flight ON a2a_tasks (node_id)
    WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`
})

const createPushConfigs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE a2a_push_configs (
        task_id TEXT COLLATE "C" NOT NULL,
        id TEXT COLLATE "C" NOT NULL,
        config JSONB NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (task_id, id)
      )`,
    orElse: () =>
      sql`CREATE TABLE a2a_push_configs (
        task_id TEXT NOT NULL,
        id TEXT NOT NULL,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (task_id, id)
      )`
  })
})

/**
 * Tasks are scoped by tenant as well as by owner: existing tasks get the empty tenant (the root, which is
 * where they were readable), and the list indexes are rebuilt to lead with (owner, tenant).
 */
const addTaskTenant = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => sql`ALTER TABLE a2a_tasks ADD COLUMN tenant TEXT COLLATE "C" NOT NULL DEFAULT ''`,
    orElse: () => sql`ALTER TABLE a2a_tasks ADD COLUMN tenant TEXT NOT NULL DEFAULT ''`
  })
  yield* sql`DROP INDEX a2a_tasks_by_owner`
  yield* sql`DROP INDEX a2a_tasks_by_context`
  yield* sql`DROP INDEX a2a_tasks_by_state`
  yield* sql`CREATE INDEX a2a_tasks_by_scope ON a2a_tasks (owner, tenant, status_ts DESC, id DESC)`
  yield* sql`CREATE INDEX a2a_tasks_by_scope_context ON a2a_tasks (owner, tenant, context_id, status_ts DESC, id DESC)`
  yield* sql`CREATE INDEX a2a_tasks_by_scope_state ON a2a_tasks (owner, tenant, state, status_ts DESC, id DESC)`
})

/**
 * The protocol version a push config was registered with ("0.3", "1.0"), so its webhook receives payloads of
 * that version. NULL (every config registered before) means 1.0, which is what they were sent.
 */
const addPushConfigVersion = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE a2a_push_configs ADD COLUMN protocol_version TEXT`
})

/**
 * Events too large for a NOTIFY payload, kept briefly for the other nodes to read (PostgreSQL only: see
 * PgEventBus; SQLite serves one process, whose events never leave it).
 */
const createTaskEvents = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE a2a_task_events (
        task_id TEXT COLLATE "C" NOT NULL,
        sequence INTEGER NOT NULL,
        event TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (task_id, sequence)
      )`.pipe(Effect.andThen(sql`CREATE INDEX a2a_task_events_by_age ON a2a_task_events (created_at)`)),
    orElse: () => Effect.void
  })
})

/**
 * Webhook deliveries written down before they are made (see SqlPushOutbox): a row lives from the event until
 * its delivery is made or given up. `id` orders them.
 */
const createPushOutbox = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE a2a_push_outbox (
        id BIGSERIAL PRIMARY KEY,
        task_id TEXT COLLATE "C" NOT NULL,
        config_id TEXT COLLATE "C" NOT NULL,
        body TEXT NOT NULL,
        content_type TEXT NOT NULL,
        kind TEXT NOT NULL,
        node_id TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
    orElse: () =>
      sql`CREATE TABLE a2a_push_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        body TEXT NOT NULL,
        content_type TEXT NOT NULL,
        kind TEXT NOT NULL,
        node_id TEXT NOT NULL,
        created_at INTEGER NOT NULL
      )`
  })
  yield* sql`CREATE INDEX a2a_push_outbox_by_node ON a2a_push_outbox (node_id)`
})

/**
 * Receipts of accepted messages (see MessageReceipts), one per caller (owner, tenant) and messageId: the primary
 * key is what makes a claim atomic across nodes. `reply` is the agent's direct reply (JSON), when it made no task.
 */
const createMessageReceipts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE a2a_message_receipts (
        owner TEXT COLLATE "C" NOT NULL,
        tenant TEXT COLLATE "C" NOT NULL,
        message_id TEXT COLLATE "C" NOT NULL,
        fingerprint TEXT NOT NULL,
        task_id TEXT COLLATE "C" NOT NULL,
        reply TEXT,
        accepted_at BIGINT NOT NULL,
        PRIMARY KEY (owner, tenant, message_id)
      )`,
    orElse: () =>
      sql`CREATE TABLE a2a_message_receipts (
        owner TEXT NOT NULL,
        tenant TEXT NOT NULL,
        message_id TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        task_id TEXT NOT NULL,
        reply TEXT,
        accepted_at INTEGER NOT NULL,
        PRIMARY KEY (owner, tenant, message_id)
      )`
  })
  yield* sql`CREATE INDEX a2a_message_receipts_by_age ON a2a_message_receipts (accepted_at)`
})

/**
 * The nodes sharing a PostgreSQL database, each with when it was last seen (its heartbeat, on the database's
 * clock): see SqlLiveness. SQLite serves one process and needs none.
 */
const createNodes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => sql`CREATE TABLE a2a_nodes (node_id TEXT COLLATE "C" PRIMARY KEY, seen_at TIMESTAMPTZ NOT NULL)`,
    orElse: () => Effect.void
  })
})

/**
 * A task's history as rows of its own, one per message in order (`seq` from 0), appended by each save instead of
 * rewritten with the whole task: a long-running task's save no longer grows with its age. The task's JSON keeps
 * everything else; `history_count` says how many rows belong to it (rows past it are not part of the task) and
 * `history_tail` is the messageId of its last, so a save can tell an appended history from a replaced one. Existing
 * tasks have their history moved out of their JSON into rows.
 */
const createTaskHistory = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE a2a_task_history (
        task_id TEXT COLLATE "C" NOT NULL,
        seq INTEGER NOT NULL,
        message JSONB NOT NULL,
        PRIMARY KEY (task_id, seq)
      )`,
    orElse: () =>
      sql`CREATE TABLE a2a_task_history (
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (task_id, seq)
      )`
  })
  yield* sql`ALTER TABLE a2a_tasks ADD COLUMN history_count INTEGER NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE a2a_tasks ADD COLUMN history_tail TEXT`
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`INSERT INTO a2a_task_history (task_id, seq, message)
        SELECT t.id, h.n - 1, h.message FROM a2a_tasks t
          CROSS JOIN LATERAL jsonb_array_elements(t.task -> 'history') WITH ORDINALITY AS h(message, n)
          WHERE jsonb_typeof(t.task -> 'history') = 'array'`.pipe(
        Effect.andThen(sql`UPDATE a2a_tasks SET
          history_count = jsonb_array_length(task -> 'history'),
          history_tail = task -> 'history' -> -1 ->> 'messageId',
          task = task - 'history'
          WHERE jsonb_typeof(task -> 'history') = 'array'`)
      ),
    orElse: () =>
      sql`INSERT INTO a2a_task_history (task_id, seq, message)
        SELECT t.id, CAST(h.key AS INTEGER), h.value FROM a2a_tasks t, json_each(t.task, '$.history') h
          WHERE json_type(t.task, '$.history') = 'array'`.pipe(
        Effect.andThen(sql`UPDATE a2a_tasks SET
          history_count = json_array_length(task, '$.history'),
          history_tail = json_extract(task, '$.history[#-1].messageId'),
          task = json_remove(task, '$.history')
          WHERE json_type(task, '$.history') = 'array'`)
      )
  })
})

/** The message whose turn a task's last save started (TaskRecord's `turn`), if that save did. */
const addTaskTurn = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE a2a_tasks ADD COLUMN turn TEXT`
})

/**
 * The migrations, in order. Never edit a released one: add the next.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrations = Migrator.fromRecord({
  "1_create_tasks": createTasks,
  "2_create_push_configs": createPushConfigs,
  "3_add_task_tenant": addTaskTenant,
  "4_add_push_config_version": addPushConfigVersion,
  "5_create_task_events": createTaskEvents,
  "6_create_push_outbox": createPushOutbox,
  "7_create_message_receipts": createMessageReceipts,
  "8_create_nodes": createNodes,
  "9_create_task_history": createTaskHistory,
  "10_add_task_turn": addTaskTurn
})

/**
 * The table the applied migrations are recorded in.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIGRATIONS_TABLE = "a2a_migrations"

/**
 * Applies pending migrations; returns those it ran.
 *
 * @since 0.1.0
 * @category migrations
 */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })
