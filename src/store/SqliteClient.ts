/**
 * An `effect/sql` SqlClient over Node's built-in `node:sqlite` (`DatabaseSync`): the embedded default store,
 * one file, no server, no native addon to install.
 *
 * One connection, shared through a semaphore (SQLite allows one writer at a time anyway). Statements are
 * synchronous, so a query never yields mid-flight; keep them small (the task store's are point lookups and
 * index range scans).
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
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Reactivity } from "effect/reactivity/Reactivity"
import * as ReactivityLayer from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { classifySqliteError, ConnectionError, SqlError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import { chmodSync, existsSync, mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite"

export interface SqliteClientConfig {
  /** Database file, or `":memory:"`. Missing parent directories are created. */
  readonly filename: string
  /** `NORMAL` (default) or `FULL`; see the module comment. */
  readonly synchronous?: "NORMAL" | "FULL" | undefined
  /** How long to wait for another connection's write lock, in milliseconds (default 5000). */
  readonly busyTimeoutMillis?: number | undefined
  /** Prepared statements kept per connection (default 200). */
  readonly statementCacheSize?: number | undefined
  readonly spanAttributes?: Readonly<Record<string, unknown>> | undefined
}

/** The SqlClient, plus the SQLite specifics (the file it opened). */
export interface SqliteClient extends SqlClient.SqlClient {
  readonly config: SqliteClientConfig
}

export const SqliteClient = Context.Service<SqliteClient>("effect-a2a/store/SqliteClient")

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

class SqliteConnection implements Connection {
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

const open = (config: SqliteClientConfig): Effect.Effect<DatabaseSync, SqlError> =>
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
        if (onDisk) db.exec("PRAGMA journal_mode = WAL")
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

/** Opens the database for the life of the current scope. */
export const make = Effect.fnUntraced(function*(
  config: SqliteClientConfig
): Effect.fn.Return<SqliteClient, SqlError, Scope.Scope | Reactivity> {
  const db = yield* Effect.acquireRelease(open(config), (db) =>
    Effect.sync(() => {
      if (!db.isOpen) return
      // Lets the query planner keep its statistics fresh; cheap, and skipped when nothing changed.
      try {
        db.exec("PRAGMA optimize")
      } catch {
        // best effort only
      }
      db.close()
    }))
  const connection = new SqliteConnection(db, config.statementCacheSize ?? 200)
  const semaphore = yield* Semaphore.make(1)
  const acquirers = SqlClient.makeSqliteAcquirers({
    connection: Effect.succeed(connection),
    semaphore,
    isTransaction: (conn) => conn.db.isTransaction
  })
  const client = yield* SqlClient.make({
    ...acquirers,
    driver: "sqlite-node-builtin",
    compiler: Statement.makeCompilerSqlite(),
    beginTransaction: "BEGIN IMMEDIATE",
    spanAttributes: [
      ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
      ["db.system.name", "sqlite"],
      ["db.namespace", config.filename]
    ]
  })
  return Object.assign(client, { config })
})

/** Provides both `SqliteClient` and the generic `SqlClient`; the database closes with the layer. */
export const layer = (config: SqliteClientConfig): Layer.Layer<SqliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.effectContext(
    Effect.map(
      make(config),
      (client) => Context.make(SqliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  ).pipe(Layer.provide(ReactivityLayer.layer))
