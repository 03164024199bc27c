/** QueryParams: a declared query decoded by its Schema, every value of the wrong form one field violation. */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as Operations from "../../../src/protocol/Operations.ts"
import * as QueryParams from "../../../src/server/http/internal/QueryParams.ts"

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
