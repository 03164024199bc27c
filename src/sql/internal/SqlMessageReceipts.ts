/**
 * MessageReceipts over `effect/sql` (SQLite or PostgreSQL): a row of `a2a_message_receipts` per caller and
 * messageId. A claim is one INSERT on the primary key (owner, tenant, message_id) that takes over only a row older
 * than the window, so of two sends of one message, on any nodes sharing the database, exactly one inserts. Rows past
 * the window are deleted every `min(window, 1 minute)` by each node.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as v1 from "../../protocol/generated/v1.ts"
import { DEFAULT_WINDOW, MessageReceipts, type Receipt } from "../../server/MessageReceipts.ts"
import * as Observability from "../../server/Observability.ts"
import { TaskStoreError } from "../../server/TaskStore.ts"
import { storeError } from "./SqlFailure.ts"

const decodeMessage = Schema.decodeUnknownEffect(Schema.fromJsonString(v1.Message))

interface Row {
  readonly fingerprint: string
  readonly task_id: string
  readonly reply: string | null
  readonly accepted_at: number | string
}

/** How often expired receipts are deleted, at most. */
const PRUNE_INTERVAL = Duration.minutes(1)

/**
 * The MessageReceipts over the SqlClient in context, kept for `window` (default 24 hours).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: { readonly window?: Duration.Input | undefined } = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const traced = yield* Observability.spanMaker
    const window = Duration.fromInputUnsafe(options.window ?? DEFAULT_WINDOW)
    const windowMs = Duration.toMillis(window)

    const toReceipt = (row: Row): Effect.Effect<Receipt, Schema.SchemaError> =>
      Effect.map(
        row.reply === null ? Effect.succeedNone : Effect.asSome(decodeMessage(row.reply)),
        (reply) => ({ fingerprint: row.fingerprint, taskId: row.task_id, reply, acceptedAt: Number(row.accepted_at) })
      )

    const read = (owner: string, tenant: string, messageId: string, now: number) =>
      sql<Row>`SELECT fingerprint, task_id, reply, accepted_at FROM a2a_message_receipts
        WHERE owner = ${owner} AND tenant = ${tenant} AND message_id = ${messageId}
          AND accepted_at > ${now - windowMs}`.pipe(
        Effect.flatMap(([row]) => row === undefined ? Effect.succeedNone : Effect.asSome(toReceipt(row)))
      )

    // Effect.fnUntraced: its generator function is made once, not per send.
    const claim: MessageReceipts["Service"]["claim"] = Effect.fnUntraced(
      function*({ messageId, owner, tenant }, fingerprint, taskId) {
        if (windowMs <= 0) return Option.none()
        // Twice at most: the row seen taken may be given back (or expire) before it is read.
        for (let attempt = 0; attempt < 2; attempt++) {
          const now = yield* Clock.currentTimeMillis
          const inserted = yield* sql<{ message_id: string }>`
            INSERT INTO a2a_message_receipts (owner, tenant, message_id, fingerprint, task_id, reply, accepted_at)
            VALUES (${owner}, ${tenant}, ${messageId}, ${fingerprint}, ${taskId}, NULL, ${now})
            ON CONFLICT (owner, tenant, message_id) DO UPDATE SET
              fingerprint = excluded.fingerprint,
              task_id = excluded.task_id,
              reply = NULL,
              accepted_at = excluded.accepted_at
            WHERE a2a_message_receipts.accepted_at <= ${now - windowMs}
            RETURNING message_id`
          if (inserted.length > 0) return Option.none()
          const existing = yield* read(owner, tenant, messageId, now)
          if (Option.isSome(existing)) return existing
        }
        return yield* new TaskStoreError({ message: `Cannot claim message ${messageId}: its receipt keeps changing` })
      },
      (effect, { messageId }) =>
        effect.pipe(
          Effect.catchTags({
            SqlError: storeError(`Cannot claim message ${messageId}`),
            SchemaError: storeError(`Cannot read the receipt of message ${messageId}`)
          }),
          traced("SqlMessageReceipts.claim")
        )
    )

    const get: MessageReceipts["Service"]["get"] = ({ messageId, owner, tenant }) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => read(owner, tenant, messageId, now)).pipe(
        Effect.catchTags({
          SqlError: storeError(`Cannot read the receipt of message ${messageId}`),
          SchemaError: storeError(`Cannot read the receipt of message ${messageId}`)
        }),
        traced("SqlMessageReceipts.get")
      )

    // The reply is written as the send answers it, with JSON.stringify: a protocol message's wire form is the value
    // itself (the protocol's schemas encode every field as it is), so walking its Schema on every direct reply
    // would only write the same text at a cost; a retry still decodes it with the Schema.
    const reply: MessageReceipts["Service"]["reply"] = ({ messageId, owner, tenant }, message) =>
      sql`UPDATE a2a_message_receipts SET reply = ${JSON.stringify(message)}
        WHERE owner = ${owner} AND tenant = ${tenant} AND message_id = ${messageId}`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError(`Cannot record the reply to message ${messageId}`)),
        traced("SqlMessageReceipts.reply")
      )

    const release: MessageReceipts["Service"]["release"] = ({ messageId, owner, tenant }, taskId) =>
      sql`DELETE FROM a2a_message_receipts
        WHERE owner = ${owner} AND tenant = ${tenant} AND message_id = ${messageId} AND task_id = ${taskId}
          AND reply IS NULL`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError(`Cannot give back the claim of message ${messageId}`)),
        traced("SqlMessageReceipts.release")
      )

    if (windowMs > 0) {
      const prune = Effect.flatMap(Clock.currentTimeMillis, (now) =>
        sql`DELETE FROM a2a_message_receipts WHERE accepted_at <= ${now - windowMs}`).pipe(
          Effect.catch((error) =>
            Effect.logWarning("Cannot delete expired message receipts", error)
          )
        )
      const every = Duration.min(window, PRUNE_INTERVAL)
      yield* prune.pipe(Effect.repeat(Schedule.spaced(every)), Effect.forkScoped)
    }

    return MessageReceipts.of({ window, claim, get, reply, release })
  })

/**
 * The receipts over the SqlClient in context (migrations must have run: see SqlStore).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: { readonly window?: Duration.Input | undefined } = {}) =>
  Layer.effect(MessageReceipts, make(options))
