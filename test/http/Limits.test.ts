/**
 * Nesting depth at the edge (#12 items 8, 9): a body nested deeper than the limit is an invalid request on every
 * binding (JSON-RPC and HTTP+JSON, 1.0 and 0.3), answered with its error body and without touching the handler,
 * while anything within the limit is accepted whole and stored whole (SQLite here): a request is either refused
 * whole or kept whole.
 */
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { DEFAULT_MAX_JSON_DEPTH } from "../../src/http/HttpBindingOptions.ts"
import { nestsDeeperThan } from "../../src/http/internal/RequestBody.ts"
import { at, request } from "../v0_3/fixtures/Server.ts"
import * as SqliteServer from "./fixtures/SqliteServer.ts"

/** `{"a":{"a":...{"a":1}}}`, `depth` objects deep. */
const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

/** `[[[...]]]` as text, `depth` arrays deep (built as text: the value itself would be too deep to stringify). */
const deepArrays = (depth: number): string => "[".repeat(depth) + "]".repeat(depth)

interface Server {
  readonly url: string
}

/** The demo agent over the SQLite stores in a temporary folder, on 127.0.0.1. */
class Sqlite extends Context.Service<Sqlite, Server>()("test/http/Limits/Sqlite") {
  static readonly layer = Layer.effect(Sqlite, SqliteServer.start)
}

const V1 = { "a2a-version": "1.0" }
let n = 0
const messageId = () => `limits-${++n}`

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })

const rpcBody = (method: string, params: string) =>
  `{"jsonrpc":"2.0","id":"deep","method":"${method}","params":${params}}`

describe("nestsDeeperThan", () => {
  it("counts objects and arrays, not brackets inside strings or escaped quotes", () => {
    assert.isFalse(nestsDeeperThan(JSON.stringify(nested(3)), 3))
    assert.isTrue(nestsDeeperThan(JSON.stringify(nested(4)), 3))
    assert.isFalse(nestsDeeperThan(JSON.stringify({ s: "[[[[[{{{{{", t: "\"[[[[[\\" }), 1))
    assert.isTrue(nestsDeeperThan(deepArrays(5), 4))
    assert.isFalse(nestsDeeperThan("[1, [2], [3], {\"a\": [4]}]", 3))
  })
})

layer(Sqlite.layer, { excludeTestServices: true })("nesting depth at the edge", (it) => {
  it.effect("1.0 JSON-RPC: metadata nested 5,000 levels is -32600 with the limit named; the server goes on", () =>
    Effect.gen(function*() {
      const server = yield* Sqlite
      const message = `{"messageId":"${messageId()}","role":"ROLE_USER","parts":[{"text":"hi"}]}`
      const metadata = "{\"a\":".repeat(5000) + "1" + "}".repeat(5000)
      const reply = yield* post(
        `${server.url}/`,
        rpcBody("SendMessage", `{"message":${message},"metadata":${metadata}}`),
        V1
      )
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(at(reply.json, "error", "code"), -32600)
      assert.include(at(reply.json, "error", "message") as string, String(DEFAULT_MAX_JSON_DEPTH))
      const listed = yield* post(`${server.url}/`, rpcBody("ListTasks", "{}"), V1)
      assert.strictEqual(at(listed.json, "result", "totalSize"), 0)
    }))

  it.effect("0.3 JSON-RPC: params nested 6,000 levels are -32600, not an empty 500", () =>
    Effect.gen(function*() {
      const server = yield* Sqlite
      const reply = yield* post(`${server.url}/`, rpcBody("message/send", `{"message":${deepArrays(6000)}}`))
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(at(reply.json, "error", "code"), -32600)
      assert.strictEqual(at(reply.json, "jsonrpc"), "2.0")
    }))

  it.effect("1.0 and 0.3 HTTP+JSON: a body nested 8,000 levels is 400 with the binding's error body", () =>
    Effect.gen(function*() {
      const server = yield* Sqlite
      const body = `{"message":${deepArrays(8000)}}`
      const modern = yield* post(`${server.url}/message:send`, body, V1)
      assert.strictEqual(modern.status, 400)
      assert.strictEqual(at(modern.json, "error", "status"), "INVALID_ARGUMENT")
      assert.strictEqual(at(modern.json, "error", "details", 0, "reason"), "INVALID_REQUEST")
      const legacy = yield* post(`${server.url}/v1/message:send`, body)
      assert.strictEqual(legacy.status, 400)
      assert.strictEqual(at(legacy.json, "code"), -32600)
    }))

  it.effect("within the limit the request is kept whole: deep metadata is stored and read back (SQLite)", () =>
    Effect.gen(function*() {
      const server = yield* Sqlite
      // The request object and its metadata object take two levels of the limit.
      const metadata = { deep: nested(DEFAULT_MAX_JSON_DEPTH - 3) }
      const sent = yield* post(
        `${server.url}/message:send`,
        JSON.stringify({
          message: { messageId: messageId(), role: "ROLE_USER", parts: [{ text: "task report" }], metadata },
          configuration: { returnImmediately: false }
        }),
        V1
      )
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.json))
      const id = at(sent.json, "task", "id") as string
      const got = yield* request(`${server.url}/tasks/${id}`, { headers: V1 })
      assert.strictEqual(got.status, 200)
      const history = at(got.json, "history") as ReadonlyArray<{ readonly metadata?: unknown }>
      expect(history[0]?.metadata).toStrictEqual(metadata)
      // One level more is refused whole: nothing is stored.
      const before = at((yield* request(`${server.url}/tasks`, { headers: V1 })).json, "totalSize")
      const refused = yield* post(
        `${server.url}/message:send`,
        JSON.stringify({
          message: {
            messageId: messageId(),
            role: "ROLE_USER",
            parts: [{ text: "hello" }],
            metadata: { deep: nested(DEFAULT_MAX_JSON_DEPTH) }
          }
        }),
        V1
      )
      assert.strictEqual(refused.status, 400)
      const after = at((yield* request(`${server.url}/tasks`, { headers: V1 })).json, "totalSize")
      assert.strictEqual(after, before)
    }))
})
