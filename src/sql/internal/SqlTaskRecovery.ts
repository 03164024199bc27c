/**
 * Restart semantics of the SQL stores. A task whose agent was running (SUBMITTED or WORKING) when its server
 * process died can never finish: nothing is executing it any more. On start, such tasks are moved to FAILED
 * with a status message saying the server restarted, so clients polling or subscribing see an end instead of
 * a task that stays "working" forever. INPUT_REQUIRED and AUTH_REQUIRED tasks are left alone: they wait for the
 * client, not for a process, and continue normally after the restart.
 *
 * Which processes are gone: every task records the id of the process (SqlNode) that last saved it.
 * - SQLite serves one process per database file, so every other process id is gone.
 * - PostgreSQL may serve several nodes at once: SqlLiveness says which are gone (their liveness lock free, and
 *   unseen for a lease, so a node that only lost its connection for a while keeps its tasks), and only their
 *   tasks are failed, in the transaction that judged them. The check runs at start and then periodically, so a
 *   node that crashes while others keep running has its tasks failed too.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import { randomUUID } from "node:crypto"
import type * as v1 from "../../protocol/generated/v1.ts"
import { EventBus } from "../../server/EventBus.ts"
import { type RecoveredTask, RecoveredTasks } from "../../server/RecoveredTasks.ts"
import type { TaskStoreError } from "../../server/TaskStore.ts"
import { storeError } from "./SqlFailure.ts"
import * as SqlLiveness from "./SqlLiveness.ts"
import { SqlNode } from "./SqlNode.ts"
import * as SqlTaskRows from "./SqlTaskRows.ts"

/**
 * The status message of a task failed by the restart recovery.
 *
 * @since 0.1.0
 * @category constants
 */
export const RESTART_MESSAGE =
  "The server restarted while this task was being worked on, so it was interrupted and marked as failed. " +
  "Send the request again to start a new task."

/**
 * The states of a task whose agent is at work: it runs on the node that last saved it.
 *
 * @since 0.1.0
 * @category constants
 */
export const IN_FLIGHT = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"] as const

// Like an agent's status update with a message: the message becomes the status and joins the history.
const failTask = (task: v1.Task, timestamp: string): RecoveredTask => {
  const message: v1.Message = {
    messageId: randomUUID(),
    role: "ROLE_AGENT",
    parts: [{ text: RESTART_MESSAGE }],
    taskId: task.id,
    ...(task.contextId !== undefined ? { contextId: task.contextId } : {})
  }
  const status: v1.TaskStatus = { state: "TASK_STATE_FAILED", timestamp, message }
  // A task that keeps a generation (A2A 1.1 draft) counts this update as any other.
  const generation = task.generation === undefined || task.generation === 0 ? undefined : task.generation + 1
  const counted = generation === undefined ? {} : { generation }
  return {
    task: { ...task, status, history: [...(task.history ?? []), message], ...counted },
    statusUpdate: { taskId: task.id, contextId: task.contextId ?? "", status, ...counted }
  }
}

/**
 * A recovered task and the version its FAILED status was saved as.
 *
 * @since 0.1.0
 * @category models
 */
export interface Recovered extends RecoveredTask {
  readonly version: number
}

/**
 * Fails the in-flight tasks of processes that are gone; returns them.
 *
 * @since 0.1.0
 * @category recovery
 */
export const recover: Effect.Effect<
  ReadonlyArray<Recovered>,
  TaskStoreError,
  SqlClient.SqlClient | SqlNode | SqlLiveness.SqlLiveness
