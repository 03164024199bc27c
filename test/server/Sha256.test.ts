import { describe, expect, it } from "@effect/vitest"
import { createHash, randomBytes } from "node:crypto"
import * as Sha256 from "../../src/server/internal/Sha256.ts"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("Sha256", () => {
  it("gives node:crypto's digest at every padding boundary, for UTF-8 text and for bytes", () => {
    const texts = ["", "abc", "é€😀 mixed", ...[55, 56, 63, 64, 65, 119, 120, 1000].map((n) => "a".repeat(n))]
    for (const text of texts) {
      expect(hex(Sha256.digest(text)), JSON.stringify(text)).toBe(
        createHash("sha256").update(text, "utf8").digest("hex")
      )
    }
    for (let length = 0; length < 300; length += 7) {
      const bytes = randomBytes(length)
      expect(hex(Sha256.digest(bytes)), `${length} bytes`).toBe(createHash("sha256").update(bytes).digest("hex"))
    }
  })

  it("the FIPS 180-4 test vector", () => {
    expect(hex(Sha256.digest("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("compares digests: equal, one byte off, other length", () => {
    const a = Sha256.digest("secret")
    expect(Sha256.timingSafeEqual(a, Sha256.digest("secret"))).toBe(true)
    const b = Uint8Array.from(a)
    b[31] = b[31]! ^ 1
    expect(Sha256.timingSafeEqual(a, b)).toBe(false)
    expect(Sha256.timingSafeEqual(a, a.subarray(1))).toBe(false)
  })
})
