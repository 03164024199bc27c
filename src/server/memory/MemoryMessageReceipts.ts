/**
 * In-memory MessageReceipts: a map of receipts, per process (a restart forgets them; use the SQL stores to keep
 * them). Bounded: a receipt is forgotten once the window has passed since it was accepted, and beyond
 * `maxReceipts` the oldest are forgotten first (a send of such a message then runs again).
 *
 * @example
 * ```ts
 * import { MemoryMessageReceipts } from "effect-a2a/server"
 *
 * const receipts = MemoryMessageReceipts.layerWith({ window: "10 minutes", maxReceipts: 50_000 })
 * ```
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { DEFAULT_WINDOW, MessageReceipts, type Receipt, type ReceiptKey, windowConfig } from "../MessageReceipts.ts"

export interface Options {
  /** How long a receipt is kept. Default `MessageReceipts.DEFAULT_WINDOW` (24 hours); zero keeps none. */
  readonly window?: Duration.Input | undefined
  /**
   * Receipts kept, at most: the oldest are forgotten first. Default 10,000 (as many as the memory task store keeps
   * ended tasks).
   */
  readonly maxReceipts?: number | undefined
}

export const DEFAULT_MAX_RECEIPTS = 10_000

interface Entry {
  readonly key: string
  receipt: Receipt
}

const keyOf = ({ messageId, owner, tenant }: ReceiptKey): string => `${owner}\u0000${tenant}\u0000${messageId}`

export const makeWith = (options: Options = {}): Effect.Effect<MessageReceipts["Service"]> =>
  Effect.sync(() => {
    const window = Duration.fromInputUnsafe(options.window ?? DEFAULT_WINDOW)
    const windowMs = Duration.toMillis(window)
    const max = Math.max(1, Math.floor(options.maxReceipts ?? DEFAULT_MAX_RECEIPTS))
    // Each operation is one synchronous step, so plain structures are safe: fibers never see a half-done update.
    const entries = new Map<string, Entry>()
    // The entries in the order they were accepted, read from `head` (as MemoryTaskStore's ended tasks, and for the
    // same reason: the oldest of a Map is slow to find once many were deleted). An entry taken over or given back
    // stays here until its turn, then is skipped.
    const order: Array<Entry> = []
    let head = 0

    const forget = (now: number) => {
      while (head < order.length) {
        const oldest = order[head]!
        const current = entries.get(oldest.key) === oldest
        if (current && entries.size <= max && now - oldest.receipt.acceptedAt < windowMs) break
        head++
        if (current) entries.delete(oldest.key)
      }
      if (head > 1024 && head * 2 > order.length) {
        order.splice(0, head)
        head = 0
      }
    }

    const live = (key: string, now: number): Entry | undefined => {
      const entry = entries.get(key)
      return entry !== undefined && now - entry.receipt.acceptedAt < windowMs ? entry : undefined
    }

    // clockWith calls back when the effect runs, so `f` runs then, in one step.
    const withNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
      Effect.clockWith((clock) => Effect.succeed(f(clock.currentTimeMillisUnsafe())))

    return MessageReceipts.of({
      window,
      claim: (key, fingerprint, taskId) =>
        withNow((now) => {
          if (windowMs <= 0) return Option.none()
          const k = keyOf(key)
          const existing = live(k, now)
          if (existing !== undefined) return Option.some(existing.receipt)
          const entry: Entry = { key: k, receipt: { fingerprint, taskId, reply: Option.none(), acceptedAt: now } }
          entries.set(k, entry)
          order.push(entry)
          forget(now)
          return Option.none()
        }),
      get: (key) => withNow((now) => Option.map(Option.fromUndefinedOr(live(keyOf(key), now)), (e) => e.receipt)),
      reply: (key, message) =>
        Effect.sync(() => {
          const entry = entries.get(keyOf(key))
          if (entry !== undefined) entry.receipt = { ...entry.receipt, reply: Option.some(message) }
        }),
      release: (key, taskId) =>
        Effect.sync(() => {
          const k = keyOf(key)
          if (entries.get(k)?.receipt.taskId === taskId) entries.delete(k)
        })
    })
  })

export const make: Effect.Effect<MessageReceipts["Service"]> = makeWith()

/** Receipts with the default bounds (see `Options`). */
export const layer: Layer.Layer<MessageReceipts> = Layer.effect(MessageReceipts, make)

export const layerWith = (options: Options): Layer.Layer<MessageReceipts> =>
  Layer.effect(MessageReceipts, makeWith(options))

/** The window from configuration: `A2A_IDEMPOTENCY_WINDOW` (see `MessageReceipts.windowConfig`). */
export const layerConfig: Layer.Layer<MessageReceipts, Config.ConfigError> = Layer.unwrap(
  Effect.map(windowConfig, (window) => layerWith({ window }))
)
