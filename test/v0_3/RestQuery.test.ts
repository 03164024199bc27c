/** RestQuery: the 0.3 REST query, one codec for the 0.3 server edge and the 0.3 client transport. */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as RestQuery from "../../src/v0_3/protocol/internal/RestQuery.ts"

describe("the 0.3 REST query (v0_3 RestQuery)", () => {
  const decode = Schema.decodeUnknownSync(RestQuery.GetTask)

  it("historyLength encodes and decodes back; 0 and absent mean no limit; repeated, the first counts", () => {
    const encoded = Result.getOrThrow(RestQuery.encodeGetTask({ id: "t", historyLength: 3 }))
    assert.deepStrictEqual(encoded, [["historyLength", "3"]])
    assert.deepStrictEqual(decode({ historyLength: encoded[0]![1] }), { historyLength: 3 })
    assert.deepStrictEqual(Result.getOrThrow(RestQuery.encodeGetTask({ id: "t" })), [])
    assert.deepStrictEqual(Result.getOrThrow(RestQuery.encodeGetTask({ historyLength: 0 })), [["historyLength", "0"]])
    assert.deepStrictEqual(decode({ historyLength: "0" }), { historyLength: undefined })
    assert.deepStrictEqual(decode({ historyLength: ["2", "5"] }), { historyLength: 2 })
    assert.deepStrictEqual(decode({}), {})
  })

  it("a negative historyLength is refused on the way out as the server refuses it on the way in", () => {
    const encoded = RestQuery.encodeGetTask({ historyLength: -1 })
    assert.isTrue(Result.isFailure(encoded))
    assert.strictEqual(
      Result.isFailure(encoded) ? encoded.failure.fieldViolations?.[0]?.description : undefined,
      "Invalid query parameter historyLength: -1 is not a non-negative integer"
    )
  })
})
