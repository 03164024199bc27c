/**
 * Receipts of the messages a server has accepted, so that a client may send a message again (after a timeout, a
 * dropped connection) without its work being done twice. A receipt is kept per caller (owner principal and
 * tenant, spec 13.1) and `messageId`, for the idempotency window, and holds what the first send's outcome is
 * found by: the task it created or continued, or the message the agent answered with instead of a task.
 *
 * A send first claims its messageId: the claim is atomic (a SQL store's unique key), so of two sends of one
 * message, on one node or two, exactly one runs the agent; the other is answered with that send's outcome (see
 * RequestHandler). A send that was not accepted (refused, or whose agent failed before any task existed) gives its
 * claim back, and a later send of the message runs anew; when the storage cannot be reached to take it back (the
 * send was refused UNAVAILABLE because the database is gone), the RequestHandler gives it back once it answers.
 *
 * The SQL stores keep receipts in the database (`effect-a2a/sql`), so they hold across restarts and nodes; the
 * memory one is per process. Without a MessageReceipts service in context the RequestHandler keeps them in memory,
 * with the default window.
 *
 * @example
 * ```ts
 * import { MemoryMessageReceipts } from "effect-a2a/server"
 *
 * // retries of a message are answered with its first outcome for one hour
 * const receipts = MemoryMessageReceipts.layerWith({ window: "1 hour" })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Hex from "effect/encoding/Hex"
import type * as Option from "effect/Option"
import { InvalidParams } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as Sha256 from "./internal/Sha256.ts"
import type { TaskScope, TaskStoreError } from "./TaskStore.ts"

/**
 * Whose message it is: the caller's scope and the message's id.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReceiptKey extends TaskScope {
  readonly messageId: string
}

/**
 * A receipt key as one string, unambiguous whatever its parts hold: what keys a message's sends in memory and the
 * cluster engine's Turn of that message.
 *
 * @since 0.1.0
 * @category utils
 */
export const receiptKeyString = (key: ReceiptKey): string => JSON.stringify([key.owner, key.tenant, key.messageId])

/**
 * What a send of a message was accepted as.
 *
 * @since 0.1.0
 * @category models
 */
export interface Receipt {
  /** The message body's fingerprint (see `fingerprint`): a retry must carry the same body. */
  readonly fingerprint: string
  /** The task the send created or continued (not yet stored while the first send's agent starts). */
  readonly taskId: string
  /** The agent's direct reply, when it answered with a message and made no task. */
  readonly reply: Option.Option<v1.Message>
  /** When the send was accepted, epoch ms: the receipt is kept for the window from then. */
  readonly acceptedAt: number
}

/**
 * Where the receipts of accepted messages are kept (see the module doc).
 *
 * @since 0.1.0
 * @category services
 */
export class MessageReceipts extends Context.Service<MessageReceipts, {
  /** How long a receipt is kept; zero keeps none (every send runs). */
  readonly window: Duration.Duration
  /**
   * Claims `key` for a send that will work on `taskId`: None when this call made the receipt (the caller runs the
   * agent), or the live receipt another send made (the caller answers with its outcome). Atomic: of two claims of
   * one key, one gets None. A receipt older than the window is taken over as if there were none.
   */
  readonly claim: (
    key: ReceiptKey,
    fingerprint: string,
    taskId: string
  ) => Effect.Effect<Option.Option<Receipt>, TaskStoreError>
  /** The live receipt of `key`, if any. */
  readonly get: (key: ReceiptKey) => Effect.Effect<Option.Option<Receipt>, TaskStoreError>
  /** Records the agent's direct reply in the receipt of `key`. */
  readonly reply: (key: ReceiptKey, message: v1.Message) => Effect.Effect<void, TaskStoreError>
  /** Gives back the claim of `key` for `taskId` (the send was not accepted); another claim is left alone. */
  readonly release: (key: ReceiptKey, taskId: string) => Effect.Effect<void, TaskStoreError>
}>()("effect-a2a/server/MessageReceipts") {}

