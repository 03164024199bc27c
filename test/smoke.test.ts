import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

describe("toolchain", () => {
  it.effect("runs Effect 4 on Node >= 22.19", () =>
    Effect.gen(function*() {
      const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
      expect(major > 22 || (major === 22 && minor >= 19)).toBe(true)
      const n = yield* Effect.succeed(21).pipe(Effect.map((x) => x * 2))
      expect(n).toBe(42)
    }))
})
