/**
 * One lock for every change a node makes to the database's schema as it starts (the stores' migrations, Effect's
 * persistence table, the cluster engine's tables, the gateway's table): on PostgreSQL, an advisory lock held by
 * one transaction around the whole step, so nodes started together on a fresh or older database change it one after
 * the other, and each finds what the one before it made. Without it, two nodes creating the same table at once
 * collide in PostgreSQL's catalog (`UniqueViolation` on `pg_type_typname_nsp_index`) and one of them dies.
 *
 * Use it around any start-up DDL that runs on every node. SQLite serves one process, so there it runs the step as
 * it is.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/**
 * The lock's name; its key is this name's hash with the schema the connection works in, so that stores in
 * different schemas of one database (tests, tenants) do not wait for each other.
 *
 * @since 0.2.0
 * @category constants
 */
export const LOCK_NAME = "effect-a2a schema"

/**
 * Runs `step` holding the schema lock, in one transaction that commits what it made before the lock is released
 * (a transaction-level advisory lock: a node that dies mid-step releases it with its connection).
 *
 * @since 0.2.0
 * @category combinators
 */
export const serialized = <A, E, R>(
  step: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, R | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.onDialectOrElse({
      pg: () =>
        sql.withTransaction(
          Effect.andThen(
            sql`SELECT pg_advisory_xact_lock(hashtext(${LOCK_NAME} || ' ' || current_schema()))`,
            step
          )
        ),
      orElse: () => step
    })
  })

/**
 * Builds `layer` and closes it again, for a layer whose construction changes the schema (Effect's
 * `Persistence.layerBackingSql` creates its table as it is built): run under `serialized`, it leaves the tables
 * made, so that building the layer for real afterwards, outside the lock, changes nothing.
 *
 * @since 0.2.0
 * @category combinators
 */
export const prepareLayer = <ROut, E, RIn>(layer: Layer.Layer<ROut, E, RIn>): Effect.Effect<void, E, RIn> =>
  Effect.asVoid(Effect.scoped(Layer.build(layer)))
