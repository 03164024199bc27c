/**
 * PushOutbox over `effect/sql` (SQLite or PostgreSQL): each delivery is a row of `a2a_push_outbox`, written by
 * the node that will make it and deleted once it is made or given up. Rows of processes that are gone are taken
 * over by a live one (an UPDATE that moves them to it, so two nodes never take the same row) and made in the
 * order they were written: on SQLite, at start, every row of an earlier process; on PostgreSQL, those of nodes
 * that are gone (see SqlLiveness), at start and then every recovery interval.
 *
 * Writing down never stands in the way of a delivery: a failure to write is logged and the delivery is made from
 * memory, as without an outbox.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import { type Pending, PushOutbox, type Service } from "../../server/PushOutbox.ts"
import { SqlLiveness } from "./SqlLiveness.ts"
import { SqlNode } from "./SqlNode.ts"

interface Row {
  readonly id: number | string
  readonly task_id: string
  readonly config_id: string
  readonly body: string
  readonly content_type: string
  readonly kind: string
}

const toPending = (row: Row): Pending => ({
  id: String(row.id),
  taskId: row.task_id,
  configId: row.config_id,
  body: row.body,
  contentType: row.content_type,
  kind: row.kind
})

/**
 * The PushOutbox over the SqlClient in context; on PostgreSQL, the rows of nodes that are gone are taken over
 * every `interval` (default 1 minute).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: { readonly interval?: Duration.Input | undefined } = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const node = (yield* SqlNode).id
    const liveness = yield* SqlLiveness
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const orphans = yield* Queue.unbounded<Pending>()

    const add: Service["add"] = (delivery) =>
      Effect.flatMap(Effect.clockWith((clock) => Effect.succeed(clock.currentTimeMillisUnsafe())), (now) =>
        sql<{ id: number | string }>`INSERT INTO a2a_push_outbox
          (task_id, config_id, body, content_type, kind, node_id, created_at)
          VALUES (${delivery.taskId}, ${delivery.configId}, ${delivery.body}, ${delivery.contentType},
            ${delivery.kind}, ${node}, ${now})
          RETURNING id`).pipe(
          Effect.map(([row]) =>
            row === undefined ? undefined : String(row.id)
          ),
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning("Push: cannot write a delivery down; it is kept in memory only", error),
              undefined
            )
          )
        )

    const done: Service["done"] = (id) =>
      sql`DELETE FROM a2a_push_outbox WHERE id = ${Number(id)}`.pipe(
        Effect.catch((error) => Effect.logWarning(`Push: cannot forget delivery ${id}; it may be made again`, error)),
        Effect.asVoid
      )

    /** Takes over the rows of processes that are gone; they go to `orphans`, oldest first. */
    const takeOver = Effect.gen(function*() {
      const owners = yield* sql<{ node_id: string }>`SELECT DISTINCT node_id FROM a2a_push_outbox
        WHERE node_id <> ${node}`
      for (const { node_id } of owners) {
        // SQLite serves one process per file: every other process is gone.
        if (isPg && !(yield* liveness.isGone(node_id))) continue
        const rows = yield* sql<Row>`UPDATE a2a_push_outbox SET node_id = ${node} WHERE node_id = ${node_id}
          RETURNING id, task_id, config_id, body, content_type, kind`
        const taken = [...rows].sort((a, b) => Number(a.id) - Number(b.id)).map(toPending)
        if (taken.length > 0) {
          yield* Effect.logInfo(`Push: ${taken.length} delivery(ies) of a stopped server taken over`)
          Queue.offerAllUnsafe(orphans, taken)
        }
      }
    }).pipe(Effect.catch((error) => Effect.logWarning("Push: cannot take over pending deliveries", error)))

    yield* takeOver
    if (isPg) {
      const interval = options.interval ?? Duration.minutes(1)
      yield* takeOver.pipe(Effect.repeat(Schedule.spaced(interval)), Effect.delay(interval), Effect.forkScoped)
    }
    return { add, done, orphans: Stream.fromQueue(orphans) } satisfies Service
  })

/**
 * The outbox over the SqlClient in context (migrations must have run: see SqlStore).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: { readonly interval?: Duration.Input | undefined } = {}
) => Layer.effect(PushOutbox, make(options))
