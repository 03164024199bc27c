/**
 * An `effect/sql` SqlClient over Node's built-in `node:sqlite` (`DatabaseSync`): the embedded default store,
 * one file, no server, no native addon to install.
 *
 * Statements are synchronous, so a query never yields mid-flight; keep them small (the task store's are point
 * lookups and index range scans). A file database has two connections:
 * - the writer, shared through a semaphore (SQLite allows one writer at a time anyway): every write, every
 *   transaction, every stream;
 * - a reader (`query_only`) for a lone SELECT outside a transaction: it reads the last commit at once, never
 *   queued behind writes and transactions that wait on the semaphore (WAL readers do not block the writer, nor
 *   the writer them).
 * Lone writes (outside a transaction) from concurrent fibers share commits (see SqliteGroupCommit): under load,
 * the saves of many tasks cost one commit, and each caller resumes once its write committed.
 *
 * Checkpoints (copying the WAL back into the database file, the only step that syncs to disk under `NORMAL`) run
 * on a worker thread with its own connection, a passive one every `CHECKPOINT_INTERVAL_MS`, instead of inside
 * whichever commit crosses SQLite's 1,000-page mark: a commit then costs a write to the WAL, never an fsync on the
 * event loop.
 *
 * Settings, and why:
 * - `journal_mode=WAL`: readers never block the writer; a crash (even `kill -9`) never corrupts the file.
 * - `synchronous=NORMAL` (default): in WAL mode a commit is durable across a process crash; only an OS crash
 *   or power loss can drop the last few commits (never corrupting). `FULL` also fsyncs the WAL on every
 *   commit, closing that window at a cost per write; choose it with `synchronous: "FULL"`.
 * - `busy_timeout`: another process (a second server, a backup tool) holding the write lock makes us wait
 *   instead of failing at once.
 * - transactions start with `BEGIN IMMEDIATE`: the write lock is taken up front, so two writers queue on
 *   `busy_timeout` rather than dead-locking on a read-to-write upgrade (which SQLite fails with SQLITE_BUSY
 *   without waiting).
 *
 * @example
 * ```ts
 * import { SqliteClient } from "effect-a2a/sql"
 *
 * // Effect's SqlClient over Node's built-in node:sqlite (WAL, one writer)
 * const sql = SqliteClient.layer({ filename: "./data/a2a.db" })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Reactivity } from "effect/reactivity/Reactivity"
import * as ReactivityLayer from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type * as Connection from "effect/sql/SqlConnection"
import { classifySqliteError, ConnectionError, SqlError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import { chmodSync, existsSync, mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite"
import { Worker } from "node:worker_threads"
import * as SqliteGroupCommit from "./internal/SqliteGroupCommit.ts"

/**
 * How the database is opened: its file, its durability, and the spans' attributes.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteClientConfig {
  /** Database file, or `":memory:"`. Missing parent directories are created. */
  readonly filename: string
  /** `NORMAL` (default) or `FULL`; see the module comment. */
  readonly synchronous?: "NORMAL" | "FULL" | undefined
  /** How long to wait for another connection's write lock, in milliseconds (default 5000). */
  readonly busyTimeoutMillis?: number | undefined
  /** Prepared statements kept per connection (default 200). */
  readonly statementCacheSize?: number | undefined
  /** Attributes added to every span of this client's statements. */
  readonly spanAttributes?: Readonly<Record<string, unknown>> | undefined
  /**
   * How far the writer may fall behind (how long the oldest waiting write has waited) before `overloaded` says
   * so, and the stores refuse new work until it catches up (default `DEFAULT_MAX_WRITE_LAG`).
   */
  readonly maxWriteLag?: Duration.Input | undefined
}

/**
 * How far the writer may fall behind by default before the stores refuse new work: long enough that a burst of new
 * tasks (whose first saves go ahead of routine ones) is taken in, short enough that the work in flight, which waits
 * for the writer in memory, stays bounded.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_MAX_WRITE_LAG: Duration.Duration = Duration.seconds(5)

/**
 * The SqlClient, plus the SQLite specifics (the file it opened).
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteClient extends SqlClient.SqlClient {
  readonly config: SqliteClientConfig
  /**
   * Runs `effect`'s statements as one write: all commit or none. Outside a transaction that write joins the next
   * group commit (so it shares its commit with other writes, and resumes once committed); inside one (or on an
   * in-memory database) it is a nested transaction. `effect` must only run statements of this client, and
   * synchronous work: it runs on the writer without yielding, inside the group. `urgent`: see
   * SqliteGroupCommit's `write`; `key`: what it writes (a task's id), for `hurry`.
   */
  readonly writeAtomically: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    options?: { readonly urgent?: boolean | undefined; readonly key?: string | undefined }
  ) => Effect.Effect<A, E | SqlError, R>
  /**
   * Makes the writes of `key` (see `writeAtomically`) waiting now urgent: they go ahead of the routine backlog.
   * Nothing on an in-memory database (no group commit).
   *
   * @since 0.2.0
   */
  readonly hurry: (key: string) => void
  /**
   * Whether the writer is further behind than `maxWriteLag`: new work should then be refused (or slowed) rather
   * than queued behind it. Always false on an in-memory database (no group commit).
   *
   * @since 0.2.0
   */
  readonly overloaded: () => boolean
}

