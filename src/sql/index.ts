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
 */
export * as DurableServer from "./DurableServer.ts"
export * as SqliteClient from "./SqliteClient.ts"
export * as SqlStore from "./SqlStore.ts"
