/**
 * The memory receipts' ring of bytes: what a receipt keeps survives the ring wrapping round, replies of any size and
 * text in any script come back as they were given, and the bounds (count, bytes, window) forget the oldest first.
 * The store's part in safe retries end to end is MessageRetries.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as MemoryMessageReceipts from "../../src/server/memory/MemoryMessageReceipts.ts"
import type { Receipt } from "../../src/server/MessageReceipts.ts"

const key = (messageId: string, owner = "alice") => ({ owner, tenant: "", messageId })
const replyTo = (id: string, text = `reply to ${id}`): v1.Message => ({
  messageId: `r-${id}`,
  contextId: `c-${id}`,
  role: "ROLE_AGENT",
  parts: [{ text }]
})

const got = (receipt: Option.Option<Receipt>): Receipt => {
  assert.isTrue(Option.isSome(receipt), "a receipt")
  return (receipt as Option.Some<Receipt>).value
}

describe("memory message receipts", () => {
  it.effect("keep the fingerprint, task and reply of the newest receipts while the ring wraps round many times", () =>
    Effect.gen(function*() {
      // ~4 KiB of ring: each receipt with its reply takes ~100 bytes, so 2,000 of them wrap it ~50 times.
      const receipts = yield* MemoryMessageReceipts.makeWith({ maxReceipts: 1_000, maxBytes: 4096 })
      for (let i = 0; i < 2_000; i++) {
        const id = `m${i}`
        assert.isTrue(Option.isNone(yield* receipts.claim(key(id), `print-${i}`, `task-${i}`)))
        if (i % 2 === 0) yield* receipts.reply(key(id), replyTo(id))
      }
      let kept = 0
      for (let i = 0; i < 2_000; i++) {
        const found = yield* receipts.get(key(`m${i}`))
        if (Option.isNone(found)) {
          // Forgotten oldest first: nothing older than a kept receipt is missing... once one is kept, all later are.
          assert.strictEqual(kept, 0, `m${i} forgotten after a newer one was kept`)
          continue
        }
        kept++
        const receipt = got(found)
        assert.strictEqual(receipt.fingerprint, `print-${i}`)
        assert.strictEqual(receipt.taskId, `task-${i}`)
        assert.deepStrictEqual(receipt.reply, i % 2 === 0 ? Option.some(replyTo(`m${i}`)) : Option.none())
      }
      // The bytes bound, not the count, decided: some but far from 1,000 kept.
      assert.isAbove(kept, 10)
      assert.isBelow(kept, 100)
      // A claim of a kept message is answered with its receipt, and does not replace it.
      const again = got(yield* receipts.claim(key("m1999"), "print-1999", "task-other"))
      assert.strictEqual(again.taskId, "task-1999")
    }))

  it.effect("beyond maxReceipts the oldest are forgotten, replies or not; a reply is not counted as a receipt", () =>
    Effect.gen(function*() {
      const receipts = yield* MemoryMessageReceipts.makeWith({ maxReceipts: 3 })
      for (const id of ["m1", "m2", "m3"]) {
        yield* receipts.claim(key(id), "print", `task-${id}`)
        yield* receipts.reply(key(id), replyTo(id))
      }
      assert.deepStrictEqual(got(yield* receipts.get(key("m1"))).reply, Option.some(replyTo("m1")))
      yield* receipts.claim(key("m4"), "print", "task-m4")
      assert.isTrue(Option.isNone(yield* receipts.get(key("m1"))))
      assert.deepStrictEqual(got(yield* receipts.get(key("m2"))).reply, Option.some(replyTo("m2")))
      // Given back, a receipt no longer counts: m2 stays when m5 comes.
      yield* receipts.release(key("m4"), "task-m4")
      yield* receipts.claim(key("m5"), "print", "task-m5")
      assert.deepStrictEqual(got(yield* receipts.get(key("m2"))).reply, Option.some(replyTo("m2")))
      assert.strictEqual(got(yield* receipts.get(key("m5"))).taskId, "task-m5")
      yield* receipts.claim(key("m6"), "print", "task-m6")
      assert.isTrue(Option.isNone(yield* receipts.get(key("m2"))))
      assert.deepStrictEqual(got(yield* receipts.get(key("m3"))).reply, Option.some(replyTo("m3")))
    }))

  it.effect("a reply too large for the ring, and keys and replies in any script, come back as given", () =>
    Effect.gen(function*() {
      const receipts = yield* MemoryMessageReceipts.makeWith({ maxBytes: 4096 })
      const large = replyTo("big", "x".repeat(10_000))
      yield* receipts.claim(key("big"), "print", "task-big")
      yield* receipts.reply(key("big"), large)
      const id = "mésságe-✓-𝄞"
      yield* receipts.claim(key(id, "ödön"), "prînt-✓", "task-ü")
      yield* receipts.reply(key(id, "ödön"), replyTo(id, "grüße 𝄞"))
      // A long key too: kept as an object.
      const longId = "m".repeat(2_000)
      yield* receipts.claim(key(longId), "print", "task-long")
      assert.deepStrictEqual(got(yield* receipts.get(key("big"))).reply, Option.some(large))
      const unicode = got(yield* receipts.get(key(id, "ödön")))
      assert.strictEqual(unicode.fingerprint, "prînt-✓")
      assert.strictEqual(unicode.taskId, "task-ü")
      assert.deepStrictEqual(unicode.reply, Option.some(replyTo(id, "grüße 𝄞")))
      assert.strictEqual(got(yield* receipts.get(key(longId))).taskId, "task-long")
      // Same messageId, another caller, or a key differing in one non-ASCII character: no receipt.
      assert.isTrue(Option.isNone(yield* receipts.get(key(id, "bob"))))
      assert.isTrue(Option.isNone(yield* receipts.get(key("mésságe-✓-𝄢", "ödön"))))
      assert.isTrue(Option.isNone(yield* receipts.get(key("m".repeat(1_999)))))
    }))

  it.effect("release gives back only its own claim, and many releases leave the others found", () =>
    Effect.gen(function*() {
      const receipts = yield* MemoryMessageReceipts.makeWith({ maxReceipts: 64 })
      for (let round = 0; round < 50; round++) {
        for (let i = 0; i < 40; i++) yield* receipts.claim(key(`m${round}-${i}`), "print", `task-${round}-${i}`)
        // Given back, all but one: the table fills with deleted entries and is rebuilt now and then.
        for (let i = 1; i < 40; i++) yield* receipts.release(key(`m${round}-${i}`), `task-${round}-${i}`)
        yield* receipts.release(key(`m${round}-0`), "task-other")
        assert.strictEqual(got(yield* receipts.get(key(`m${round}-0`))).taskId, `task-${round}-0`)
        assert.isTrue(Option.isNone(yield* receipts.get(key(`m${round}-1`))))
      }
      assert.isTrue(Option.isNone(yield* receipts.claim(key("m49-5"), "print", "task-again")))
    }))

  it.effect("a receipt older than the window is forgotten, and its message may be claimed again", () =>
    Effect.gen(function*() {
      const receipts = yield* MemoryMessageReceipts.makeWith({ window: "1 minute" })
      yield* receipts.claim(key("m1"), "print", "task-1")
      yield* receipts.reply(key("m1"), replyTo("m1"))
      yield* TestClock.adjust(Duration.seconds(30))
      yield* receipts.claim(key("m2"), "print", "task-2")
      assert.strictEqual(got(yield* receipts.get(key("m1"))).taskId, "task-1")
      yield* TestClock.adjust(Duration.seconds(31))
      assert.isTrue(Option.isNone(yield* receipts.get(key("m1"))))
      assert.strictEqual(got(yield* receipts.get(key("m2"))).taskId, "task-2")
      assert.isTrue(Option.isNone(yield* receipts.claim(key("m1"), "print", "task-1b")))
      assert.deepStrictEqual(got(yield* receipts.get(key("m1"))).reply, Option.none())
    }))
})
