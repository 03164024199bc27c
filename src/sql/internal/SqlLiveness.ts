/**
 * Which server nodes sharing a PostgreSQL database are alive, so that the restart recovery (and whoever takes over
 * a node's work) acts on the nodes that are gone, and never on one that still runs its tasks.
 *
 * A node holds a session advisory lock on its id, on a connection of its own, for its whole life, and writes a
 * heartbeat (`a2a_nodes.seen_at`, the database's clock) on that connection every lease / LEASE_BEATS. A lock
 * vanishes with its connection; so a connection lost while the process runs (the database restarted, the network
 * failed) frees the lock of a live node, which takes it again as soon as it can connect. So a node is gone only
 * when both:
 * - its lock is free (no session holds it: the process stopped, or at least lost its connection), and
 * - it has not been seen for a lease: its last heartbeat, or the database's start if later (a restart gives every
 *   node a lease to come back), is older than the lease; a node that stopped cleanly removed its row, and is gone
 *   at once.
 *
 * And a node judges others only while it holds its own lock (checked in the judging transaction), and, once it
 * has had to take its lock again, only a lease after that: the others needed as long to come back.
 *
 * A node that runs the cluster engine writes its heartbeat with a statement it makes anyway: the engine's lock
 * refresh (see ClusterStorage's `layerLocks` and `SharedBeat`) writes it too, while the node's liveness lock is
 * held, and the node's own beat waits while those come. An idle node commits once where it did twice.
 *
 * SQLite serves one process per database file: every other node is gone, and this node is always alive.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import type { SqlError } from "effect/sql/SqlError"
import { SqlNode } from "./SqlNode.ts"

/**
 * How long a node may go unseen (its lock free) before it counts as gone, by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_LEASE = Duration.seconds(10)

/**
 * Heartbeats per lease: a node that loses its connection was seen at most a beat before (a beat and a tenth when
 * the engine's lock refresh writes its heartbeat, see SharedBeat), so it keeps three fifths of its lease or more to
 * take its lock again (retried every second), and an idle node commits less often. A beat only matters once the lock
 * is free: while a node holds it, nobody judges it gone, however old its last beat.
 *
 * @since 0.1.0
 * @category constants
 */
export const LEASE_BEATS = 3

/**
 * The key space of the nodes' liveness locks: a node's lock is the advisory lock (hashtext of this, hashtext of its
 * id).
 *
 * @since 0.2.0
 * @category constants
 */
export const LOCK_SPACE = "effect-a2a/node"

/**
 * This node's heartbeat as another statement writes it (the cluster engine's lock refresh, see ClusterStorage):
 * `heartbeat(param)` is a part of a data-modifying WITH (`WITH ..., <heartbeat>`) named `seen` that writes this
 * node's heartbeat while its liveness lock is held (by its own session: no other takes it), with `param` the
 * placeholder of the node's id, and returns a row when it did; that statement, begun at `at` (epoch ms), then tells
 * `written` whether it did (`held`). Not held (its session gone, or its row): the node beats at once on its own
 * session, which finds it gone and takes the lock again. The node's own beat waits for a beat after the last one
 * written, and a tenth of one more when that was written so (another statement comes first on the same schedule).
 *
 * @since 0.2.0
 * @category models
 */
export interface SharedBeat {
  /** This node's id. */
  readonly node: string
  /** The heartbeat as part of a data-modifying WITH (see above). */
  readonly heartbeat: (param: string) => string
  /** Tells the node that a statement begun at `at` wrote its heartbeat (held), or found its lock free. */
  readonly written: (held: boolean, at: number) => void
}

/**
 * How long a node may go unseen before the others count it as gone.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** PostgreSQL only: how long a node may go unseen before it counts as gone (default DEFAULT_LEASE). */
  readonly lease?: Duration.Input | undefined
}

/**
 * Whether a node sharing the database is alive (see the module).
 *
 * @since 0.1.0
 * @category services
 */
export class SqlLiveness extends Context.Service<SqlLiveness, {
  /**
   * Whether the node `nodeId` is gone (see the module). Run inside a transaction: the node's lock, when free, is
   * held until it ends, so the node cannot come back meanwhile. False whenever this node may not judge.
   */
  readonly judge: (nodeId: string) => Effect.Effect<boolean, SqlError>
  /** `judge` in a transaction of its own. */
  readonly isGone: (nodeId: string) => Effect.Effect<boolean, SqlError>
  /** PostgreSQL: this node's heartbeat, for a statement made anyway to write it too (see `SharedBeat`). */
  readonly shared?: SharedBeat | undefined
}>()("effect-a2a/sql/SqlLiveness") {}

