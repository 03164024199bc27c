/**
 * The hand-written GetTaskRequest decoder (src/protocol/internal/PlainGetTaskRequest.ts) held to the generated
 * Schema it stands in for: on every input it decodes, its result is the Schema's, to the key order; it decodes
 * nothing the Schema refuses; and it does take the common forms. Inputs: hand-picked cases, seeded random ones, and
 * the values the Schema's own Arbitrary (effect/Arbitrary) derives, encoded.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import * as FieldViolations from "../../src/protocol/FieldViolations.ts"
import * as v1 from "../../src/protocol/generated/v1.ts"
import * as PlainGetTaskRequest from "../../src/protocol/internal/PlainGetTaskRequest.ts"
import { checkMutations } from "./Mutations.ts"

const schemaDecode = Schema.decodeUnknownResult(v1.GetTaskRequest)

const shape = (u: unknown): unknown =>
  typeof u === "object" && u !== null ? Object.entries(u).map(([k, v]) => [k, shape(v)]) : Object.is(u, -0) ? "-0" : u

/** The plain decoder's answer is the Schema's, or it leaves the input to the Schema; true when it decoded it. */
const agrees = (input: unknown): boolean => {
  const plain = PlainGetTaskRequest.decode(input)
  if (plain === undefined) return false
  const decoded = schemaDecode(input)
  assert.isTrue(Result.isSuccess(decoded), `decoded what the Schema refuses: ${JSON.stringify(input)}`)
  if (Result.isSuccess(decoded)) assert.deepStrictEqual(shape(plain), shape(decoded.success), JSON.stringify(input))
  return true
}

describe("PlainGetTaskRequest", () => {
  it("decodes the common forms exactly as the Schema does", () => {
    for (
      const input of [
        { id: "t-1" },
        { id: "" },
        { id: "t", historyLength: 3 },
        { historyLength: 0, id: "t" },
        { id: "t", historyLength: -0 },
        { id: "t", historyLength: -5 },
        { id: "t", historyLength: 2147483647 },
        { id: "t", historyLength: -2147483648 },
        { tenant: "a", id: "t" },
        { tenant: "a", id: "t", historyLength: 1, other: [1], more: { x: null } },
        JSON.parse("{\"id\":\"t\",\"__proto__\":{\"x\":1}}")
      ]
    ) assert.isTrue(agrees(input), JSON.stringify(input))
  })

  it("leaves to the Schema what needs its normalisation or what it refuses", () => {
    for (
      const input of [
        { id: "t", history_length: 2 },
        { id: "t", historyLength: "2" },
        { id: "t", historyLength: null },
        { id: null },
        { id: "t", tenant: null },
        { id: "t", other: null },
        { id: "t", historyLength: 1.5 },
        { id: "t", historyLength: 2147483648 },
        { id: "t", historyLength: Number.NaN },
        { id: 1 },
        { id: "t", tenant: 1 },
        {},
        [],
        null,
        "t",
        Object.assign(Object.create({ inherited: 1 }), { id: "t" })
      ]
    ) assert.isFalse(agrees(input), JSON.stringify(input))
  })

  it("agrees with the Schema on random inputs", () => {
    let seed = 18
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!
    const values = [undefined, null, "", "t", "2", 0, -0, 1, -1, 2.5, 2147483647, 2147483648, -2147483649, true, [], {}]
    const keys = ["id", "historyLength", "tenant", "history_length", "other", "__proto__"]
    let decoded = 0
    for (let i = 0; i < 4000; i++) {
      const input: Record<string, unknown> = {}
      for (const key of keys) {
        if (random() < 0.5) continue
        const value = key === "id" && random() < 0.7 ? `t-${i}` : pick(values)
        if (value !== undefined || random() < 0.5) Object.defineProperty(input, key, { value, enumerable: true })
      }
      // through JSON too, as a body arrives (undefined dropped)
      if (agrees(input)) decoded++
      agrees(JSON.parse(JSON.stringify(input)))
    }
    assert.isAbove(decoded, 200)
  })

  it.effect("agrees with the Schema on every value its Arbitrary derives, as it arrives on the wire (seeded)", () =>
    Effect.gen(function*() {
      // any value of the Schema's type, encoded and through JSON text: the inputs a valid request can take
      const values = yield* Arbitrary.sampleEffect(Arbitrary.schema(v1.GetTaskRequest), { count: 500, seed: 32 })
      const encode = Schema.encodeSync(v1.GetTaskRequest)
      let decoded = 0
      for (const value of values) if (agrees(JSON.parse(JSON.stringify(encode(value))))) decoded++
      assert.isAbove(decoded, 400)
    }))

  it.effect("agrees with the Schema on the values its Arbitrary derives with one field removed, renamed or retyped", () =>
    Effect.gen(function*() {
      // invalid and unusual inputs from the Schema's own fields: the fast path decodes none the Schema refuses,
      // and what it decodes, it decodes as the Schema does
      const { decoded, refused } = yield* checkMutations(v1.GetTaskRequest, agrees, {
        count: 300,
        perValue: 4,
        seed: 320
      })
      // both kinds occur: the comparison is not vacuous
      assert.isAbove(decoded, 100)
      assert.isAbove(refused, 100)
    }))

  it("is what the server's GetTask decoder uses", () => {
    const decode = FieldViolations.decoder(v1.GetTaskRequest)
    const input = { id: "t", historyLength: 2 }
    const result = decode(input)
    assert.isTrue(Result.isSuccess(result))
    if (Result.isSuccess(result)) {
      assert.deepStrictEqual(shape(result.success), shape(PlainGetTaskRequest.decode(input)))
    }
  })
})
