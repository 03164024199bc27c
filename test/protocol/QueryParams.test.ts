/** QueryParams: a declared query decoded by its Schema, every value of the wrong form one field violation. */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as QueryParams from "../../src/protocol/internal/QueryParams.ts"
import * as Operations from "../../src/protocol/Operations.ts"

const listTasks = QueryParams.decoder(Operations.byName.ListTasks.rest.query!)

describe("QueryParams", () => {
  it("decodes the declared parameters by form and ignores the others", () => {
    const decoded = listTasks({
      pageSize: "5",
      includeArtifacts: "false",
      contextId: "c",
      historyLength: ["0"],
      x: "1"
    })
    assert.deepStrictEqual(Result.getOrThrow(decoded), {
      pageSize: 5,
      includeArtifacts: false,
      contextId: "c",
      historyLength: 0
    })
  })

  it("lists every value of the wrong form, in the declared order", () => {
    const decoded = listTasks({ includeArtifacts: "TRUE", pageSize: "1e3", pageToken: ["a", "b"] })
    assert.isTrue(Result.isFailure(decoded))
    const error = Result.isFailure(decoded) ? decoded.failure : undefined
    assert.deepStrictEqual(error?.fieldViolations, [
      { field: "pageSize", description: "Expected an integer, got \"1e3\"" },
      { field: "pageToken", description: "Expected a single value, got 2" },
      { field: "includeArtifacts", description: "Expected true or false, got \"TRUE\"" }
    ])
  })

  it("First takes the first of repeated values; the forms encode back to query strings", () => {
    assert.strictEqual(Schema.decodeUnknownSync(QueryParams.First)(["1", "2"]), "1")
    assert.strictEqual(Schema.encodeSync(QueryParams.Int32)(42), "42")
    assert.strictEqual(Schema.encodeSync(QueryParams.Bool)(true), "true")
  })
})

describe("QueryParams: one codec, both directions", () => {
  /** A value of each form, as a request's JSON form holds it. */
  const sample: Record<Operations.QueryForm, unknown> = {
    string: "a b&c=d/é",
    int32: -42,
    int64: 9007199254740,
    bool: false,
    strings: ["x", "y,z", ""]
  }

  const roundTrip = (query: QueryParams.Query, fields: Readonly<Record<string, unknown>>) => {
    const params = Result.getOrThrow(QueryParams.encoder(query)(fields))
    // through a query string, then as a router hands them over: one string for a name given once, an array for a
    // repeated name
    const text = new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString()
    const parsed = new URLSearchParams(text)
    const search = Object.fromEntries(
      [...new Set(parsed.keys())].map((k) => {
        const all = parsed.getAll(k)
        return [k, all.length === 1 ? all[0]! : all]
      })
    )
    return { params, decoded: Result.getOrThrow(QueryParams.decoder(query)(search)) }
  }

  for (const op of Operations.all) {
    const query = op.rest.query
    if (query === undefined) continue
    it(`${op.name}: every declared parameter encodes and decodes back; absent ones stay absent`, () => {
      const fields = Object.fromEntries(Object.entries(query).map(([name, form]) => [name, sample[form]]))
      assert.deepStrictEqual(roundTrip(query, fields).decoded, fields)
      assert.deepStrictEqual(roundTrip(query, {}), { params: [], decoded: {} })
      const [name, form] = Object.entries(query)[0]!
      assert.deepStrictEqual(roundTrip(query, { [name]: sample[form], other: undefined }).decoded, {
        [name]: sample[form]
      })
    })
  }

  it("a repeated field is its name repeated, and decodes back to every value, in order", () => {
    const query: QueryParams.Query = { tags: "strings", pageSize: "int32" }
    const { decoded, params } = roundTrip(query, { tags: ["b", "a", "b"], pageSize: 3 })
    assert.deepStrictEqual(params, [["tags", "b"], ["tags", "a"], ["tags", "b"], ["pageSize", "3"]])
    assert.deepStrictEqual(decoded, { tags: ["b", "a", "b"], pageSize: 3 })
    assert.deepStrictEqual(roundTrip(query, { tags: ["only"] }).decoded, { tags: ["only"] })
    assert.deepStrictEqual(roundTrip(query, { tags: [] }), { params: [], decoded: {} })
  })

  it("leaves out what the query does not declare (path fields, the tenant)", () => {
    const encode = QueryParams.encoder(Operations.byName.GetTask.rest.query!)
    assert.deepStrictEqual(Result.getOrThrow(encode({ id: "t-1", tenant: "acme", historyLength: 2 })), [
      ["historyLength", "2"]
    ])
  })

  it("a value of the wrong form is InvalidParams naming it, on the way out too", () => {
    const encoded = QueryParams.encoder(Operations.byName.ListTasks.rest.query!)({
      pageSize: 1.5,
      includeArtifacts: "yes"
    })
    assert.isTrue(Result.isFailure(encoded))
    const error = Result.isFailure(encoded) ? encoded.failure : undefined
    assert.strictEqual(error?._tag, "InvalidParams")
    assert.deepStrictEqual(error?.fieldViolations?.map((v) => v.field), ["pageSize", "includeArtifacts"])
  })
})