/**
 * Takes this node's lock (and writes its first heartbeat) while the layer builds, before the node saves a task, so
 * no other node can mistake it for a gone one; then keeps it for the life of the layer, taking it again after a
 * lost connection. On a clean stop, the node's row goes and its lock is released.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<SqlLiveness, SqlError, SqlClient.SqlClient | SqlNode> =>
  Layer.effect(
    SqlLiveness,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const node = (yield* SqlNode).id
      if (sql.onDialectOrElse({ pg: () => false, orElse: () => true })) {
        const judge = (nodeId: string) => Effect.succeed(nodeId !== node)
        return SqlLiveness.of({ judge, isGone: judge })
      }
      const lease = Duration.fromInputUnsafe(options.lease ?? DEFAULT_LEASE)
      const beat = Duration.toMillis(Duration.divideUnsafe(lease, LEASE_BEATS))
      // When (epoch ms) the last heartbeat written began, whether another statement wrote it (see SharedBeat), and
      // a wake-up of the own beat when that statement found the lock free.
      let lastBeat = 0
      let lastShared = false
      const poked = Latch.makeUnsafe(false)
      // A heartbeat written by a statement begun at `at`, by another statement (`byOther`) or the node's own.
      const wrote = (at: number, byOther: boolean) => {
        if (at > lastBeat) {
          lastBeat = at
          lastShared = byOther
        }
      }
      const shared: SharedBeat = {
        node,
        heartbeat: (param) =>
          `seen AS (UPDATE a2a_nodes SET seen_at = now() WHERE node_id = ${param} AND EXISTS (SELECT 1 FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = hashtext('${LOCK_SPACE}')::oid
            AND objid = hashtext(${param})::oid) RETURNING 1)`,
        written: (held, at) => {
          if (!held) {
            poked.openUnsafe()
          } else wrote(at, true)
        }
      }
      // Beats on `connection` when a beat is due (none written for a beat, or a tenth more when the last was
      // written by another statement), or at once when poked.
      const beats = (connection: Connection) =>
        Effect.forever(Effect.gen(function*() {
          const wait = lastBeat + beat + (lastShared ? beat / 10 : 0) - Date.now()
          if (
            wait > 0 && !(yield* Effect.raceFirst(Effect.as(poked.await, true), Effect.as(Effect.sleep(wait), false)))
          ) {
            return
          }
          poked.closeUnsafe()
          const at = Date.now()
          yield* connection.executeRaw(seen, [node])
          wrote(at, false)
        }))
      const seen = `INSERT INTO a2a_nodes (node_id, seen_at) VALUES ($1, now())
        ON CONFLICT (node_id) DO UPDATE SET seen_at = excluded.seen_at`
      // From when (epoch ms) this node may judge others: at once with its first lock; never while it has lost it;
      // a lease after it took it again.
      let judgesFrom = 0
      const lost = (error: SqlError) =>
        Effect.andThen(
          Effect.sync(() => {
            judgesFrom = Infinity
          }),
          Effect.logWarning("Liveness lock lost; taking it again", error)
        )

      /** Takes the lock on a connection of its own, in `scope`; then beats on it until the connection fails. */
      const hold = (scope: Scope.Scope) =>
        Effect.gen(function*() {
          const connection = yield* Scope.provide(sql.reserve, scope)
          yield* connection.executeRaw(`SELECT pg_advisory_lock(hashtext($1), hashtext($2))`, [LOCK_SPACE, node])
          // Released before the connection goes back to the pool (a lost connection has released it already).
          yield* Scope.addFinalizer(
            scope,
            connection.executeRaw(`SELECT pg_advisory_unlock(hashtext($1), hashtext($2))`, [LOCK_SPACE, node]).pipe(
              Effect.ignore
            )
          )
          const at = Date.now()
          yield* connection.executeRaw(seen, [node])
          wrote(at, false)
          poked.closeUnsafe()
          // Rows of nodes that crashed long ago (a clean stop removes its own): a lock held is never judged gone.
          yield* connection.executeRaw(`DELETE FROM a2a_nodes WHERE seen_at < now() - interval '1 day'`, [])
          return beats(connection)
        })

      const layerScope = yield* Effect.scope
      const first = yield* Scope.fork(layerScope)
      const beating = yield* hold(first)
      yield* Effect.addFinalizer(() => Effect.ignore(sql`DELETE FROM a2a_nodes WHERE node_id = ${node}`))

      // Each session lasts until its connection fails; then the lock is taken again, every second until it works.
      const again: Effect.Effect<never> = Effect.gen(function*() {
        const scope = yield* Scope.fork(layerScope)
        const beats = yield* hold(scope).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
        judgesFrom = (yield* Clock.currentTimeMillis) + Duration.toMillis(lease)
        yield* Effect.logInfo("Liveness lock taken again")
        return yield* beats.pipe(Effect.ensuring(Scope.close(scope, Exit.void)))
      }).pipe(
        Effect.tapError(lost),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.orDie
      )
      yield* beating.pipe(
        Effect.tapError(lost),
        Effect.ensuring(Scope.close(first, Exit.void)),
        Effect.ignore,
        Effect.andThen(again),
        Effect.annotateLogs("node", node),
        Effect.forkScoped
      )

      const judge = (nodeId: string) =>
        Effect.gen(function*() {
          if (nodeId === node) return false
          if ((yield* Clock.currentTimeMillis) < judgesFrom) return false
          // Our own lock is free only when our session has gone: we may not judge, and learn it from the database.
          const [row] = yield* sql<{ self: boolean; free: boolean; expired: boolean | null }>`SELECT
            pg_try_advisory_xact_lock(hashtext(${LOCK_SPACE}), hashtext(${node})) AS self,
            pg_try_advisory_xact_lock(hashtext(${LOCK_SPACE}), hashtext(${nodeId})) AS free,
            (SELECT GREATEST(seen_at, pg_postmaster_start_time()) < now() - make_interval(secs => ${
            Duration.toSeconds(lease)
          })
              FROM a2a_nodes WHERE node_id = ${nodeId}) AS expired`
          return row !== undefined && !row.self && row.free && row.expired !== false
        })

      return SqlLiveness.of({ judge, isGone: (nodeId) => sql.withTransaction(judge(nodeId)), shared })
    })
  )
