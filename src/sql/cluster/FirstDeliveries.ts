/**
 * Which deliveries of the engine's requests are certainly their first ever, so that TurnEntity can start a new
 * task's turn without reading its task first (the read tells a Turn delivered again, after its node was lost, from a
 * first one; a first delivery of a new task whose send saved nothing finds nothing there).
 *
 * PostgreSQL counts them: `cluster_messages.deliveries` is raised by a trigger every time a read of the engine's
 * storage claims a row (sets its `last_read`), whichever node, and whichever version of this library, reads it
 * (Effect's own read as well as the one here); the resets (a shard taken, a request let go) clear `last_read` and
 * do not count. Rows stored before the column existed hold NULL: never known first. The storage's read that hands
 * requests to the runner (`unprocessedMessages`) is, here, one statement that also returns the count as it was
 * before the read: 0 says that no read ever claimed the request before this one, so no runner was ever given it.
 * Every request of such a read is recorded as known first or not (`take` then answers, once per delivery, and
 * forgets); every other way a request reaches an entity says "not known first": a read by addresses (Effect's, at
 * the runner's entity cap) and a read by ids (an entity resumed after its mailbox was full) forget what their
 * requests were known as, and an entity restarted after a defect is given its requests again from memory, after
 * their first `take`. So only a delivery whose read was the first claim of its row is ever answered "first".
 *
 * Used by ClusterSocket, which builds the engine's message storage, and TurnEntity, which asks.
 *
 * @since 0.2.0
 */
import { PersistenceError } from "effect/cluster/ClusterError"
import type * as Envelope from "effect/cluster/Envelope"
import type * as MessageStorage from "effect/cluster/MessageStorage"
import type * as Reply from "effect/cluster/Reply"
import * as ShardId from "effect/cluster/ShardId"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * The requests of the engine read from storage for the first time ever, by request id, until their delivery asks.
 *
 * @since 0.2.0
 * @category services
 */
export class FirstDeliveries extends Context.Service<FirstDeliveries, {
  /**
   * Whether the request `requestId` (a Snowflake's decimal digits), delivered now, was given to no runner before:
   * true only when this node's read of it was the first claim of its row. Asked once per delivery: the answer is
   * used up, and a delivery of the same request again answers false.
   */
  readonly take: (requestId: string) => boolean
  /** Records what a read of the storage found the request `requestId` to be: read for the first time, or not. */
  readonly mark: (requestId: string, first: boolean) => void
}>()("effect-a2a/sql/cluster/FirstDeliveries") {}

/** Requests read as first and not delivered yet (skipped by the read loop, taken elsewhere) kept at most. */
const KEPT = 10_000

/**
 * The records of one node, empty.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): FirstDeliveries["Service"] => {
  // In insertion order: the oldest is forgotten first (forgetting only ever costs a read).
  const known = new Set<string>()
  return FirstDeliveries.of({
    take: (requestId) => known.delete(requestId),
    mark: (requestId, first) => {
      known.delete(requestId)
      if (!first) return
      known.add(requestId)
      if (known.size > KEPT) {
        const oldest = known.values().next()
        if (oldest.done !== true) known.delete(oldest.value)
      }
    }
  })
}

/**
 * A node's FirstDeliveries, empty as it starts.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<FirstDeliveries> = Layer.sync(FirstDeliveries, make)

/**
 * The deliveries' count, made on PostgreSQL once (recorded in `a2a_cluster_migrations`, after Effect's own
 * migrations of the engine's tables): the column, NULL on the rows already stored and 0 on new ones, and the
 * trigger that raises it on every claim of a row. Elsewhere, nothing.
 *
 * @since 0.2.0
 * @category migrations
 */
export const migrate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      Migrator.make({})({
        table: "a2a_cluster_migrations",
        loader: Migrator.fromRecord({
          "0001_message_deliveries": Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            // Two statements: a default given with ADD COLUMN would be written into the rows already there too.
            yield* sql`ALTER TABLE cluster_messages ADD COLUMN deliveries INTEGER`
            yield* sql`ALTER TABLE cluster_messages ALTER COLUMN deliveries SET DEFAULT 0`
            yield* sql.unsafe(`CREATE FUNCTION a2a_cluster_message_claimed() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN
                NEW.deliveries := OLD.deliveries + 1;
                RETURN NEW;
              END
            $$`)
            yield* sql`CREATE TRIGGER a2a_cluster_message_claimed
              BEFORE UPDATE OF last_read ON cluster_messages
              FOR EACH ROW WHEN (NEW.last_read IS NOT NULL)
              EXECUTE FUNCTION a2a_cluster_message_claimed()`
          })
        })
      }),
    orElse: () => Effect.succeed([])
  })
})

/** A row of the read, as PostgreSQL returns it (ids as bigints: SafeIntegers). */
interface ClaimedRow {
  readonly id: bigint | string
  readonly shard_id: string
  readonly entity_type: string
  readonly entity_id: string
  readonly kind: number
  readonly tag: string | null
  readonly payload: string | null
  readonly headers: string | null
  readonly trace_id: string | null
  readonly span_id: string | null
  readonly sampled: boolean | null
  readonly request_id: bigint | string
  readonly reply_id: bigint | string | null
  readonly deliveries: number | null
  readonly chunk_id: bigint | string | null
  readonly chunk_payload: string | null
  readonly chunk_sequence: number | null
}

