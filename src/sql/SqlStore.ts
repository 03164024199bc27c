/**
 * The durable stores in one layer: a SqlClient (embedded SQLite by default, PostgreSQL when a URL is given),
 * schema migrations applied on start, the SQL TaskStore and PushConfigStore, and the restart recovery
 * (SqlTaskRecovery) run before anything is served.
 *
 * Configuration (Effect `Config`, i.e. environment variables by default):
 * - `A2A_DATABASE_URL`: a `postgres://` URL; when set, PostgreSQL is used.
 * - `A2A_DATA_DIR` (default `./.a2a-data`): where the SQLite file (`a2a.db`) is created on first run.
 * - `A2A_SQLITE_SYNCHRONOUS` (default `NORMAL`, or `FULL`): see SqliteClient for the trade-off.
 * - `A2A_SQLITE_MAX_WRITE_LAG` (default `5 seconds`): how far the SQLite writer may fall behind before new sends are
 *   refused with UNAVAILABLE (HTTP 503, Retry-After) until it catches up (see SqliteClient's `maxWriteLag`).
 * - `A2A_SECRET_KEYS`: keys that seal push configs at rest (see `secretKeysConfig`).
 * - `A2A_RECOVERY_INTERVAL` (default `1 minute`; PostgreSQL only): how often to look for tasks left in flight
 *   by a node that died while this one runs (see SqlTaskRecovery).
 * - `A2A_IDEMPOTENCY_WINDOW` (default `24 hours`): how long a message's receipt is kept, so that sending it again
 *   is answered with its first outcome (see MessageReceipts).
 * - `A2A_NODE_LEASE` (default `10 seconds`; PostgreSQL only): how long a node may be out of reach of the database
 *   (a restart, a network failure) before the others count it as gone and fail its tasks (see SqlLiveness).
 * - `A2A_CLUSTER` (default `true`; PostgreSQL only) and the runner's settings: the cluster engine (see
 *   `clusterConfig`); with SQLite there is none.
 *
 * @example
 * ```ts
 * import { SqlStore } from "effect-a2a/sql"
 * import { Redacted } from "effect"
 *
 * const embedded = SqlStore.layerSqlite({ filename: "./data/a2a.db" })
 * const shared = SqlStore.layerPg({ url: Redacted.make("postgres://a2a@db/a2a") })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Persistence from "effect/persistence/Persistence"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type { MigrationError } from "effect/sql/Migrator"
import type * as SqlClient from "effect/sql/SqlClient"
import { ConnectionError, SqlError } from "effect/sql/SqlError"
import { join, resolve } from "node:path"
import * as EventBus from "../server/EventBus.ts"
import { invalidConfig } from "../server/internal/InvalidConfig.ts"
import * as MessageReceipts from "../server/MessageReceipts.ts"
import type { PushConfigStore } from "../server/PushConfigStore.ts"
import type { RecoveredTasks } from "../server/RecoveredTasks.ts"
import { type TaskStore, type TaskStoreError } from "../server/TaskStore.ts"
import type * as ClusterEngine from "./cluster/ClusterEngine.ts"
import * as SecretBox from "./internal/SecretBox.ts"
import * as SqlLiveness from "./internal/SqlLiveness.ts"
import * as SqlMessageReceipts from "./internal/SqlMessageReceipts.ts"
import * as SqlMigrations from "./internal/SqlMigrations.ts"
import * as SqlNode from "./internal/SqlNode.ts"
import * as SqlPushConfigStore from "./internal/SqlPushConfigStore.ts"
import * as SqlPushOutbox from "./internal/SqlPushOutbox.ts"
import * as SqlSchemaLock from "./internal/SqlSchemaLock.ts"
import * as SqlTaskRecovery from "./internal/SqlTaskRecovery.ts"
import * as SqlTaskStore from "./internal/SqlTaskStore.ts"
import * as SqliteClient from "./SqliteClient.ts"

/**
 * Everything the SQL store layers provide. `BackingPersistence` is Effect's persistence in the same database (its
 * own `effect_persistence` table, created on start, expired rows swept): what keeps state beside the tasks, such as
 * an LLM agent's conversations (`effect-a2a/ai`).
 *
 * @since 0.1.0
 * @category models
 */
