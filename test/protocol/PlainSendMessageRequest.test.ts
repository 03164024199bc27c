/**
 * The hand-written SendMessageRequest decoder (src/protocol/internal/PlainSendMessageRequest.ts) held to the
 * generated Schema it stands in for: on every input it decodes, its result is the Schema's, to the key order; it
 * decodes nothing the Schema refuses; and it does take the common forms (else it would be a slower path that no
 * test notices). Inputs: hand-picked cases, a seeded run of random requests with random mutations, and the values
 * the Schema's own Arbitrary (effect/Arbitrary) derives, encoded.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import * as FieldViolations from "../../src/protocol/FieldViolations.ts"
import * as v1 from "../../src/protocol/generated/v1.ts"
import * as PlainSendMessageRequest from "../../src/protocol/internal/PlainSendMessageRequest.ts"
import * as MethodTable from "../../src/server/MethodTable.ts"
import * as Mutations from "./Mutations.ts"

const schemaDecode = Schema.decodeUnknownResult(v1.SendMessageRequest)

/** Every object's keys in order, depth first: what JSON.stringify would show of the shape, -0 and all. */
const shape = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(shape)
  if (typeof u === "object" && u !== null) return Object.entries(u).map(([k, v]) => [k, shape(v)])
  return Object.is(u, -0) ? "-0" : u
}

/** The plain decoder's answer is the Schema's, or it leaves the input to the Schema; true when it decoded it. */
const agrees = (input: unknown): boolean => {
  const plain = PlainSendMessageRequest.decode(input)
  if (plain === undefined) return false
  const decoded = schemaDecode(input)
  assert.isTrue(Result.isSuccess(decoded), `decoded what the Schema refuses: ${JSON.stringify(input)}`)
  if (Result.isSuccess(decoded)) {
    assert.deepStrictEqual(shape(plain), shape(decoded.success), JSON.stringify(input))
  }
  return true
}

const text = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hi" }] }