/**
 * The service of an embedded SQLite database's client: the SqlClient, the file it opened and atomic writes.
 *
 * @since 0.1.0
 * @category services
 */
export const SqliteClient = Context.Service<SqliteClient>("effect-a2a/sql/SqliteClient")

// node:sqlite reports the SQLite result code as `errcode` (its `code` is "ERR_SQLITE_ERROR"); the classifier
// reads `errno`, so copy it there.
const sqlError = (cause: unknown, message: string, operation: string) => {
  if (cause instanceof Error && "errcode" in cause && !("errno" in cause)) {
    Object.assign(cause, { errno: cause.errcode })
  }
  return new SqlError({ reason: classifySqliteError(cause, { message: `${message}: ${String(cause)}`, operation }) })
}

// node:sqlite binds null, numbers, bigints, strings and bytes; map the rest the way other SQLite drivers do.
const toInput = (value: unknown): SQLInputValue => {
  switch (typeof value) {
    case "string":
    case "number":
    case "bigint":
      return value
    case "boolean":
      return value ? 1 : 0
    case "undefined":
      return null
  }
  if (value === null || value instanceof Uint8Array) return value
  if (value instanceof Date) return value.toISOString()
  return JSON.stringify(value)
}

const toInputs = (params: ReadonlyArray<unknown>): Array<SQLInputValue> => params.map(toInput)

class SqliteConnection implements Connection.Connection {
  readonly db: DatabaseSync
  private readonly cache = new Map<string, StatementSync>()
  private readonly cacheSize: number

  constructor(db: DatabaseSync, cacheSize: number) {
    this.db = db
    this.cacheSize = cacheSize
  }

  private prepared(sql: string): StatementSync {
    const hit = this.cache.get(sql)
    if (hit !== undefined) {
      // Re-insert: Map keeps insertion order, so the first key is the least recently used.
      this.cache.delete(sql)
      this.cache.set(sql, hit)
      return hit
    }
    const statement = this.db.prepare(sql)
    this.cache.set(sql, statement)
    if (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next()
      if (oldest.done !== true) this.cache.delete(oldest.value)
    }
    return statement
  }

  private run<A>(
    sql: string,
    operation: string,
    f: () => A
  ): Effect.Effect<A, SqlError> {
    return Effect.try({ try: f, catch: (cause) => sqlError(cause, `Failed to execute statement: ${sql}`, operation) })
  }

  private rows(statement: StatementSync, params: ReadonlyArray<unknown>, arrays: boolean) {
    statement.setReturnArrays(arrays)
    try {
      return statement.all(...toInputs(params))
    } finally {
      if (arrays) statement.setReturnArrays(false)
    }
  }

  execute(
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) {
    return this.run(sql, "execute", () => {
      const rows = this.rows(this.prepared(sql), params, false)
      return transformRows ? transformRows(rows) : rows
    })
  }

  executeRaw(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(sql, "executeRaw", () => this.prepared(sql).run(...toInputs(params)))
  }

  executeValues(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(
      sql,
      "executeValues",
      () => this.rows(this.prepared(sql), params, true) as unknown as ReadonlyArray<ReadonlyArray<unknown>>
    )
  }

  executeValuesUnprepared(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(
      sql,
      "executeValuesUnprepared",
      () => this.rows(this.db.prepare(sql), params, true) as unknown as ReadonlyArray<ReadonlyArray<unknown>>
    )
  }

  executeUnprepared(
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) {
    return this.run(sql, "executeUnprepared", () => {
      const rows = this.rows(this.db.prepare(sql), params, false)
      return transformRows ? transformRows(rows) : rows
    })
  }

