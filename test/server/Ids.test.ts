/** Ids: UUIDv7 task ids (layout, time, monotonic order, counter overflow) and random ids. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Ids from "../../src/server/internal/Ids.ts"

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const timeOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
const counterOf = (id: string): number => parseInt(id.slice(15, 18), 16)

describe("Ids", () => {
  it("uuidv7At lays out version 7, the RFC 9562 variant and the millisecond time", () => {
    const ms = 1_750_000_000_123
    const id = Ids.uuidv7At(ms)
    assert.match(id, V7)
    assert.strictEqual(timeOf(id), ms)
  })

  it("ids of one millisecond strictly increase, and the random tails differ", () => {
    const ms = 1_760_000_000_000
    const ids = Array.from({ length: 1000 }, () => Ids.uuidv7At(ms))
    for (let i = 1; i < ids.length; i++) assert.isTrue(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`)
    assert.strictEqual(new Set(ids.map((id) => id.slice(19))).size, ids.length)
    for (const id of ids) assert.match(id, V7)
  })

  it("a later millisecond restarts the counter low, and an earlier clock reading never goes back", () => {
    const a = Ids.uuidv7At(1_770_000_000_000)
    const b = Ids.uuidv7At(1_770_000_000_001)
    assert.strictEqual(timeOf(b), 1_770_000_000_001)
    assert.isAtMost(counterOf(b), 0x3ff)
    const c = Ids.uuidv7At(1_769_000_000_000) // the clock stepped back
    assert.isTrue(a < b && b < c)
    assert.strictEqual(timeOf(c), 1_770_000_000_001)
  })

  it("an exhausted counter borrows the next millisecond", () => {
    const ms = 1_780_000_000_000
    const ids = Array.from({ length: 0x1000 + 1 }, () => Ids.uuidv7At(ms))
    const last = ids[ids.length - 1]!
    assert.strictEqual(timeOf(last), ms + 1)
    for (let i = 1; i < ids.length; i++) assert.isTrue(ids[i - 1]! < ids[i]!)
  })

  it("isoAt formats milliseconds as ISO 8601 UTC, also when the same millisecond comes again", () => {
    assert.strictEqual(Ids.isoAt(0), "1970-01-01T00:00:00.000Z")
    assert.strictEqual(Ids.isoAt(1_750_000_000_123), "2025-06-15T15:06:40.123Z")
    assert.strictEqual(Ids.isoAt(1_750_000_000_123), "2025-06-15T15:06:40.123Z")
    assert.strictEqual(Ids.isoAt(0), "1970-01-01T00:00:00.000Z")
  })

  it.effect("now follows the Clock", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Ids.now, "1970-01-01T00:00:00.000Z")
      yield* TestClock.adjust("1500 millis")
      assert.strictEqual(yield* Ids.now, "1970-01-01T00:00:01.500Z")
    }))

  it.effect("randomId takes fresh random bytes for every id, past the refills of its pool", () =>
    Effect.gen(function*() {
      const ids = yield* Effect.replicateEffect(Ids.randomId, 1000)
      for (const id of ids) assert.match(id, V4)
      assert.strictEqual(new Set(ids).size, ids.length)
      // Every hex digit shows up in every position the randomness fills.
      for (const position of [0, 7, 15, 20, 35]) {
        assert.strictEqual(new Set(ids.map((id) => id[position])).size, 16, `position ${position}`)
      }
    }))

  it.effect("taskId uses the Clock; randomId is a UUIDv4", () =>
    Effect.gen(function*() {
      assert.match(yield* Ids.taskId, V7)
      const r1 = yield* Ids.randomId
      const r2 = yield* Ids.randomId
      assert.match(r1, V4)
      assert.notStrictEqual(r1, r2)
    }))
})