> = Effect
  .gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const node = yield* SqlNode
    const liveness = yield* SqlLiveness.SqlLiveness
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const rows = yield* SqlTaskRows.make

    const owners = yield* sql<{ node_id: string | null }>`SELECT DISTINCT node_id FROM a2a_tasks
      WHERE state IN ${sql.in(IN_FLIGHT)} AND (node_id IS NULL OR node_id <> ${node.id})`

    const failTasksOf = (nodeId: string | null) =>
      sql.withTransaction(Effect.gen(function*() {
        // Judged in this transaction, which keeps the node from coming back until its tasks are failed.
        if (isPg && nodeId !== null && !(yield* liveness.judge(nodeId))) return []
        const found = yield* sql<SqlTaskRows.TaskRow>`
          SELECT ${rows.columns} FROM a2a_tasks
          WHERE state IN ${sql.in(IN_FLIGHT)} AND ${nodeId === null ? sql`node_id IS NULL` : sql`node_id = ${nodeId}`}
          ${isPg ? sql`FOR UPDATE` : sql``}`
        const now = yield* Clock.currentTimeMillis
        const timestamp = new Date(now).toISOString()
        return yield* Effect.forEach(found, (row) =>
          Effect.gen(function*() {
            const recovered = failTask(yield* rows.toTask(row), timestamp)
            const version = Number(row.version) + 1
            // Locked (PostgreSQL) or in the writer's transaction (SQLite): still in flight at this version.
            yield* rows.write({ task: recovered.task, owner: row.owner, tenant: row.tenant, version }, now)
            return { ...recovered, version }
          }))
      }))

    const recovered = yield* Effect.forEach(owners, (row) => failTasksOf(row.node_id))
    return recovered.flat()
  }).pipe(
    Effect.catchTags({
      SqlError: storeError("Restart recovery failed"),
      SchemaError: storeError("Restart recovery found a stored task it cannot read")
    }),
    Effect.withSpan("SqlTaskRecovery.recover")
  )

/**
 * When and how the tasks of a node that is gone are recovered.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecoveryOptions extends SqlLiveness.Options {
  /** PostgreSQL only: how often to look for nodes that died while this one runs (default 1 minute). */
  readonly interval?: Duration.Input | undefined
  /**
   * PostgreSQL only: leave the tasks of gone nodes alone, since an engine takes their turns over (ClusterTurns
   * runs them again, or fails them, where it delivers them next).
   */
  readonly byEngine?: boolean | undefined
}

const recoverAndLog = Effect.tap(recover, (recovered) =>
  recovered.length === 0 ? Effect.void : Effect.logWarning(
    `Restart recovery: ${recovered.length} interrupted task(s) marked failed`
  ).pipe(Effect.annotateLogs("taskIds", recovered.map((r) => r.task.id).join(","))))

/**
 * Runs the recovery once while the layer builds (before the server takes requests); on PostgreSQL, repeats it
 * in the background. Provides the tasks recovered at start (the webhook notifier sends their FAILED status).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: RecoveryOptions = {}
): Layer.Layer<RecoveredTasks, TaskStoreError, SqlClient.SqlClient | SqlNode | SqlLiveness.SqlLiveness> =>
  Layer.effect(
    RecoveredTasks,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const queue = yield* Queue.sliding<RecoveredTask>(10_000)
      if (options.byEngine === true && sql.onDialectOrElse({ pg: () => true, orElse: () => false })) {
        return RecoveredTasks.of({ atStart: [], queue })
      }
      const recovered = yield* recoverAndLog
      Queue.offerAllUnsafe(queue, recovered)
      // Subscribers of a task failed later (on any node: the bus of shared stores reaches them all) see it end.
      const bus = yield* Effect.serviceOption(EventBus)
      const announce = (later: ReadonlyArray<Recovered>) =>
        Option.isNone(bus) ?
          Effect.void :
          Effect.forEach(
            later,
            (r) =>
              bus.value.publish({ taskId: r.task.id, sequence: r.version, event: { statusUpdate: r.statusUpdate } }),
            {
              discard: true
            }
          )
      if (sql.onDialectOrElse({ pg: () => true, orElse: () => false })) {
        yield* recoverAndLog.pipe(
          Effect.tap((later) => Effect.andThen(announce(later), Queue.offerAll(queue, later))),
          Effect.catchCause((cause) => Effect.logWarning("Restart recovery failed; will retry", cause)),
          Effect.repeat(Schedule.spaced(options.interval ?? Duration.minutes(1))),
          Effect.delay(options.interval ?? Duration.minutes(1)),
          Effect.forkScoped
        )
      }
      return RecoveredTasks.of({ atStart: recovered, queue })
    })
  )
