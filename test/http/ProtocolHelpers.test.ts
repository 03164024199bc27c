/**
 * The pure protocol helpers the bindings stand on: version normalisation and negotiation (spec 3.6),
 * JSON-RPC envelope validation, and schema issues as BadRequest field paths.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as RequestBody from "../../src/http/internal/RequestBody.ts"
import * as FieldViolations from "../../src/protocol/FieldViolations.ts"
import * as v1 from "../../src/protocol/generated/v1.ts"
import * as JsonRpc from "../../src/protocol/JsonRpc.ts"
import * as Version from "../../src/protocol/Version.ts"

describe("Version", () => {
  it("normalises to Major.Minor; empty means 0.3; nonsense is undefined", () => {
    assert.strictEqual(Version.normalize("1.0"), "1.0")
    assert.strictEqual(Version.normalize("1.0.7"), "1.0")
    assert.strictEqual(Version.normalize(" 1 "), "1.0")
    assert.strictEqual(Version.normalize("v0.3"), "0.3")
    assert.strictEqual(Version.normalize("0.3.0"), "0.3")
    assert.strictEqual(Version.normalize(""), "0.3")
    assert.strictEqual(Version.normalize(undefined), "0.3")
    assert.strictEqual(Version.normalize(null), "0.3")
    assert.isUndefined(Version.normalize("latest"))
    assert.isUndefined(Version.normalize("1.0; drop table"))
  })

  it("negotiates against the served versions and names them on failure", () => {
    assert.deepStrictEqual(Version.negotiate("1.0.2", ["1.0"]), Result.succeed("1.0" as const))
    assert.deepStrictEqual(Version.negotiate("", ["1.0", "0.3"]), Result.succeed("0.3" as const))
    const refused = Version.negotiate(undefined, ["1.0"])
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.strictEqual(refused.failure._tag, "VersionNotSupported")
      assert.deepStrictEqual(refused.failure.metadata, { requestedVersion: "0.3", supportedVersions: "1.0" })
      assert.include(refused.failure.message, "no A2A-Version")
    }
  })

  it("reads the header first, then the query parameter", () => {
    assert.strictEqual(Version.fromHttp({ "a2a-version": "1.0" }, { "A2A-Version": "0.3" }), "1.0")
    assert.strictEqual(Version.fromHttp({}, { "A2A-Version": "1.0" }), "1.0")
    assert.strictEqual(Version.fromHttp({ "a2a-version": " " }, { "A2A-Version": ["1.0", "0.3"] }), "1.0")
    assert.isUndefined(Version.fromHttp({}, {}))
  })
})

describe("JsonRpc", () => {
  it("accepts a request, a notification, and a null id", () => {
    assert.deepStrictEqual(
      JsonRpc.parseRequest({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t" } }),
      Result.succeed({ id: 1, method: "GetTask", params: { id: "t" } })
    )
    const note = JsonRpc.parseRequest({ jsonrpc: "2.0", method: "GetTask" })
    assert.isTrue(Result.isSuccess(note) && JsonRpc.isNotification(note.success))
    // by-position params make a valid Request too (JSON-RPC 2.0 section 4.2); the binding refuses them as params
    assert.deepStrictEqual(
      JsonRpc.parseRequest({ jsonrpc: "2.0", id: 2, method: "GetTask", params: ["t"] }),
      Result.succeed({ id: 2, method: "GetTask", params: ["t"] })
    )
    const nullId = JsonRpc.parseRequest({ jsonrpc: "2.0", id: null, method: "GetTask" })
    assert.isTrue(Result.isSuccess(nullId) && !JsonRpc.isNotification(nullId.success))
  })

  it("rejects bad envelopes with InvalidRequest and the id it can echo", () => {
    const check = (u: unknown, id: JsonRpc.JsonRpcId) => {
      const r = JsonRpc.parseRequest(u)
      assert.isTrue(Result.isFailure(r), JSON.stringify(u))
      if (Result.isFailure(r)) {
        assert.strictEqual(r.failure.error._tag, "InvalidRequest")
        assert.deepStrictEqual(r.failure.id, id)
      }
    }
    check({ jsonrpc: "2.0", id: 1.5e400, method: "x" }, null)
    check({ jsonrpc: "2.0", id: false, method: "x" }, null)
    check({ jsonrpc: 2, id: "a", method: "x" }, "a")
    check({ jsonrpc: "2.0", id: "a", method: "x", params: 1 }, "a")
    check({ jsonrpc: "2.0", id: "a", method: "x", params: null }, "a")
    check(null, null)
    check([], null)
  })

  it("accepts exactly what RequestEnvelope accepts, with the same id, method and params", () => {
    const decode = Schema.decodeUnknownResult(JsonRpc.RequestEnvelope)
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { jsonrpc: "2.0", method: "m" })
    class Params {
      readonly id = "t"
    }
    const inputs: ReadonlyArray<unknown> = [
      { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t" } },
      { jsonrpc: "2.0", id: "a", method: "GetTask", params: [] },
      { jsonrpc: "2.0", id: null, method: "m" },
      { jsonrpc: "2.0", method: "m", extra: true },
      { jsonrpc: "2.0", id: -0, method: "m", params: {} },
      { jsonrpc: "2.0", id: 1, method: "m", params: new Params() },
      { jsonrpc: "2.0", id: undefined, method: "m" },
      { jsonrpc: "2.0", id: 1, method: "m", params: undefined },
      { jsonrpc: "2.0", id: Number.NaN, method: "m" },
      { jsonrpc: "2.0", id: Infinity, method: "m" },
      { jsonrpc: "2.0", id: {}, method: "m" },
      { jsonrpc: "2.0", id: 1, method: "" },
      { jsonrpc: "2.0", id: 1, method: 7 },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "1.0", id: 1, method: "m" },
      { id: 1, method: "m" },
      { jsonrpc: "2.0", id: 1, method: "m", params: "x" },
      { jsonrpc: "2.0", id: 1, method: "m", params: null },
      JSON.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"__proto__\":{\"a\":1}}}"),
      nullProto,
      ["jsonrpc", "2.0"],
      "request",
      42,
      null
    ]
    for (const u of inputs) {
      const parsed = JsonRpc.parseRequest(u)
      const decoded = decode(u)
      assert.strictEqual(Result.isSuccess(parsed), Result.isSuccess(decoded), JSON.stringify(u))
      if (Result.isSuccess(parsed) && Result.isSuccess(decoded)) {
        assert.strictEqual(parsed.success.id, decoded.success.id)
        assert.strictEqual(parsed.success.method, decoded.success.method)
        assert.deepStrictEqual(parsed.success.params, decoded.success.params)
      }
    }
  })

  it("encodes responses as the plain JSON of the envelope", () => {
    assert.deepStrictEqual(JSON.parse(JsonRpc.encodeSuccess("a\"b", { x: [1] })), JsonRpc.success("a\"b", { x: [1] }))
    assert.deepStrictEqual(JSON.parse(JsonRpc.encodeSuccess(null, undefined)), {
      jsonrpc: "2.0",
      id: null,
      result: null
    })
  })
})

describe("FieldViolations", () => {
  it("formats paths the google.rpc.BadRequest way", () => {
    assert.strictEqual(FieldViolations.formatPath(["message", "parts", 0, "text"]), "message.parts[0].text")
    assert.strictEqual(FieldViolations.formatPath(["metadata", "odd key"]), "metadata[\"odd key\"]")
    assert.strictEqual(FieldViolations.formatPath([]), "")
  })

  it("reports every violation of a request at once", () => {
    const decode = FieldViolations.decoder(v1.SendMessageRequest)
    const r = decode({
      message: { role: "ROLE_USER", parts: [{ text: 1 }, {}] },
      configuration: { historyLength: "x" }
    })
    assert.isTrue(Result.isFailure(r))
    if (Result.isFailure(r)) {
      // A union reports only the member the input meant: `{ text: 1 }` is a text part with a bad text.
      assert.deepStrictEqual((r.failure.fieldViolations ?? []).map((v) => v.field), [
        "configuration.historyLength",
        "message.messageId",
        "message.parts[0].text",
        "message.parts[1]"
      ])
    }
  })

  it("keeps descriptions short", () => {
    const issue = Schema.decodeUnknownResult(Schema.Literal("a"))("x".repeat(5000))
    assert.isTrue(Result.isFailure(issue))
    if (Result.isFailure(issue)) {
      for (const v of FieldViolations.fromIssue(issue.failure.issue)) assert.isAtMost(v.description.length, 300)
    }
  })
})

describe("RequestBody", () => {
  it("accepts JSON media types only", () => {
    assert.isTrue(RequestBody.isJsonMediaType("application/json"))
    assert.isTrue(RequestBody.isJsonMediaType("Application/JSON; charset=utf-8"))
    assert.isTrue(RequestBody.isJsonMediaType("application/a2a+json"))
    assert.isFalse(RequestBody.isJsonMediaType("text/plain"))
    assert.isFalse(RequestBody.isJsonMediaType("application/x-www-form-urlencoded"))
    assert.isFalse(RequestBody.isJsonMediaType("multipart/form-data; boundary=x"))
  })
})
