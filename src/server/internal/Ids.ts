/**
 * Identifiers the server generates. Task ids are UUIDv7 (RFC 9562): time-ordered and monotonic within this
 * process, so tasks whose status timestamps tie still list newest first, and SQL indexes stay compact.
 *
 * Randomness comes from the global `crypto.getRandomValues` (every runtime has it), drawn 4 KiB at a time into a
 * pool that each id takes 16 bytes of: one call per 256 ids instead of a trip into the system's generator each
 * time, and ids are made on every SendMessage (crypto.randomUUID pools its bytes the same way on Node).
 *
 * An id is written as character codes into a scratch array and made a string in one `String.fromCharCode`, which
 * gives one flat string. crypto.randomUUID adds its result up piece by piece (Node), which V8 keeps as a tree of
 * concatenations, as it does a template literal: a stored task keeps its ids, so it kept the trees, several times
 * the size of a flat string and the larger part of a stored task, copied by every scavenge it survives and
 * promoted. Made this way an id also costs less CPU.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

const POOL_BYTES = 4096
const pool = new Uint8Array(POOL_BYTES)
let taken = POOL_BYTES

/** The offset of 16 fresh random bytes in `pool`. */
const random16 = (): number => {
  if (taken === POOL_BYTES) {
    crypto.getRandomValues(pool)
    taken = 0
  }
  const at = taken
  taken += 16
  return at
}

const HEX = Array.from("0123456789abcdef", (c) => c.charCodeAt(0))
const DASH = "-".charCodeAt(0)
/** Where the two hex digits of each of a UUID's 16 bytes go in its 36 characters. */
const SLOTS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]
/** The characters of the id being made (the dashes stay). */
const codes: Array<number> = Array.from({ length: 36 }, () => DASH)

const writeByte = (index: number, byte: number) => {
  const slot = SLOTS[index]!
  codes[slot] = HEX[byte >> 4]!
  codes[slot + 1] = HEX[byte & 15]!
}

const written = (): string => String.fromCharCode.apply(null, codes)

/**
 * Bytes 8-15 from the pool at `at`, with the RFC 9562 variant (10) in byte 8: the last 62 bits are random, as
 * both UUIDv4 and UUIDv7 (rand_b) have them.
 */
const writeTail = (at: number) => {
  writeByte(8, (pool[at + 8]! & 0x3f) | 0x80)
  for (let i = 9; i < 16; i++) writeByte(i, pool[at + i]!)
}

let lastMs = -1
let counter = 0

/**
 * A UUIDv7 for the given time; within one millisecond a 12-bit counter keeps ids increasing.
 *
 * @since 0.1.0
 * @category utils
 */
export const uuidv7At = (ms: number): string => {
  const at = random16()
  if (ms > lastMs) {
    lastMs = ms
    counter = ((pool[at]! << 8) | pool[at + 1]!) & 0x3ff // random start, with headroom before the counter overflows
  } else {
    counter++
    if (counter > 0xfff) {
      // Counter exhausted: borrow the next millisecond, as RFC 9562 (6.2, method 1) allows.
      lastMs++
      counter = 0
    }
  }
  // unix_ts_ms, 48 bits: the high 32 and the low 16.
  const high = Math.floor(lastMs / 0x10000)
  const low = lastMs % 0x10000
  writeByte(0, (high >>> 24) & 0xff)
  writeByte(1, (high >>> 16) & 0xff)
  writeByte(2, (high >>> 8) & 0xff)
  writeByte(3, high & 0xff)
  writeByte(4, low >>> 8)
  writeByte(5, low & 0xff)
  writeByte(6, 0x70 | (counter >> 8))
  writeByte(7, counter & 0xff)
  writeTail(at)
  return written()
}

/** A random UUIDv4 (RFC 9562): 122 random bits, version 4, variant 10. */
const uuidv4 = (): string => {
  const at = random16()
  for (let i = 0; i < 6; i++) writeByte(i, pool[at + i]!)
  writeByte(6, (pool[at + 6]! & 0x0f) | 0x40)
  writeByte(7, pool[at + 7]!)
  writeTail(at)
  return written()
}

/**
 * A new task id (UUIDv7 at the current Clock time).
 *
 * @since 0.1.0
 * @category utils
 */
export const taskId: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, uuidv7At)

/**
 * A random id (UUIDv4) for contexts, messages, artifacts and push configs.
 *
 * @since 0.1.0
 * @category utils
 */
export const randomId: Effect.Effect<string> = Effect.sync(uuidv4)

// Formatting a date is comparatively slow, and a busy server stamps many events within one millisecond.
let isoMs = Number.NaN
let isoText = ""

/**
 * `ms` as an ISO 8601 UTC timestamp with millisecond precision (spec 5.6.1).
 *
 * @since 0.1.0
 * @category guards
 */
export const isoAt = (ms: number): string => {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString()
    isoMs = ms
  }
  return isoText
}

/**
 * The current Clock time as an ISO 8601 UTC timestamp with millisecond precision (spec 5.6.1).
 *
 * @since 0.1.0
 * @category utils
 */
export const now: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, isoAt)
