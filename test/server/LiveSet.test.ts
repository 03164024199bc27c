import { assert, describe, it } from "@effect/vitest"
import * as LiveSet from "../../src/server/internal/LiveSet.ts"

describe("LiveSet", () => {
  it("keeps what was added and not removed, oldest first", () => {
    const set = LiveSet.make<string>()
    const a = LiveSet.add(set, "a")
    LiveSet.add(set, "b")
    const c = LiveSet.add(set, "c")
    LiveSet.add(set, "d")
    LiveSet.remove(set, a)
    LiveSet.remove(set, c)
    const seen: Array<string> = []
    LiveSet.forEach(set, (value) => seen.push(value))
    assert.deepStrictEqual(seen, ["b", "d"])
    assert.strictEqual(set.size, 2)
  })

  it("a removed entry is empty and unlinked, and removing it again changes nothing", () => {
    const set = LiveSet.make<{ readonly big: Array<number> }>()
    const entry = LiveSet.add(set, { big: [1, 2, 3] })
    const other = LiveSet.add(set, { big: [4] })
    LiveSet.remove(set, entry)
    assert.isUndefined(entry.value)
    assert.isUndefined(entry.next)
    assert.isUndefined(entry.prev)
    LiveSet.remove(set, entry)
    assert.strictEqual(set.size, 1)
    assert.deepStrictEqual(LiveSet.takeAll(set), [{ big: [4] }])
    assert.isUndefined(other.value)
  })

  it("takeAll empties it; forEach may remove the entry it is given", () => {
    const set = LiveSet.make<number>()
    const entries = [1, 2, 3, 4].map((n) => LiveSet.add(set, n))
    const seen: Array<number> = []
    LiveSet.forEach(set, (n) => {
      seen.push(n)
      LiveSet.remove(set, entries[n - 1]!)
    })
    assert.deepStrictEqual(seen, [1, 2, 3, 4])
    assert.strictEqual(set.size, 0)
    LiveSet.add(set, 5)
    assert.deepStrictEqual(LiveSet.takeAll(set), [5])
    assert.deepStrictEqual(LiveSet.takeAll(set), [])
    assert.strictEqual(set.size, 0)
  })
})