/** A row read as the engine's storage gives it. */
const messageOf = (row: ClaimedRow): {
  readonly envelope: Envelope.Encoded
  readonly lastSentReply: Option.Option<Reply.Encoded>
} => {
  const address = {
    shardId: ShardId.fromStringEncoded(row.shard_id),
    entityType: row.entity_type,
    entityId: row.entity_id
  }
  const kind = Number(row.kind)
  if (kind === 1) {
    return {
      envelope: {
        _tag: "AckChunk",
        id: String(row.id),
        requestId: String(row.request_id),
        replyId: String(row.reply_id),
        address
      },
      lastSentReply: Option.none()
    }
  }
  if (kind === 2) {
    return {
      envelope: { _tag: "Interrupt", id: String(row.id), requestId: String(row.request_id), address },
      lastSentReply: Option.none()
    }
  }
  const traced = row.trace_id !== null && row.trace_id.length > 0
    ? { traceId: row.trace_id, spanId: row.span_id ?? "", sampled: row.sampled === true }
    : {}
  return {
    envelope: {
      _tag: "Request",
      requestId: String(row.id),
      address,
      tag: row.tag ?? "",
      payload: JSON.parse(row.payload ?? "null"),
      headers: JSON.parse(row.headers ?? "{}"),
      ...traced
    },
    // The last chunk a streaming request sent (none of ours stream: the engine's own shape, all the same).
    lastSentReply: row.chunk_id === null ? Option.none() : Option.some({
      _tag: "Chunk",
      id: String(row.chunk_id),
      requestId: String(row.request_id),
      sequence: Number(row.chunk_sequence),
      values: JSON.parse(row.chunk_payload ?? "[]")
    })
  }
}

/**
 * Effect's encoded SQL message storage, but for its read of the runner's messages on PostgreSQL: the same claim
 * (the unprocessed messages of the given shards, unanswered, not claimed in the last ten minutes, due, in the
 * order they were stored, locked and marked read) in one statement that also returns each row's deliveries before
 * it, recorded in `firsts` (see the module). A read by addresses is Effect's, and so is a read by ids: the
 * requests they return are marked not first. Any other database: Effect's storage as it is.
 *
 * @since 0.2.0
 * @category constructors
 */
export const counting = (
  encoded: MessageStorage.Encoded,
  client: SqlClient.SqlClient,
  firsts: FirstDeliveries["Service"]
): MessageStorage.Encoded => {
  const mark = firsts.mark
  if (!client.onDialectOrElse({ pg: () => true, orElse: () => false })) return encoded
  const sql = client.withoutTransforms()
  const notFirst = <A extends { readonly envelope: Envelope.Encoded }>(messages: ReadonlyArray<A>) =>
    Effect.sync(() => {
      for (const { envelope } of messages) if (envelope._tag === "Request") mark(envelope.requestId, false)
    })
  const claim = (shardIds: ReadonlyArray<string>, now: number, limit: number | undefined) =>
    sql<ClaimedRow>`
      WITH claimed AS (
        UPDATE cluster_messages target SET last_read = NOW()
        FROM (
          SELECT m.* FROM cluster_messages m
          WHERE ${sql.in("m.shard_id", shardIds)}
          AND m.processed = FALSE
          AND (m.last_read IS NULL OR m.last_read < NOW() - INTERVAL '10 minutes')
          AND (m.deliver_at IS NULL OR m.deliver_at <= ${now})
          AND NOT EXISTS (
            SELECT 1 FROM cluster_replies r WHERE r.request_id = m.request_id AND (r.kind = 0 OR r.acked = FALSE)
          )
          ORDER BY m.rowid
          ${limit === undefined ? sql.literal("") : sql.literal(`LIMIT ${Math.floor(limit)}`)}
          FOR UPDATE
        ) AS before
        LEFT JOIN cluster_replies chunk ON chunk.id = before.last_reply_id
        WHERE target.id = before.id
        RETURNING before.*, chunk.id AS chunk_id, chunk.payload AS chunk_payload, chunk.sequence AS chunk_sequence
      )
      SELECT * FROM claimed ORDER BY rowid`
  return {
    ...encoded,
    unprocessedMessages: (shardIds, now, options) =>
      options?.addresses !== undefined
        ? Effect.tap(encoded.unprocessedMessages(shardIds, now, options), notFirst)
        : claim(shardIds, now, options?.limit).pipe(
          Effect.map((rows) =>
            rows.map((row) => {
              if (Number(row.kind) === 0) mark(String(row.id), row.deliveries !== null && Number(row.deliveries) === 0)
              return messageOf(row)
            })
          ),
          Effect.provideService(SqlClient.SafeIntegers, true),
          Effect.mapError((cause) => new PersistenceError({ cause })),
          // As Effect's storage runs its statements: no span each.
          Effect.withTracerEnabled(false)
        ),
    unprocessedMessagesById: (ids, now) => Effect.tap(encoded.unprocessedMessagesById(ids, now), notFirst)
  }
}
