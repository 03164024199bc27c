/** The in-memory conversations are bounded by their time to live: a write removes the entries that expired. */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as Persistence from "effect/persistence/Persistence"
import { TestClock } from "effect/testing"
import * as MemoryBacking from "../../src/ai/internal/MemoryBacking.ts"

describe("MemoryBacking", () => {
  it.effect("a write removes the entries whose time to live has passed, and only those", () =>
    Effect.gen(function*() {
      const removed: Array<string> = []
      const inner = yield* Effect.scoped(
        Effect.flatMap(Effect.service(Persistence.BackingPersistence), (backing) => backing.make("s"))
      ).pipe(Effect.provide(Persistence.layerBackingMemory))
      const store = MemoryBacking.sweeping({
        ...inner,
        remove: (key) => Effect.andThen(Effect.sync(() => removed.push(key)), inner.remove(key))
      })
      const ttl = Duration.minutes(10)
      yield* store.set("a", { n: 1 }, ttl)
      yield* TestClock.adjust(Duration.minutes(5))
      yield* store.set("b", { n: 2 }, ttl)
      yield* store.set("forever", { n: 3 }, undefined)
      yield* TestClock.adjust(Duration.minutes(6))
      // "a" expired a minute ago; "b" has four minutes left
      yield* store.set("c", { n: 4 }, ttl)
      assert.deepStrictEqual(removed, ["a"])
      // "a" written again is tracked anew, not removed with its old time
      yield* store.set("a", { n: 5 }, ttl)
      yield* TestClock.adjust(Duration.minutes(5))
      yield* store.set("d", { n: 6 }, ttl)
      assert.deepStrictEqual(removed, ["a", "b"])
      assert.deepStrictEqual(yield* store.get("forever"), { n: 3 })
      assert.deepStrictEqual(yield* store.get("a"), { n: 5 })
    }))
})
