/**
 * Identifiers the server generates. Task ids are UUIDv7 (RFC 9562): time-ordered and monotonic within this
 * process, so tasks whose status timestamps tie still list newest first, and SQL indexes stay compact.
 */
import { Clock, Effect } from "effect"
import { randomBytes, randomUUID } from "node:crypto"

let lastMs = -1
let counter = 0

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0")

/** A UUIDv7 for the given time; within one millisecond a 12-bit counter keeps ids increasing. */
export const uuidv7At = (ms: number): string => {
  if (ms > lastMs) {
    lastMs = ms
    counter = randomBytes(2).readUInt16BE(0) & 0x3ff // leave headroom before the counter overflows
  } else {
    counter++
    if (counter > 0xfff) {
      // Counter exhausted: borrow the next millisecond, as RFC 9562 (6.2, method 1) allows.
      lastMs++
      counter = 0
    }
  }
  const t = lastMs
  const rand = randomBytes(8)
  rand[0] = (rand[0]! & 0x3f) | 0x80 // variant 10
  const high = Math.floor(t / 0x10000)
  const low = t % 0x10000
  return `${hex(high, 8)}-${hex(low, 4)}-${hex(0x7000 | counter, 4)}-${rand.subarray(0, 2).toString("hex")}-${
    rand.subarray(2).toString("hex")
  }`
}

/** A new task id (UUIDv7 at the current Clock time). */
export const taskId: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, uuidv7At)

/** A random id (UUIDv4) for contexts, messages, artifacts and push configs. */
export const randomId: Effect.Effect<string> = Effect.sync(() => randomUUID())

/** The current Clock time as an ISO 8601 UTC timestamp with millisecond precision (spec 5.6.1). */
export const now: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