export type Services =
  | TaskStore
  | PushConfigStore
  | MessageReceipts.MessageReceipts
  | SqlClient.SqlClient
  | SqlNode.SqlNode
  | SqlLiveness.SqlLiveness
  | RecoveredTasks
  | EventBus.EventBus
  | Persistence.BackingPersistence

/**
 * What building the stores can fail with: the database (SqlError), a migration, or a store's own setting.
 *
 * @since 0.1.0
 * @category errors
 */
export type StoreError = SqlError | MigrationError | TaskStoreError

/**
 * What every store layer takes, whatever the database: recovery, sealing keys, the idempotency window,
 * the node's role in the cluster engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly recovery?: SqlTaskRecovery.RecoveryOptions | undefined
  /**
   * Keys (32 bytes each) that seal push configs at rest (webhook URLs, tokens, credentials): the first seals, all
   * open, and configs sealed otherwise are sealed again with the first on start. None: stored in the clear.
   */
  readonly secretKeys?: ReadonlyArray<Redacted.Redacted<Buffer>> | undefined
  /** How long a message's receipt is kept (see MessageReceipts). Default 24 hours; zero keeps none. */
  readonly idempotencyWindow?: Duration.Input | undefined
  /**
   * `layerConfig` on PostgreSQL: this node's role in the cluster engine (see `ClusterOptions`), which it turns on:
   * true runs turns (`effect-a2a worker`), false only sends them (`serve --no-execute`). Absent: the engine is on
   * unless A2A_CLUSTER=false, and the node runs turns.
   */
  readonly execute?: boolean | undefined
}

/**
 * The stores over a given SqlClient layer: migrate, take this node's liveness lock, recover interrupted
 * tasks, then provide the stores, with the in-process EventBus (one process per database). The client (and the
 * database) close with the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFrom = <E, R>(
  client: Layer.Layer<SqlClient.SqlClient, E, R>,
  options: Options = {}
): Layer.Layer<Services, E | StoreError, R> => compose(client, EventBus.layerInProcess, options)

/** The stores, with `nodes`: how events (and cancels) travel between the processes sharing the database. */
const compose = <C, E, R, NE>(
  client: Layer.Layer<SqlClient.SqlClient | C, E, R>,
  nodes: Layer.Layer<EventBus.EventBus, NE, SqlClient.SqlClient | C | SqlNode.SqlNode | SqlLiveness.SqlLiveness>,
  options: Options
): Layer.Layer<Services, E | NE | StoreError, R> => {
  // Migrated, then this node is alive (its liveness lock taken) before it saves anything. Effect's persistence
  // table is made with the migrations, under the same schema lock, as nodes starting together would collide
  // creating it.
  const migrated = SqlSchemaLock.serialized(
    Effect.andThen(SqlMigrations.run, SqlSchemaLock.prepareLayer(Persistence.layerBackingSql))
  )
  const prepared = SqlLiveness.layer(options.recovery).pipe(Layer.provide(Layer.effectDiscard(migrated)))
  const stores = Layer.mergeAll(
    SqlTaskStore.layer,
    SqlPushConfigStore.layer(
      options.secretKeys !== undefined && options.secretKeys.length > 0 ? SecretBox.make(options.secretKeys) : undefined
    ),
    SqlPushOutbox.layer({ interval: options.recovery?.interval }),
    SqlMessageReceipts.layer({ window: options.idempotencyWindow })
  )
  return Layer.mergeAll(stores, SqlTaskRecovery.layer(options.recovery), Persistence.layerBackingSql).pipe(
    Layer.provideMerge(nodes),
    Layer.provideMerge(prepared),
    Layer.provideMerge(SqlNode.layer),
    Layer.provideMerge(client)
  )
}

