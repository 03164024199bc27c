/**
 * effect-a2a SQL stores: TaskStore and PushConfigStore over Effect's SqlClient, on an embedded SQLite file
 * (Node's `node:sqlite`, no server) or PostgreSQL (`@effect/sql-pg`, loaded only when used), and
 * `DurableServer`: the whole server over them with webhook push.
 *
 * @example
 * ```ts
 * import { SqlStore } from "effect-a2a/sql"
 *
 * // tasks and push configs in ./data/a2a.db, migrated on start
 * const stores = SqlStore.layerSqlite({ filename: "./data/a2a.db" })
 * ```
 *
 * On PostgreSQL, the stores also run the cluster engine (`sql/cluster/`), which spreads the turns of the tasks over
 * the nodes sharing the database; see `SqlStore.ClusterOptions`.
 *
 * @since 0.1.0
 */
export * as DurableServer from "./DurableServer.ts"
export * as SqliteClient from "./SqliteClient.ts"
export * as SqlStore from "./SqlStore.ts"
