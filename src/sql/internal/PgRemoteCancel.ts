/**
 * RemoteCancel for nodes sharing one PostgreSQL database. Every task row records the node that last saved it,
 * which for a task in flight is the node running its agent. A CancelTask on another node sends that node a
 * NOTIFY naming the task; the node cancels its execution as a local CancelTask would, and the outcome (CANCELED,
 * or the end the task reached first) travels back on the EventBus. A node that is gone (see SqlLiveness) is not
 * asked: the caller cancels the task itself.
 *
 * @since 0.1.0
 */
import type { PgClient } from "@effect/sql-pg/PgClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { RemoteCancel, type Service } from "../../server/RemoteCancel.ts"
import * as PgChannel from "./PgChannel.ts"
import { SqlLiveness } from "./SqlLiveness.ts"
import { SqlNode } from "./SqlNode.ts"
import * as SqlTaskRecovery from "./SqlTaskRecovery.ts"

/** A request: the node asked, and the task with its scope. */
const Request = Schema.fromJsonString(Schema.Struct({
  node: Schema.String,
  taskId: Schema.String,
  owner: Schema.String,
  tenant: Schema.String
}))
const decodeRequest = Schema.decodeUnknownResult(Request)
const encodeRequest = Schema.encodeSync(Request)

/**
 * The RemoteCancel of this node, listening for cancels on `pg` (see the module).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  pg: PgClient
): Effect.Effect<Service, SqlError, SqlClient.SqlClient | SqlNode | SqlLiveness> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const node = (yield* SqlNode).id
    const liveness = yield* SqlLiveness
    const channel = yield* PgChannel.name("a2a_cancel")

    const request: Service["request"] = (taskId, { owner, tenant }) =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ node_id: string | null; state: string }>`
          SELECT node_id, state FROM a2a_tasks WHERE id = ${taskId} AND owner = ${owner} AND tenant = ${tenant}`
        const runner = row?.node_id
        if (
          row === undefined || runner == null || runner === node ||
          !SqlTaskRecovery.IN_FLIGHT.some((state) => state === row.state)
        ) return false
        if (yield* liveness.isGone(runner)) return false
        yield* pg.notify(channel, encodeRequest({ node: runner, taskId, owner, tenant }))
        return true
      }).pipe(
        // Unable to ask: the caller cancels the task itself, as if no other node ran it.
        Effect.catch((error) =>
          Effect.as(Effect.logWarning(`Cannot ask another node to cancel ${taskId}`, error), false)
        )
      )

    const serve: Service["serve"] = (cancel) =>
      Effect.gen(function*() {
        const scope = yield* Effect.scope
        const answer = (payload: string): Effect.Effect<void> => {
          const decoded = decodeRequest(payload)
          if (Result.isFailure(decoded) || decoded.success.node !== node) return Effect.void
          const { owner, taskId, tenant } = decoded.success
          return Effect.asVoid(Effect.forkIn(cancel(taskId, { owner, tenant }), scope))
        }
        // Listening before the runner is handed out; a node that cannot listen yet keeps trying.
        yield* PgChannel.follow(pg, channel, answer, {
          what: "the cancel channel to the other nodes",
          firstFailure: "retry"
        }).pipe(Effect.orDie)
      })

    return { request, serve }
  })

/**
 * RemoteCancel over the `PgClient` service `tag` of `@effect/sql-pg`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  tag: Context.Service<PgClient, PgClient>
) => Layer.effect(RemoteCancel, Effect.flatMap(tag, make))