/**
 * The embedded SQLite store's options: its file and how durable each commit is.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteOptions extends Options {
  /** Database file; created (with its directory) on first run. */
  readonly filename: string
  readonly synchronous?: "NORMAL" | "FULL" | undefined
  /**
   * How far the writer may fall behind before new sends are refused with UNAVAILABLE until it catches up (see
   * SqliteClient's `maxWriteLag`; default `SqliteClient.DEFAULT_MAX_WRITE_LAG`).
   */
  readonly maxWriteLag?: Duration.Input | undefined
}

/**
 * The embedded default: one SQLite file, no server.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<Services, StoreError> =>
  layerFrom(
    SqliteClient.layer({
      filename: options.filename,
      synchronous: options.synchronous,
      maxWriteLag: options.maxWriteLag
    }),
    options
  )

/**
 * The PostgreSQL store's options: its URL, its pool, and the cluster engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface PgOptions extends Options {
  readonly url: Redacted.Redacted<string>
  /** Pool size (default: the driver's). */
  readonly maxConnections?: number | undefined
  /**
   * Spread the turns over the nodes with Effect's cluster engine (see `ClusterOptions`); without it, each node
   * runs the agent for the messages it receives.
   */
  readonly cluster?: ClusterOptions | undefined
}

/**
 * The cluster engine (`effect/cluster`, on the same database): any node takes any SendMessage and the turn runs on
 * the runner that holds its task, after the task's earlier turns; at most `maxExecutions` at once per runner (the
 * rest wait, stored); a runner lost mid-turn has its turns taken over within `failover` (restartable agents run
 * them again, others are FAILED). Needs `@effect/platform-node` (the runners talk over sockets). See
 * `sql/cluster/` for how it works.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClusterOptions extends ClusterEngine.Options {}

// Our own modules: a failure to load them is a defect.
const pgNodes = Effect.promise(async () => ({
  PgEventBus: await import("./internal/PgEventBus.ts"),
  PgRemoteCancel: await import("./internal/PgRemoteCancel.ts")
}))

/** The cluster engine of `options` over the stores (loaded only when asked for). */
const clusterEngine = (options: ClusterOptions) =>
  Layer.unwrap(
    Effect.promise(() => import("./cluster/ClusterEngine.ts")).pipe(
      Effect.map((ClusterEngine) => ClusterEngine.layer(options))
    )
  )

/**
 * PostgreSQL, for several server nodes sharing one database: every node serves every operation on every task
 * (events and cancels travel between nodes with LISTEN/NOTIFY; see PgEventBus and PgRemoteCancel). The driver
 * (`@effect/sql-pg`, an optional peer dependency) is loaded when this layer is built, so a server on SQLite never
 * loads it; so are PgEventBus and PgRemoteCancel, which only PostgreSQL uses, so that a server on SQLite starts
 * with less loaded.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPg = (options: PgOptions): Layer.Layer<Services, StoreError> =>
  Layer.unwrap(
    Effect.tryPromise({
      try: () => import("@effect/sql-pg/PgClient"),
      catch: (cause) =>
        new SqlError({
          reason: new ConnectionError({
            cause,
            message: "PostgreSQL needs the @effect/sql-pg package: npm install @effect/sql-pg",
            operation: "open"
          })
        })
    }).pipe(
      Effect.zip(pgNodes),
      Effect.map(([PgClient, { PgEventBus, PgRemoteCancel }]) => {
        const stores = compose(
          PgClient.layer({
            url: options.url,
            applicationName: "effect-a2a",
            ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {})
          }),
          // Events and cancels reach the other nodes through the database itself (LISTEN/NOTIFY).
          Layer.merge(PgEventBus.layer(PgClient.PgClient), PgRemoteCancel.layer(PgClient.PgClient)),
          // With the engine, the turns of a lost node are its to take over (ClusterTurns), not the recovery's.
          options.cluster === undefined ? options : { ...options, recovery: { ...options.recovery, byEngine: true } }
        )
        return options.cluster === undefined ? stores : Layer.provideMerge(clusterEngine(options.cluster), stores)
      })
    )
  )

/**
 * Where the SQLite file goes: `$A2A_DATA_DIR/a2a.db`.
 *
 * @since 0.1.0
 * @category constants
 */