  executeStream(
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) {
    // A fresh statement: iteration stays open while the stream is pulled, and must not share a cached one.
    return Stream.suspend(() => {
      const iterator = this.db.prepare(sql).iterate(...toInputs(params))
      const rows = Stream.fromIterable({ [Symbol.iterator]: () => iterator })
      return transformRows ? Stream.mapArray(rows, (chunk) => transformRows(chunk) as typeof chunk) : rows
    }).pipe(Stream.mapError((cause) => sqlError(cause, `Failed to stream statement: ${sql}`, "executeStream")))
  }
}

/** How often the checkpoint worker copies the WAL back into the database file. */
const CHECKPOINT_INTERVAL_MS = 500

/**
 * The checkpoint worker: its own connection, a passive checkpoint (never waits for, nor blocks, the writer) on
 * every tick. Plain JavaScript evaluated in the worker, so that it runs the same from the sources and the build.
 */
const checkpointer = `
const { workerData } = require("node:worker_threads")
const { DatabaseSync } = require("node:sqlite")
const db = new DatabaseSync(workerData.filename, { timeout: workerData.timeout })
const tick = () => { try { db.exec("PRAGMA wal_checkpoint(PASSIVE)") } catch {} }
setInterval(tick, workerData.interval)
`

/** `writer`: the connection that writes; a reader is opened `query_only`. */
const open = (config: SqliteClientConfig, role: "writer" | "reader"): Effect.Effect<DatabaseSync, SqlError> =>
  Effect.try({
    try: () => {
      const onDisk = config.filename !== ":memory:"
      // Private by default: the database holds tasks and webhook credentials.
      if (onDisk) mkdirSync(dirname(config.filename), { recursive: true, mode: 0o700 })
      const created = onDisk && !existsSync(config.filename)
      const db = new DatabaseSync(config.filename, {
        timeout: config.busyTimeoutMillis ?? 5000,
        enableForeignKeyConstraints: true
      })
      try {
        if (created) chmodSync(config.filename, 0o600)
        if (onDisk && role === "writer") {
          db.exec("PRAGMA journal_mode = WAL")
          // The checkpoint worker checkpoints instead (see the module comment).
          db.exec("PRAGMA wal_autocheckpoint = 0")
        }
        if (role === "reader") db.exec("PRAGMA query_only = 1")
        db.exec(`PRAGMA synchronous = ${config.synchronous === "FULL" ? "FULL" : "NORMAL"}`)
      } catch (error) {
        db.close()
        throw error
      }
      return db
    },
    catch: (cause) =>
      new SqlError({
        reason: new ConnectionError({
          cause,
          message: `Cannot open SQLite database ${config.filename}: ${String(cause)}`,
          operation: "open"
        })
      })
  })

const close = (db: DatabaseSync, optimize: boolean) =>
  Effect.sync(() => {
    if (!db.isOpen) return
    // Lets the query planner keep its statistics fresh; cheap, and skipped when nothing changed.
    try {
      if (optimize) db.exec("PRAGMA optimize")
    } catch {
      // best effort only
    }
    db.close()
  })

/** Starts the checkpoint worker for the life of the current scope; `writer` checkpoints again if it fails. */
const startCheckpointer = (config: SqliteClientConfig, writer: DatabaseSync) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const worker = new Worker(checkpointer, {
        eval: true,
        workerData: {
          filename: config.filename,
          timeout: config.busyTimeoutMillis ?? 5000,
          interval: CHECKPOINT_INTERVAL_MS
        },
        // A checkpoint needs little: keep the worker's heap small.
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 }
      })
      worker.unref()
      // Without the worker the WAL would grow until the next open: the writer checkpoints as SQLite does by default.
      worker.once("error", (error) => {
        if (writer.isOpen) writer.exec("PRAGMA wal_autocheckpoint = 1000")
        Effect.runFork(Effect.logWarning("SQLite checkpoint worker failed; the writer checkpoints instead", error))
      })
      return worker
    }),
    (worker) => Effect.promise(() => worker.terminate())
  )

const isRead = (sql: string) => /^\s*select\b/i.test(sql)

/** Statements that must run alone: transaction control and connection settings never join a group. */
const runsAlone = (sql: string) =>
  /^\s*(begin|commit|end|rollback|savepoint|release|pragma|vacuum|attach|detach)\b/i.test(sql)

/**
 * The connection lone statements (outside a transaction) run on: a SELECT on the reader, a write in the next group
 * commit, anything else on the writer under its semaphore. A lone write (a message's receipt, a push config, an
 * outbox row) goes ahead of the routine ones: only a running task's status saves (`writeAtomically`, not urgent)
 * may wait behind others, as a new stream's receipt must not wait for every busy task's status.
 */
