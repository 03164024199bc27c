/**
 * Whether a turn still runs on another node, for a runner that is delivered a Turn whose message its task holds
 * already, the turn seemingly cut short (the task in flight, or its last save the one that took the message).
 *
 * The engine delivers a Turn again when the shard of its task moves; usually because its runner was lost, but
 * also while that runner lives on: one whose shard locks could not be refreshed in time (a loaded machine or
 * database) lets go of all its shards at once, without waiting for the turns running on them, and another runner
 * takes the shard. Taken as lost, such a turn was failed (NODE_LOST) or run a second time while its first run was
 * still at work. So before that, the runner asks here: the task's row names the node that last saved it (the one
 * that took the message, and runs its agent), and that node is alive while it holds its liveness lock (see
 * SqlLiveness). While it does, the runner waits for the turn's end to be saved (woken by the task's events, or
 * reading the row again every second), then answers the task as stored; once the lock has been free for a
 * `failover` (the node is gone, or lost its database for as long as a runner's shards are kept), or the wait has
 * lasted `maxWait`, the turn is lost, and dealt with as before.
 *
 * Used by TurnEntity on PostgreSQL (ClusterEngine provides it); without it (the engine's tests, in memory) a turn
 * found cut is always taken as lost.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isFinal } from "../../protocol/TaskStates.ts"
import { EventBus } from "../../server/EventBus.ts"
import type { TaskStoreError } from "../../server/TaskStore.ts"
import { storeError } from "../internal/SqlFailure.ts"
import { LOCK_SPACE } from "../internal/SqlLiveness.ts"
import { SqlNode } from "../internal/SqlNode.ts"

/**
 * What a wait for a turn held elsewhere found:
 * - `"none"`: no other node holds it (the task was last saved here, or by no node): nothing was waited for;
 * - `"ended"`: its end is saved (or another node saved the task since): read the task again;
 * - `"lost"`: its node is gone, or it ran past the wait's bound: the turn is lost with its node.
 *
 * @since 0.2.0
 * @category models
 */
export type Verdict = "none" | "ended" | "lost"

/**
 * Waits while the turn of a message runs on another node that is alive (see the module).
 *
 * @since 0.2.0
 * @category services
 */
export class TurnHolder extends Context.Service<TurnHolder, {
  /** Waits while the turn of `messageId` in task `taskId` runs on another live node; says how it ended. */
  readonly await: (taskId: string, messageId: string) => Effect.Effect<Verdict, TaskStoreError>
}>()("effect-a2a/sql/cluster/TurnHolder") {}

/**
 * How long a wait may last before its turn is taken as lost.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** How long a node's liveness lock must stay free before its turn is taken as lost. */
  readonly failover: Duration.Duration
  /** The longest wait, whatever the node (default 60 seconds): a turn that runs longer is taken as lost. */
  readonly maxWait?: Duration.Duration | undefined
}

/** The task's row as the wait reads it: its last saver, and whether that node's liveness lock is free. */
interface HolderRow {
  readonly node_id: string | null
  readonly state: v1.TaskState
  readonly turn: string | null
  readonly free: boolean | null
}

/**
 * The TurnHolder over the SqlClient in context (PostgreSQL), the task events waking it.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<TurnHolder, never, SqlClient.SqlClient | SqlNode | EventBus> =>
  Layer.effect(
    TurnHolder,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const self = (yield* SqlNode).id
      const bus = yield* EventBus
      const grace = Duration.toMillis(options.failover)
      const bound = Duration.toMillis(options.maxWait ?? Duration.seconds(60))

      // A free lock is taken for this statement only (its transaction), as SqlLiveness judges.
      const read = (taskId: string) =>
        sql<HolderRow>`SELECT node_id, state, turn, CASE WHEN node_id IS NULL OR node_id = ${self} THEN NULL
          ELSE pg_try_advisory_xact_lock(hashtext(${LOCK_SPACE}), hashtext(node_id)) END AS free
          FROM a2a_tasks WHERE id = ${taskId}`.pipe(Effect.map((rows) => rows[0]))

      const heldElsewhere = (row: HolderRow | undefined): row is HolderRow & { readonly node_id: string } =>
        row !== undefined && row.node_id !== null && row.node_id !== self

      const wait = (taskId: string, messageId: string, first: HolderRow & { readonly node_id: string }) =>
        Effect.gen(function*() {
          const started = yield* Clock.currentTimeMillis
          // Any event of the task wakes the wait (its end among them), subscribed before the next read.
          let poked = yield* Deferred.make<void>()
          const events = yield* bus.subscribe(taskId)
          yield* Stream.runForEach(events, () => Deferred.succeed(poked, undefined)).pipe(
            Effect.ignore,
            Effect.forkScoped
          )
          yield* Effect.logInfo(
            `The turn of message ${messageId} (task ${taskId}) is delivered here while node ${first.node_id} ` +
              "may still run it; waiting for its end"
          )
          let row: HolderRow | undefined = first
          let freeSince: number | undefined
          for (;;) {
            const now = yield* Clock.currentTimeMillis
            if (!heldElsewhere(row) || row.node_id !== first.node_id) return "ended" as const
            if (isFinal(row.state) && row.turn !== messageId) return "ended" as const
            if (row.free === true) freeSince ??= now
            else freeSince = undefined
            if (freeSince !== undefined && now - freeSince >= grace) {
              yield* Effect.logWarning(`Node ${row.node_id} is gone: the turn of message ${messageId} is lost`)
              return "lost" as const
            }
            if (now - started >= bound) {
              yield* Effect.logWarning(
                `The turn of message ${messageId} still runs on node ${row.node_id} after ${bound} ms: taken as lost`
              )
              return "lost" as const
            }
            yield* Effect.raceFirst(Deferred.await(poked), Effect.sleep("1 second"))
            poked = yield* Deferred.make<void>()
            row = yield* read(taskId)
          }
        }).pipe(Effect.scoped)

      return TurnHolder.of({
        await: (taskId, messageId) =>
          read(taskId).pipe(
            Effect.flatMap((row) =>
              heldElsewhere(row) ? wait(taskId, messageId, row) : Effect.succeed("none" as const)
            ),
            Effect.catchTag("SqlError", (error) => Effect.fail(storeError("Reading the holder of a turn")(error)))
          )
      })
    })
  )