export const SQLITE_FILE = "a2a.db"

/**
 * Which database `layerConfig` opens: a SQLite file, or PostgreSQL at a URL.
 *
 * @since 0.1.0
 * @category models
 */
export type Database =
  | {
    readonly _tag: "sqlite"
    readonly filename: string
    readonly synchronous: "NORMAL" | "FULL"
    /** How far the writer may fall behind before new sends are refused (`A2A_SQLITE_MAX_WRITE_LAG`). */
    readonly maxWriteLag?: Duration.Duration | undefined
  }
  | { readonly _tag: "pg"; readonly url: Redacted.Redacted<string> }

/**
 * Reads which database to use from `A2A_DATABASE_URL`, `A2A_DATA_DIR`, `A2A_SQLITE_SYNCHRONOUS` and
 * `A2A_SQLITE_MAX_WRITE_LAG`.
 *
 * @since 0.1.0
 * @category config
 */
export const databaseConfig: Config.Config<Database> = Config.all({
  url: Config.option(Config.Redacted("A2A_DATABASE_URL")),
  dataDir: Config.String("A2A_DATA_DIR").pipe(Config.withDefault("./.a2a-data")),
  synchronous: Config.Literals(["NORMAL", "FULL"], "A2A_SQLITE_SYNCHRONOUS").pipe(Config.withDefault("NORMAL")),
  maxWriteLag: Config.Duration("A2A_SQLITE_MAX_WRITE_LAG").pipe(Config.withDefault(SqliteClient.DEFAULT_MAX_WRITE_LAG))
}).pipe(
  Config.map(({ dataDir, maxWriteLag, synchronous, url }): Database =>
    Option.isSome(url) && Redacted.value(url.value).trim().length > 0
      ? { _tag: "pg", url: url.value }
      : { _tag: "sqlite", filename: join(resolve(dataDir), SQLITE_FILE), synchronous, maxWriteLag }
  )
)

/**
 * `A2A_SECRET_KEYS`: comma-separated base64 keys of 32 bytes (`openssl rand -base64 32`) that seal push configs
 * at rest; the first seals, all open. To rotate, put the new key first and keep the old ones until the server has
 * started once (it seals every config again with the first).
 *
 * @since 0.1.0
 * @category config
 */
export const secretKeysConfig: Config.Config<ReadonlyArray<Redacted.Redacted<Buffer>>> = Config.option(
  Config.Redacted("A2A_SECRET_KEYS")
).pipe(Config.mapEffect((raw) => {
  if (Option.isNone(raw)) return Effect.succeed([])
  const texts = Redacted.value(raw.value).split(",").map((s) => s.trim()).filter((s) => s.length > 0)
  const keys: Array<Redacted.Redacted<Buffer>> = []
  for (const [i, text] of texts.entries()) {
    const key = SecretBox.parseKey(text)
    if (Result.isFailure(key)) {
      return Effect.fail(invalidConfig(`A2A_SECRET_KEYS (key ${i + 1}): ${key.failure}`))
    }
    keys.push(Redacted.make(key.success))
  }
  return Effect.succeed(keys)
}))

/**
 * The cluster engine from the environment: on PostgreSQL it is on unless `A2A_CLUSTER=false` (a node that runs
 * the turns of the requests it takes, as on SQLite), which a role (`execute`: `worker`, `serve --no-execute`)
 * cannot do without. `A2A_RUNNER_HOST` (where the runner's socket listens, default 127.0.0.1), `A2A_RUNNER_PORT`
 * (default 0: a free port, advertised once bound), `A2A_RUNNER_ADVERTISE_HOST` (where the other nodes reach it,
 * default A2A_RUNNER_HOST; needed when that is 0.0.0.0), `A2A_MAX_EXECUTIONS` (turns run at once here, default 64),
 * `A2A_FAILOVER` (how long a lost runner keeps its turns, default 10 seconds). None: the engine is off.
 *
 * @since 0.1.0
 * @category config
 */
