/**
 * The front door's lookups from memory: a found registration is kept (the store read once), dropped on a change
 * announced by the store or made here, read again after its time to live; a name not found is asked again each time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, PubSub, Stream } from "effect"
import * as TestClock from "effect/testing/TestClock"
import type { StoredAgent } from "../../../src/gateway/GatewayStore.ts"
import * as LookupCache from "../../../src/gateway/internal/LookupCache.ts"

const agent = (name: string, revision: string): StoredAgent => ({
  name,
  url: "http://127.0.0.1:1",
  cardUrl: "http://127.0.0.1:1",
  kind: "a2a",
  allow: undefined,
  card: {} as StoredAgent["card"],
  credentials: undefined,
  revision,
  registeredAt: 0
})

describe("LookupCache", () => {
  it.effect("keeps what it found until a change, or its time to live, says otherwise", () =>
    Effect.gen(function*() {
      const rows = new Map([["a", agent("a", "r1")]])
      let reads = 0
      const changes = yield* PubSub.unbounded<{ readonly name: string }>()
      const cache = yield* LookupCache.make({
        read: (name) => Effect.sync(() => (reads++, Option.fromNullishOr(rows.get(name)))),
        changes: Stream.fromPubSub(changes),
        ttlMillis: 1_000
      })
      // let the listener subscribe
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      const revision = (name: string) => Effect.map(cache.lookup(name), Option.map((s) => s.revision))

      assert.deepStrictEqual(yield* revision("a"), Option.some("r1"))
      assert.deepStrictEqual(yield* revision("a"), Option.some("r1"))
      assert.strictEqual(reads, 1)

      // another node changed it: announced, dropped, read again
      rows.set("a", agent("a", "r2"))
      yield* PubSub.publish(changes, { name: "a" })
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(yield* revision("a"), Option.some("r2"))
      assert.strictEqual(reads, 2)

      // a change nobody announced: seen once the entry's time is up
      rows.set("a", agent("a", "r3"))
      assert.deepStrictEqual(yield* revision("a"), Option.some("r2"))
      yield* TestClock.adjust("1001 millis")
      assert.deepStrictEqual(yield* revision("a"), Option.some("r3"))

      // this node's own change
      rows.delete("a")
      cache.drop("a")
      assert.isTrue(Option.isNone(yield* cache.lookup("a")))
      // not found is not kept: a registration elsewhere is seen on the next lookup
      rows.set("a", agent("a", "r4"))
      assert.deepStrictEqual(yield* revision("a"), Option.some("r4"))
    }).pipe(Effect.scoped))
})