/**
 * How long receipts are kept by default: a day.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_WINDOW = Duration.hours(24)

/**
 * `A2A_IDEMPOTENCY_WINDOW` (e.g. "24 hours"; "0 millis" keeps none), default `DEFAULT_WINDOW`.
 *
 * @since 0.1.0
 * @category config
 */
export const windowConfig: Config.Config<Duration.Duration> = Config.Duration("A2A_IDEMPOTENCY_WINDOW").pipe(
  Config.withDefault(DEFAULT_WINDOW)
)

/**
 * The answer to a message whose messageId was already accepted with another body.
 *
 * @since 0.1.0
 * @category utils
 */
export const differentBody = (messageId: string): InvalidParams =>
  new InvalidParams({
    message: `Message ${messageId} was already sent with a different body: a retry must send the same message, ` +
      `and a new message needs a new messageId`,
    fieldViolations: [{
      field: "message.messageId",
      description: "Already used by another message; send the same message again, or give this one a new messageId"
    }]
  })

/**
 * The fingerprint of a message body: its canonical JSON (keys sorted; what the protocol reads as unset left out:
 * absent fields, empty strings, lists and maps), so one message sent over JSON-RPC, REST or gRPC, or with its
 * fields in another order, has one fingerprint. A short body is its own fingerprint (exact, and no digest to make
 * on every send: a SHA-256 costs more than the rest of the receipt); a longer one is the SHA-256 of it, in hex
 * (never mistaken for a body, which starts with `{`).
 *
 * @since 0.1.0
 * @category utils
 */
export const fingerprint = (message: v1.Message): string => {
  const body = canonical(message) ?? "{}"
  return body.length <= MAX_LITERAL_FINGERPRINT ? body : Hex.encode(Sha256.digest(body))
}

/** The longest body kept as its own fingerprint. */
const MAX_LITERAL_FINGERPRINT = 256

// Built by concatenation, not arrays joined, and an object's keys walked in order without a sorted copy of them: it
// runs on every SendMessage.
const canonical = (value: unknown): string | undefined => {
  if (value === undefined || value === null || value === "") return undefined
  if (typeof value !== "object") return JSON.stringify(value)
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined
    // An unset element keeps its place: [a, null] is not [a].
    let items = canonical(value[0]) ?? "null"
    for (let i = 1; i < value.length; i++) items += "," + (canonical(value[i]) ?? "null")
    return `[${items}]`
  }
  const object = value as Record<string, unknown>
  let count = 0
  for (const key in object) if (Object.hasOwn(object, key)) count++
  if (count > MAX_KEYS_UNSORTED) return fieldsOf(object, Object.keys(object).sort())
  // The next key in order is the smallest one above the last written: a scan per key, with no array made (a
  // message's objects have a handful of keys; `<` on strings orders them as `sort` does).
  let fields: string | undefined
  let last: string | undefined
  for (let i = 0; i < count; i++) {
    let next: string | undefined
    for (const key in object) {
      if ((last === undefined || key > last) && (next === undefined || key < next) && Object.hasOwn(object, key)) {
        next = key
      }
    }
    last = next as string
    fields = withField(fields, last, object[last])
  }
  return fields === undefined ? undefined : `{${fields}}`
}

/** Above this many keys an object's keys are sorted (a scan per key grows with their square). */
const MAX_KEYS_UNSORTED = 16

const fieldsOf = (object: Record<string, unknown>, keys: ReadonlyArray<string>): string | undefined => {
  let fields: string | undefined
  for (const key of keys) fields = withField(fields, key, object[key])
  return fields === undefined ? undefined : `{${fields}}`
}

const withField = (fields: string | undefined, key: string, value: unknown): string | undefined => {
  const field = canonical(value)
  if (field === undefined) return fields
  const entry = JSON.stringify(key) + ":" + field
  return fields === undefined ? entry : fields + "," + entry
}
