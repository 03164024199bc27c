/**
 * Identifiers the server generates. Task ids are UUIDv7 (RFC 9562): time-ordered and monotonic within this
 * process, so tasks whose status timestamps tie still list newest first, and SQL indexes stay compact.
 *
 * Randomness comes from the global `crypto.randomUUID` (every runtime has it; on Node it draws from a pooled buffer
 * of random bytes: one call per id instead of a trip into OpenSSL each time, and ids are made on every SendMessage).
 *
 * Every id is made a flat string before it is handed out (`flat`): Node builds `randomUUID`'s result by adding
 * its pieces one by one, and V8 keeps such a sum as a tree of concatenations (~20 nodes of 32 bytes for 36
 * characters), as it does the template literal of a UUIDv7. A stored task keeps its ids, so each kept that tree:
 * ~490 bytes per UUID instead of ~70 flat, over 1 KB of a stored task's ~1.8 KB, copied by every scavenge it
 * survives and promoted (BENCHMARKS.md, "The execution path").
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

let lastMs = -1
let counter = 0

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0")

/**
 * `id` as one flat string. `trim` is V8's cheapest way there: it flattens its receiver and, with nothing to trim
 * (an id has no spaces), answers the flat string itself. The characters are the same whatever the engine does.
 */
const flat = (id: string): string => id.trim()

/** A UUIDv7 for the given time; within one millisecond a 12-bit counter keeps ids increasing. */
export const uuidv7At = (ms: number): string => {
  // A v4 UUID is "xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx" with V already carrying the RFC 9562 variant (10):
  // its last 62 bits are random and laid out exactly as UUIDv7's rand_b.
  const random = crypto.randomUUID()
  if (ms > lastMs) {
    lastMs = ms
    counter = parseInt(random.slice(0, 3), 16) & 0x3ff // random start, with headroom before the counter overflows
  } else {
    counter++
    if (counter > 0xfff) {
      // Counter exhausted: borrow the next millisecond, as RFC 9562 (6.2, method 1) allows.
      lastMs++
      counter = 0
    }
  }
  const t = lastMs
  return flat(
    `${hex(Math.floor(t / 0x10000), 8)}-${hex(t % 0x10000, 4)}-${hex(0x7000 | counter, 4)}-${random.slice(19)}`
  )
}

/** A new task id (UUIDv7 at the current Clock time). */
export const taskId: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, uuidv7At)

/** A random id (UUIDv4) for contexts, messages, artifacts and push configs. */
export const randomId: Effect.Effect<string> = Effect.sync(() => flat(crypto.randomUUID()))

// Formatting a date is comparatively slow, and a busy server stamps many events within one millisecond.
let isoMs = Number.NaN
let isoText = ""

/** `ms` as an ISO 8601 UTC timestamp with millisecond precision (spec 5.6.1). */
export const isoAt = (ms: number): string => {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString()
    isoMs = ms
  }
  return isoText
}

/** The current Clock time as an ISO 8601 UTC timestamp with millisecond precision (spec 5.6.1). */
export const now: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, isoAt)
