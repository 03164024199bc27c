/**
 * The NOTIFY channels the nodes of one deployment share. PostgreSQL channels are database-wide while our tables
 * live in a schema, so each channel name carries a digest of the schema: deployments (and test runs) in other
 * schemas of the same database never hear each other.
 *
 * @since 0.1.0
 */
import type { PgClient } from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { createHash } from "node:crypto"

/**
 * `base` suffixed with a digest of the current schema: a valid channel identifier under 63 bytes.
 *
 * @since 0.1.0
 * @category utils
 */
export const name = (base: string): Effect.Effect<string, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ schema: string | null }>`SELECT current_schema() AS schema`
    const digest = createHash("sha256").update(row?.schema ?? "").digest("hex").slice(0, 16)
    return `${base}_${digest}`
  })

/**
 * LISTENs on `channel` and hands every payload to `receive` (one at a time, in order) for as long as the scope
 * lasts. Listening has begun when this effect completes, so nothing sent afterwards is missed. A lost connection
 * is logged, told to `lost` (what is sent until the next LISTEN is missed: never replayed), and listened to again,
 * every second until it works; `listening` runs once it does. When the first LISTEN fails, `firstFailure` decides:
 * "fail" fails this effect, "retry" logs it and keeps trying.
 *
 * @since 0.1.0
 * @category constructors
 */
export const follow = (
  pg: PgClient,
  channel: string,
  receive: (payload: string) => Effect.Effect<void>,
  options: {
    readonly what: string
    readonly firstFailure: "fail" | "retry"
    readonly lost?: Effect.Effect<void> | undefined
    readonly listening?: Effect.Effect<void> | undefined
  }
): Effect.Effect<void, SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const lost = options.lost ?? Effect.void
    const consume = (notifications: Queue.Dequeue<{ readonly payload: string }, SqlError>) =>
      Effect.forever(Effect.flatMap(Queue.take(notifications), (n) => receive(n.payload)))
    const resumed = (notifications: Queue.Dequeue<{ readonly payload: string }, SqlError>) =>
      Effect.andThen(options.listening ?? Effect.void, consume(notifications))
    const again = Effect.scoped(Effect.flatMap(pg.listen(channel), resumed)).pipe(
      Effect.tapError((error) => Effect.andThen(Effect.logWarning(`${options.what} failed; retrying`, error), lost)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forever
    )
    const listened = pg.listen(channel)
    const first = options.firstFailure === "fail"
      ? yield* Effect.asSome(listened)
      : yield* listened.pipe(
        Effect.tapError((error) => Effect.logWarning(`Cannot listen: ${options.what}`, error)),
        Effect.option
      )
    const initial: Effect.Effect<void> = first._tag === "Some"
      ? Effect.catch(
        consume(first.value),
        (error) => Effect.andThen(Effect.logWarning(`Lost ${options.what}; listening again`, error), lost)
      )
      : lost
    yield* Effect.forkScoped(Effect.andThen(initial, again))
  })