const routed = (
  reader: SqliteConnection,
  writer: Connection.Borrower,
  lease: Effect.Effect<Connection.Connection, SqlError, Scope.Scope>,
  group: SqliteGroupCommit.GroupCommit
): Connection.Connection => {
  const write = <A>(sql: string, run: (conn: Connection.Connection) => Effect.Effect<A, SqlError>) =>
    runsAlone(sql) ? writer(run) : group.write(run, true)
  return {
    execute: (sql, params, transformRows) =>
      isRead(sql)
        ? reader.execute(sql, params, transformRows)
        : write(sql, (conn) => conn.execute(sql, params, transformRows)),
    executeRaw: (sql, params) => write(sql, (conn) => conn.executeRaw(sql, params)),
    executeValues: (sql, params) =>
      isRead(sql) ? reader.executeValues(sql, params) : write(sql, (conn) => conn.executeValues(sql, params)),
    executeValuesUnprepared: (sql, params) => write(sql, (conn) => conn.executeValuesUnprepared(sql, params)),
    executeUnprepared: (sql, params, transformRows) =>
      write(sql, (conn) => conn.executeUnprepared(sql, params, transformRows)),
    executeStream: (sql, params, transformRows) =>
      isRead(sql)
        ? reader.executeStream(sql, params, transformRows)
        : Stream.unwrap(Effect.map(lease, (conn) => conn.executeStream(sql, params, transformRows)))
  }
}

/**
 * Opens the database for the life of the current scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  config: SqliteClientConfig
): Effect.fn.Return<SqliteClient, SqlError, Scope.Scope | Reactivity> {
  const onDisk = config.filename !== ":memory:"
  const db = yield* Effect.acquireRelease(open(config, "writer"), (db) => close(db, true))
  const connection = new SqliteConnection(db, config.statementCacheSize ?? 200)
  const semaphore = yield* Semaphore.make(1)
  const acquirers = SqlClient.makeSqliteAcquirers({
    connection: Effect.succeed(connection),
    semaphore,
    isTransaction: (conn) => conn.db.isTransaction
  })
  // Released before the writer closes (scopes release in reverse): the last connection out checkpoints the WAL.
  let borrower = acquirers.borrower
  let group: SqliteGroupCommit.GroupCommit | undefined
  if (onDisk) {
    yield* startCheckpointer(config, db)
    const readerDb = yield* Effect.acquireRelease(open(config, "reader"), (db) => close(db, false))
    const reader = new SqliteConnection(readerDb, config.statementCacheSize ?? 200)
    group = yield* SqliteGroupCommit.make(
      acquirers.borrower,
      (conn) => (conn as SqliteConnection).db.isTransaction
    )
    const writer = routed(reader, acquirers.borrower, acquirers.acquirer, group)
    borrower = (f) => f(writer)
  }
  const client = yield* SqlClient.make({
    ...acquirers,
    borrower,
    driver: "sqlite-node-builtin",
    compiler: Statement.makeCompilerSqlite(),
    beginTransaction: "BEGIN IMMEDIATE",
    spanAttributes: [
      ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
      ["db.system.name", "sqlite"],
      ["db.namespace", config.filename]
    ]
  })
  const writeAtomically = <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    options?: { readonly urgent?: boolean | undefined; readonly key?: string | undefined }
  ): Effect.Effect<A, E | SqlError, R> =>
    Effect.contextWith((context: Context.Context<R>) =>
      group === undefined || Context.getOption(context, client.transactionService)._tag === "Some"
        ? client.withTransaction(effect)
        // The group's transaction is the effect's: its statements run on the writer, in the group.
        : group.write(
          (conn) => Effect.provideContext(effect, Context.add(context, client.transactionService, [conn, 0])),
          options?.urgent,
          options?.key
        )
    )
  const maxLag = Duration.toMillis(Duration.fromInputUnsafe(config.maxWriteLag ?? DEFAULT_MAX_WRITE_LAG))
  const overloaded = () => group !== undefined && group.lag() > maxLag
  const hurry = (key: string) => group?.hurry(key)
  return Object.assign(client, { config, writeAtomically, overloaded, hurry })
})

/**
 * Provides both `SqliteClient` and the generic `SqlClient`; the database closes with the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: SqliteClientConfig): Layer.Layer<SqliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.effectContext(
    Effect.map(
      make(config),
      (client) => Context.make(SqliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  ).pipe(Layer.provide(ReactivityLayer.layer))
