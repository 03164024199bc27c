/**
 * Everything a peer can get wrong comes back as the right typed error, saying what was received; protocol
 * errors come back as their tagged A2A errors, on both bindings. Never a defect, never a hang.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import type { ServerResponse } from "node:http"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import { cardFor, json, type Recorded, rpcId, serve, task } from "./TestServer.ts"

const jsonRpcClient = (url: string, options: A2AClient.Options = {}) =>
  A2AClient.make(cardFor([{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }]), options)

const restClient = (url: string, options: A2AClient.Options = {}) =>
  A2AClient.make(cardFor([{ url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }]), options)

/** A peer that answers every request the same way. */
const always = (answer: (req: Recorded, res: ServerResponse) => void) => serve((req, res) => answer(req, res))

const HTML_502 = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"

describe("A2AClient: undecodable responses", () => {
  it.effect("HTML 502 -> A2AResponseError UnexpectedStatus with status, content type and body", () =>
    Effect.gen(function*() {
      const server = yield* always((_, res) => json(res, 502, HTML_502, "text/html"))
      const client = yield* jsonRpcClient(server.url, { retry: false })
      const error = yield* Effect.flip(client.getTask({ id: "t" }))
      if (error._tag !== "A2AResponseError") return expect.fail(`got ${error._tag}`)
      expect(error.reason).toBe("UnexpectedStatus")
      expect(error.status).toBe(502)
      expect(error.contentType).toBe("text/html")
      expect(error.body).toContain("502 Bad Gateway")
      expect(error.message).toContain("HTTP 502")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("200 text/html -> UnexpectedContentType", () =>
    Effect.gen(function*() {
      const server = yield* always((_, res) => json(res, 200, "<html>hello</html>", "text/html"))
      const error = yield* Effect.flip(Effect.flatMap(jsonRpcClient(server.url), (c) => c.getTask({ id: "t" })))
      expect(error._tag === "A2AResponseError" && error.reason).toBe("UnexpectedContentType")
      expect(error.message).toContain("<html>hello</html>")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("invalid JSON -> InvalidJson", () =>
    Effect.gen(function*() {
      const server = yield* always((_, res) =>
        json(res, 200, "{\"jsonrpc\": \"2.0\", \"result\": {", "application/json")
      )
      const error = yield* Effect.flip(Effect.flatMap(jsonRpcClient(server.url), (c) => c.getTask({ id: "t" })))
      expect(error._tag === "A2AResponseError" && error.reason).toBe("InvalidJson")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("schema mismatch (a Task without status) -> SchemaMismatch naming the field", () =>
    Effect.gen(function*() {
      const server = yield* always((req, res) =>
        json(res, 200, { jsonrpc: "2.0", id: rpcId(req.body), result: { id: "t" } })
      )
      const error = yield* Effect.flip(Effect.flatMap(jsonRpcClient(server.url), (c) => c.getTask({ id: "t" })))
      expect(error._tag === "A2AResponseError" && error.reason).toBe("SchemaMismatch")
      expect(error.message).toContain("status")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("not a JSON-RPC response, or a wrong id -> InvalidJsonRpc", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, res, i) =>
        i === 0
          ? json(res, 200, { hello: "world" })
          : json(res, 200, { jsonrpc: "2.0", id: "someone-else", result: task("t") })
      )
      const client = yield* jsonRpcClient(server.url)
      const first = yield* Effect.flip(client.getTask({ id: "t" }))
      expect(first._tag === "A2AResponseError" && first.reason).toBe("InvalidJsonRpc")
      const second = yield* Effect.flip(client.getTask({ id: "t" }))
      expect(second._tag === "A2AResponseError" && second.reason).toBe("InvalidJsonRpc")
      expect(second.message).toContain("someone-else")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("REST: a 404 that is not a google.rpc.Status is not TaskNotFound", () =>
    Effect.gen(function*() {
      const server = yield* always((_, res) => json(res, 404, "Cannot GET /tasks/t", "text/plain"))
      const error = yield* Effect.flip(Effect.flatMap(restClient(server.url), (c) => c.getTask({ id: "t" })))
      expect(error._tag === "A2AResponseError" && error.reason).toBe("UnexpectedStatus")
      expect(error.message).toContain("Cannot GET")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("a stream answered with JSON instead of SSE -> UnexpectedContentType", () =>
    Effect.gen(function*() {
      const server = yield* always((req, res) => json(res, 200, { jsonrpc: "2.0", id: rpcId(req.body), result: {} }))
      const client = yield* jsonRpcClient(server.url)
      const error = yield* Effect.flip(Stream.runCollect(client.sendStreamingMessage({ message: userText("x") })))
      expect(error._tag === "A2AResponseError" && error.reason).toBe("UnexpectedContentType")
      expect(error.message).toContain("text/event-stream")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("an SSE event that is not JSON -> InvalidJson, after the good events", () =>
    Effect.gen(function*() {
      const server = yield* always((req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        const ok = { jsonrpc: "2.0", id: rpcId(req.body), result: { task: task("t", "TASK_STATE_WORKING") } }
        res.end(`data: ${JSON.stringify(ok)}\n\ndata: {oops\n\n`)
      })
      const client = yield* jsonRpcClient(server.url)
      const seen: Array<unknown> = []
      const error = yield* client.sendStreamingMessage({ message: userText("x") }).pipe(
        Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
        Effect.flip
      )
      expect(seen.length).toBe(1)
      expect(error._tag === "A2AResponseError" && error.reason).toBe("InvalidJson")
      expect(error.message).toContain("{oops")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

describe("A2AClient: protocol errors", () => {
  it.effect("JSON-RPC: error codes map to tagged errors, whatever the HTTP status", () =>
    Effect.gen(function*() {
      const codes = [-32001, -32002, -32004, -32602, -32700, -32099]
      const server = yield* serve((req, res, i) =>
        json(res, i % 2 === 0 ? 200 : 500, {
          jsonrpc: "2.0",
          id: i === 4 ? null : rpcId(req.body),
          error: {
            code: codes[i],
            message: `peer says ${codes[i]}`,
            data: [{
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "IGNORED_BY_CODE",
              domain: "a2a-protocol.org",
              metadata: { taskId: "t" }
            }]
          }
        })
      )
      const client = yield* jsonRpcClient(server.url, { retry: false })
      const tags: Array<string> = []
      for (let i = 0; i < codes.length; i++) {
        const error = yield* Effect.flip(client.getTask({ id: "t" }))
        tags.push(error._tag)
        expect(error.message).toBe(`peer says ${codes[i]}`)
      }
      expect(tags).toEqual([
        "TaskNotFound",
        "TaskNotCancelable",
        "UnsupportedOperation",
        "InvalidParams",
        "ParseError",
        "InternalError"
      ])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("JSON-RPC: an error event in a stream fails the stream with the tagged error", () =>
    Effect.gen(function*() {
      const server = yield* always((req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        const id = rpcId(req.body)
        const ok = { jsonrpc: "2.0", id, result: { task: task("t", "TASK_STATE_WORKING") } }
        const bad = { jsonrpc: "2.0", id, error: { code: -32001, message: "gone" } }
        res.end(`data: ${JSON.stringify(ok)}\n\ndata: ${JSON.stringify(bad)}\n\n`)
      })
      const client = yield* jsonRpcClient(server.url)
      const error = yield* Effect.flip(Stream.runCollect(client.subscribeToTask({ id: "t" })))
      expect(error._tag).toBe("TaskNotFound")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("REST: google.rpc.Status ErrorInfo reasons decide the tagged error", () =>
    Effect.gen(function*() {
      const cases = [
        [404, "TASK_NOT_FOUND"],
        [400, "TASK_NOT_CANCELABLE"],
        [400, "PUSH_NOTIFICATION_NOT_SUPPORTED"],
        [400, "VERSION_NOT_SUPPORTED"],
        [400, undefined]
      ] as const
      const server = yield* serve((_, res, i) => {
        const [status, reason] = cases[i]!
        json(res, status, {
          error: {
            code: status,
            status: "FAILED_PRECONDITION",
            message: `case ${i}`,
            details: reason === undefined
              ? []
              : [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" }]
          }
        }, "application/a2a+json")
      })
      const client = yield* restClient(server.url)
      const tags: Array<string> = []
      for (let i = 0; i < cases.length; i++) tags.push((yield* Effect.flip(client.cancelTask({ id: "t" })))._tag)
      expect(tags).toEqual([
        "TaskNotFound",
        "TaskNotCancelable",
        "PushNotificationNotSupported",
        "VersionNotSupported",
        "InvalidRequest"
      ])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("REST: an `event: error` in a stream fails it with the tagged error", () =>
    Effect.gen(function*() {
      const server = yield* always((_, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        const status = {
          error: {
            code: 400,
            status: "FAILED_PRECONDITION",
            message: "no more",
            details: [{
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "UNSUPPORTED_OPERATION",
              domain: "a2a-protocol.org"
            }]
          }
        }
        res.end(
          `data: ${JSON.stringify({ task: task("t", "TASK_STATE_WORKING") })}\n\nevent: error\ndata: ${
            JSON.stringify(status)
          }\n\n`
        )
      })
      const client = yield* restClient(server.url)
      const error = yield* Effect.flip(Stream.runCollect(client.sendStreamingMessage({ message: userText("x") })))
      expect(error._tag).toBe("UnsupportedOperation")
      expect(error.message).toBe("no more")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("401 / 403 without a protocol body -> Unauthenticated / PermissionDenied", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, res, i) => json(res, i === 0 ? 401 : 403, "nope", "text/plain"))
      const client = yield* restClient(server.url)
      expect((yield* Effect.flip(client.getTask({ id: "t" })))._tag).toBe("Unauthenticated")
      expect((yield* Effect.flip(client.getTask({ id: "t" })))._tag).toBe("PermissionDenied")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

describe("A2AClient: transport failures", () => {
  it.effect("connection refused -> A2ATransportError Unreachable", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(Effect.map(always((_, res) => res.end()), (s) => s.url))
      // The server is closed now: nothing listens on that port.
      const client = yield* jsonRpcClient(url, { retry: false })
      const error = yield* Effect.flip(client.getTask({ id: "t" }))
      if (error._tag !== "A2ATransportError") return expect.fail(`got ${error._tag}`)
      expect(error.reason).toBe("Unreachable")
      expect(error.message).toContain("ECONNREFUSED")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("a peer that never answers -> A2ATransportError Timeout (unary and stream)", () =>
    Effect.gen(function*() {
      const server = yield* always(() => {/* never answers */})
      const client = yield* jsonRpcClient(server.url, { timeout: "100 millis", retry: false })
      const unary = yield* Effect.flip(client.sendMessage({ message: userText("x") }))
      expect(unary._tag === "A2ATransportError" && unary.reason).toBe("Timeout")
      const stream = yield* Effect.flip(Stream.runCollect(client.sendStreamingMessage({ message: userText("x") })))
      expect(stream._tag === "A2ATransportError" && stream.reason).toBe("Timeout")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

describe("A2AClient: retries", () => {
  it.live("idempotent calls retry transient failures (503, then success)", () =>
    Effect.gen(function*() {
      const server = yield* serve((req, res, i) =>
        i < 2
          ? json(res, 503, "busy", "text/plain")
          : json(res, 200, { jsonrpc: "2.0", id: rpcId(req.body), result: task("t") })
      )
      const client = yield* jsonRpcClient(server.url, { retry: { times: 3, delay: "1 millis" } })
      const got = yield* client.getTask({ id: "t" })
      expect(got.id).toBe("t")
      expect(server.requests.length).toBe(3)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("sendMessage and cancelTask are never retried; protocol errors are never retried", () =>
    Effect.gen(function*() {
      const server = yield* serve((req, res, i) =>
        i < 2
          ? json(res, 503, "busy", "text/plain")
          : json(res, 200, { jsonrpc: "2.0", id: rpcId(req.body), error: { code: -32001, message: "gone" } })
      )
      const client = yield* jsonRpcClient(server.url, { retry: { times: 3, delay: "1 millis" } })
      expect((yield* Effect.flip(client.sendMessage({ message: userText("x") })))._tag).toBe("A2AResponseError")
      expect((yield* Effect.flip(client.cancelTask({ id: "t" })))._tag).toBe("A2AResponseError")
      expect((yield* Effect.flip(client.getTask({ id: "t" })))._tag).toBe("TaskNotFound")
      expect(server.requests.length).toBe(3)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
