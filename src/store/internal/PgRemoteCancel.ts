/**
 * RemoteCancel for nodes sharing one PostgreSQL database. Every task row records the node that last saved it,
 * which for a task in flight is the node running its agent. A CancelTask on another node sends that node a
 * NOTIFY naming the task; the node cancels its execution as a local CancelTask would, and the outcome (CANCELED,
 * or the end the task reached first) travels back on the EventBus. A node that is gone (its liveness lock is
 * free) is not asked: the caller cancels the task itself.
 */
import type { PgClient } from "@effect/sql-pg/PgClient"
import type { Notification } from "@effect/sql-pg/PgConnection"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { RemoteCancel, type Service } from "../../server/RemoteCancel.ts"
import * as PgChannel from "./PgChannel.ts"
import { SqlNode } from "./SqlNode.ts"
import * as SqlTaskRecovery from "./SqlTaskRecovery.ts"

const IN_FLIGHT = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]

/** A request: the node asked, and the task with its scope. */
const Request = Schema.fromJsonString(Schema.Struct({
  node: Schema.String,
  taskId: Schema.String,
  owner: Schema.String,
  tenant: Schema.String
}))
const decodeRequest = Schema.decodeUnknownResult(Request)
const encodeRequest = Schema.encodeSync(Request)

export const make = (
  pg: PgClient
): Effect.Effect<Service, SqlError, SqlClient.SqlClient | SqlNode> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const node = (yield* SqlNode).id
    const channel = yield* PgChannel.name("a2a_cancel")

    const request: Service["request"] = (taskId, { owner, tenant }) =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ node_id: string | null; state: string }>`
          SELECT node_id, state FROM a2a_tasks WHERE id = ${taskId} AND owner = ${owner} AND tenant = ${tenant}`
        const runner = row?.node_id
        if (row === undefined || runner == null || runner === node || !IN_FLIGHT.includes(row.state)) return false
        if (yield* Effect.provideService(SqlTaskRecovery.isGone(runner), SqlClient.SqlClient, sql)) return false
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
        const consume = (requests: Queue.Dequeue<Notification, SqlError>): Effect.Effect<never, SqlError> =>
          Effect.forever(Effect.flatMap(Queue.take(requests), (n) => answer(n.payload)))
        const again = Effect.scoped(Effect.flatMap(pg.listen(channel), consume)).pipe(
          Effect.tapError((error) => Effect.logWarning("Cancel channel to the other nodes failed; retrying", error)),
          Effect.retry(Schedule.spaced("1 second")),
          Effect.forever
        )
        // Listening before the runner is handed out; then, should the connection drop, again.
        const first = yield* pg.listen(channel).pipe(
          Effect.tapError((error) => Effect.logWarning("Cannot listen for other nodes' cancel requests", error)),
          Effect.option
        )
        const initial: Effect.Effect<void> = Option.isSome(first)
          ? Effect.catch(consume(first.value), (error) => Effect.logWarning("Lost the cancel channel", error))
          : Effect.void
        yield* Effect.forkIn(Effect.andThen(initial, again), scope)
      })

    return { request, serve }
  })

/** RemoteCancel over the `PgClient` service `tag` of `@effect/sql-pg`. */
export const layer = (
  tag: Context.Service<PgClient, PgClient>
) => Layer.effect(RemoteCancel, Effect.flatMap(tag, make))