export const clusterConfig = (execute: boolean | undefined): Config.Config<Option.Option<ClusterOptions>> =>
  Config.all({
    on: Config.Boolean("A2A_CLUSTER").pipe(Config.withDefault(true)),
    host: Config.String("A2A_RUNNER_HOST").pipe(Config.withDefault("127.0.0.1")),
    port: Config.Int("A2A_RUNNER_PORT").pipe(
      Config.mapEffect((n) =>
        n >= 0 && n <= 65535
          ? Effect.succeed(n)
          : Effect.fail(invalidConfig(`A2A_RUNNER_PORT must be a port (0: a free one), got ${n}`))
      ),
      Config.withDefault(0)
    ),
    advertiseHost: Config.option(Config.String("A2A_RUNNER_ADVERTISE_HOST")),
    maxExecutions: Config.Int("A2A_MAX_EXECUTIONS").pipe(
      Config.mapEffect((n) =>
        n >= 1 ? Effect.succeed(n) : Effect.fail(invalidConfig(`A2A_MAX_EXECUTIONS must be at least 1, got ${n}`))
      ),
      Config.withDefault(64)
    ),
    failover: Config.Duration("A2A_FAILOVER").pipe(Config.withDefault(Duration.seconds(10)))
  }).pipe(
    Config.mapEffect(({ advertiseHost, on, ...settings }) => {
      if (on) {
        return Effect.succeed(Option.some({
          ...settings,
          advertiseHost: Option.getOrUndefined(advertiseHost),
          execute: execute ?? true
        }))
      }
      return execute === undefined ? Effect.succeed(Option.none()) : Effect.fail(
        invalidConfig(
          "A2A_CLUSTER=false turns off the cluster engine, which a node that only runs turns (worker) or only takes " +
            "requests (--no-execute) needs"
        )
      )
    })
  )

/**
 * The default durable store for `effect-a2a serve`: SQLite in `A2A_DATA_DIR`, or PostgreSQL at `A2A_DATABASE_URL`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options: Options = {}): Layer.Layer<Services, StoreError | Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const database = yield* databaseConfig
    const interval = yield* Config.option(Config.Duration("A2A_RECOVERY_INTERVAL"))
    const lease = yield* Config.option(Config.Duration("A2A_NODE_LEASE"))
    const recovery: SqlTaskRecovery.RecoveryOptions = {
      ...options.recovery,
      ...(options.recovery?.interval === undefined && Option.isSome(interval) ? { interval: interval.value } : {}),
      ...(options.recovery?.lease === undefined && Option.isSome(lease) ? { lease: lease.value } : {})
    }
    const withRecovery: Options = { ...options, recovery }
    const keys = options.secretKeys === undefined ? yield* secretKeysConfig : undefined
    const withKeys: Options = keys !== undefined && keys.length > 0
      ? { ...withRecovery, secretKeys: keys }
      : withRecovery
    const configured: Options = options.idempotencyWindow === undefined
      ? { ...withKeys, idempotencyWindow: yield* MessageReceipts.windowConfig }
      : withKeys
    yield* Effect.logInfo(
      database._tag === "pg" ? "Task store: PostgreSQL (A2A_DATABASE_URL)" : `Task store: SQLite ${database.filename}`
    )
    const cluster = database._tag === "pg" ? Option.getOrUndefined(yield* clusterConfig(options.execute)) : undefined
    if (database._tag !== "pg" && options.execute !== undefined) {
      return yield* Effect.fail(
        invalidConfig("Running turns on other nodes (worker, --no-execute) needs A2A_DATABASE_URL")
      )
    }
    return database._tag === "pg"
      ? layerPg({ ...configured, url: database.url, cluster })
      : layerSqlite({
        ...configured,
        filename: database.filename,
        synchronous: database.synchronous,
        maxWriteLag: database.maxWriteLag
      })
  }))