describe("PlainSendMessageRequest", () => {
  it("decodes the common forms exactly as the Schema does", () => {
    const common: ReadonlyArray<unknown> = [
      { message: text },
      { message: { ...text, role: "ROLE_AGENT" } },
      { message: { ...text, role: "ROLE_UNSPECIFIED" } },
      { message: { ...text, messageId: "" } },
      {
        configuration: { returnImmediately: false, acceptedOutputModes: ["text/plain"], historyLength: 3 },
        message: {
          taskId: "t",
          role: "ROLE_USER",
          referenceTaskIds: ["a", "b"],
          parts: [
            { mediaType: "text/plain", text: "a", filename: "f.txt", metadata: { "2": 1, b: { c: [1] }, "1": null } },
            { url: "https://x/y", unknown: 1 },
            { data: { k: [1, 2] } },
            { data: null },
            { data: 0 },
            { data: "s", mediaType: "application/json" }
          ],
          messageId: "m",
          contextId: "c",
          extensions: ["https://ext"],
          metadata: {},
          extra: null
        },
        metadata: { z: 1, a: { nested: true } },
        tenant: "acme",
        somethingElse: { deep: [1] }
      },
      { message: text, configuration: {} },
      { message: text, configuration: { historyLength: 0 } },
      { message: text, configuration: { historyLength: -0 } },
      { message: text, configuration: { historyLength: 2147483647 } },
      { message: text, configuration: { historyLength: -2147483648 } },
      { message: text, configuration: { acceptedOutputModes: [] } },
      { message: { ...text, extensions: [] } },
      JSON.parse(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"__proto__x":1}`),
      Object.assign(Object.create(null) as object, { message: text })
    ]
    for (const input of common) assert.isTrue(agrees(input), `not decoded by hand: ${JSON.stringify(input)}`)
  })

  it("leaves the rest to the Schema", () => {
    const rest: ReadonlyArray<unknown> = [
      // valid, but not the common form
      { message: { message_id: "m", role: "ROLE_USER", parts: [{ text: "a" }] } },
      { message: { ...text, context_id: "c" } },
      { message: { ...text, contextId: null } },
      { message: { ...text, role: 1 } },
      { message: { ...text, parts: [{ raw: "YQ" }] } },
      { message: { ...text, parts: [{ text: "a", media_type: "x" }] } },
      { message: { ...text, parts: [{ text: "a", filename: null }] } },
      { message: text, configuration: { historyLength: "3" } },
      { message: text, configuration: { history_length: 3 } },
      { message: text, configuration: { taskPushNotificationConfig: { url: "https://x" } } },
      { message: text, configuration: null },
      { message: text, metadata: null },
      { message: text, tenant: null },
      JSON.parse(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"metadata":{"__proto__":1}}`),
      JSON.parse(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"__proto__":{"a":1}}`),
      // invalid
      {},
      { message: { role: "ROLE_USER", parts: [{ text: "a" }] } },
      { message: { ...text, parts: [] } },
      { message: { ...text, parts: [{}] } },
      { message: { ...text, parts: [{ text: "a", url: "b" }] } },
      { message: { ...text, parts: [{ text: "a", data: null }] } },
      { message: { ...text, parts: [{ text: 1 }] } },
      { message: { ...text, parts: [{ text: "a", metadata: [] }] } },
      { message: { ...text, role: "USER" } },
      { message: { ...text, extensions: [1] } },
      { message: { ...text, metadata: "x" } },
      { message: text, configuration: { historyLength: 1.5 } },
      { message: text, configuration: { historyLength: 2147483648 } },
      { message: text, configuration: { returnImmediately: "yes" } },
      { message: text, configuration: { acceptedOutputModes: "text/plain" } },
      { message: text, tenant: 1 },
      { message: "hi" },
      [],
      null,
      "message",
      new (class Request {
        readonly message = text
      })()
    ]
    for (const input of rest) {
      assert.isUndefined(PlainSendMessageRequest.decode(input), JSON.stringify(input))
    }
  })

  it("agrees with the Schema on random requests and mutations of them (seeded)", () => {
    const random = Mutations.seeded(0x5eed)
    const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
    const odd: ReadonlyArray<unknown> = [...Mutations.odd, undefined, "ROLE_USER", "TEXT"]
    const maybe = (o: Record<string, unknown>, key: string, value: () => unknown) => {
      if (random() < 0.4) o[key] = value()
    }
    const request = (): Record<string, unknown> => {
      const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const p: Record<string, unknown> = {}
        const kind = pick(["text", "url", "data", "raw"])
        p[kind] = kind === "data" ? pick([{ a: 1 }, null, [1], "s"]) : kind === "raw" ? "YWI" : "hello"
        maybe(p, "mediaType", () => "text/plain")
        maybe(p, "filename", () => "f")
        maybe(p, "metadata", () => ({ k: "v" }))
        return p
      })
      const message: Record<string, unknown> = { messageId: "m", role: pick(["ROLE_USER", "ROLE_AGENT"]), parts }
      maybe(message, "contextId", () => "c")
      maybe(message, "taskId", () => "t")
      maybe(message, "extensions", () => ["e"])
      maybe(message, "referenceTaskIds", () => ["r"])
      maybe(message, "metadata", () => ({ m: 1 }))
      const out: Record<string, unknown> = { message }
      if (random() < 0.4) {
        const configuration: Record<string, unknown> = {}
        maybe(configuration, "returnImmediately", () => random() < 0.5)
        maybe(configuration, "historyLength", () => Math.floor(random() * 10))
        maybe(configuration, "acceptedOutputModes", () => ["text/plain"])
        out["configuration"] = configuration
      }
      maybe(out, "metadata", () => ({ x: [1] }))
      maybe(out, "tenant", () => "t")
      return out
    }
    /** An object somewhere in `u`, to mutate. */
    const someObject = (u: Record<string, unknown>): Record<string, unknown> => {
      let at = u
      for (let i = 0; i < 4; i++) {
        const children = Object.values(at).flatMap((v) =>
          Array.isArray(v)
            ? v.filter((e) => typeof e === "object" && e !== null)
            : typeof v === "object" && v !== null
            ? [v]
            : []
        ) as Array<Record<string, unknown>>
        if (children.length === 0 || random() < 0.3) break
        at = pick(children)
      }
      return at
    }
    const keys = [
      "message",
      "configuration",
      "metadata",
      "tenant",
      "messageId",
      "message_id",
      "role",
      "parts",
      "text",
      "url",
      "data",
      "raw",
      "mediaType",
      "media_type",
      "filename",
      "contextId",
      "taskId",
      "extensions",
      "referenceTaskIds",
      "historyLength",
      "returnImmediately",
      "acceptedOutputModes",
      "unknown"
    ]
    let decodedByHand = 0
    const runs = 4000
    for (let i = 0; i < runs; i++) {
      const input = request()
      const mutations = Math.floor(random() * 3)
      for (let m = 0; m < mutations; m++) {
        const target = someObject(input)
        const key = pick([...Object.keys(target), ...keys])
        if (random() < 0.3) delete target[key]
        // a copy: the values are mutated in turn
        else target[key] = structuredClone(pick(odd))
      }
      // through JSON as a request body arrives (no undefined), and as it is (anything a caller may hand over)
      const viaJson = JSON.parse(JSON.stringify(input)) as unknown
      if (agrees(viaJson)) decodedByHand++
      agrees(input)
    }
    // the common form is most of what this generates: the hand-written path must be the one taken
    assert.isAbove(decodedByHand, runs / 4)
  })

  it.effect("agrees with the Schema on every value its Arbitrary derives, as it arrives on the wire (seeded)", () =>
    Effect.gen(function*() {
      // any value of the Schema's type, encoded and through JSON text: the inputs a valid request can take
      const values = yield* Arbitrary.sampleEffect(Arbitrary.schema(v1.SendMessageRequest), { count: 500, seed: 32 })
      const encode = Schema.encodeSync(v1.SendMessageRequest)
      let decoded = 0
      for (const value of values) if (agrees(JSON.parse(JSON.stringify(encode(value))))) decoded++
      assert.isAbove(decoded, 40)
    }))

  it.effect("agrees with the Schema on the values its Arbitrary derives with one field removed, renamed or retyped", () =>
    Effect.gen(function*() {
      // invalid and unusual inputs from the Schema's own fields: the fast path decodes none the Schema refuses,
      // and what it decodes, it decodes as the Schema does
      const { decoded, refused } = yield* Mutations.checkMutations(v1.SendMessageRequest, agrees, {
        count: 300,
        perValue: 4,
        seed: 320
      })
      // both kinds occur: the comparison is not vacuous
      assert.isAbove(decoded, 100)
      assert.isAbove(refused, 100)
    }))

  it("is what FieldViolations' decoder of SendMessageRequest tries first", () => {
    const decode = FieldViolations.decoder(v1.SendMessageRequest)
    const input = { message: text, unknown: 1 }
    const decoded = decode(input)
    assert.isTrue(Result.isSuccess(decoded))
    if (Result.isSuccess(decoded)) assert.deepStrictEqual(decoded.success, PlainSendMessageRequest.decode(input))
    const refused = decode({ message: { ...text, parts: [] } })
    assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "InvalidParams")
  })

  it("is what the 1.0 edge decodes SendMessage and SendStreamingMessage with", () => {
    for (const name of ["SendMessage", "SendStreamingMessage"] as const) {
      const prepare = (params: unknown): Result.Result<unknown, { readonly _tag: string }> =>
        MethodTable.v1Methods.byName(name).prepare(params)
      assert.isTrue(Result.isSuccess(prepare({ message: text })))
      const refused = prepare({ message: { ...text, parts: [] } })
      assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "InvalidParams")
    }
  })
})
