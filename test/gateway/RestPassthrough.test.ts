/**
 * RestPassthrough: a plain JSON endpoint on node:http (127.0.0.1) served as an A2A agent by our server, called by
 * our client. The endpoint sees the raw body (no envelope) and the configured headers; its raw response is the reply;
 * its failures (non-2xx, no answer in time, not reachable) are failed tasks that say so without the endpoint's URL
 * or credentials; the card says it is a passthrough.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, type Scope, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import * as RestPassthrough from "../../src/gateway/RestPassthrough.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import { json, type Recorded, serve } from "../client/TestServer.ts"

const SECRET = "k-123-secret"

/** Our server with a passthrough agent to `url`, on 127.0.0.1 and an ephemeral port. */
const passthrough = (options: RestPassthrough.Options): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(
        Layer.unwrap(
          Effect.map(
            RestPassthrough.executor(options),
            (executor) => A2AServer.layer({ card: RestPassthrough.card({ name: "scorer" }), executor })
          )
        )
      ),
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    return `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
  })

/** An endpoint answering with what `answer` says, recording what it received. */
const endpoint = (answer: (request: Recorded) => { status: number; body: string; contentType?: string }) =>
  serve((request, res) => {
    const { body, contentType, status } = answer(request)
    json(res, status, body, contentType ?? "application/json")
  })

const dataMessage = (data: unknown): v1.Message => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  role: "ROLE_USER",
  parts: [{ data }]
})

const replyOf = (response: v1.SendMessageResponse): v1.Message => {
  if (!("message" in response)) throw new Error(`expected a message, got ${JSON.stringify(response)}`)
  return response.message
}

const failedText = (response: v1.SendMessageResponse): string => {
  if (!("task" in response)) throw new Error(`expected a task, got ${JSON.stringify(response)}`)
  expect(response.task.status.state).toBe("TASK_STATE_FAILED")
  const part = response.task.status.message?.parts[0]
  return part !== undefined && "text" in part ? part.text : ""
}

describe("RestPassthrough", () => {
  it.effect("a data part is POSTed as the raw body with the headers; a JSON response is the reply's data part", () =>
    Effect.gen(function*() {
      const upstream = yield* endpoint((request) => ({
        status: 200,
        body: JSON.stringify({ score: 0.9, echoed: JSON.parse(request.body) as unknown })
      }))
      const url = yield* passthrough({ url: `${upstream.url}/score?x=1`, headers: { "x-api-key": SECRET } })
      const client = yield* A2AClient.resolve(url)
      const reply = replyOf(yield* client.sendMessage({ message: dataMessage({ order: 42, items: ["a", "b"] }) }))
      expect(reply.parts).toEqual([{
        data: { score: 0.9, echoed: { order: 42, items: ["a", "b"] } },
        mediaType: "application/json"
      }])

      const received = upstream.requests[0]!
      expect(received.method).toBe("POST")
      expect(received.url).toBe("/score?x=1")
      expect(received.body).toBe("{\"order\":42,\"items\":[\"a\",\"b\"]}")
      expect(received.headers["content-type"]).toBe("application/json")
      expect(received.headers["x-api-key"]).toBe(SECRET)

      // Streaming works the same: the one reply.
      const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: dataMessage([1, 2]) }))
      expect(events).toHaveLength(1)
      expect("message" in events[0]! && events[0].message.parts).toEqual([
        { data: { score: 0.9, echoed: [1, 2] }, mediaType: "application/json" }
      ])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("text is sent as it is when it is JSON, as a JSON string otherwise; a non-JSON answer is text", () =>
    Effect.gen(function*() {
      const upstream = yield* endpoint((request) => ({
        status: 200,
        body: `got ${request.body}`,
        contentType: "text/plain; charset=utf-8"
      }))
      const client = yield* A2AClient.resolve(yield* passthrough({ url: upstream.url }))
      const json = replyOf(yield* client.sendMessage({ message: userText("{\"order\": 7}") }))
      expect(upstream.requests[0]!.body).toBe("{\"order\": 7}")
      expect(json.parts).toEqual([{ text: "got {\"order\": 7}", mediaType: "text/plain" }])
      const plain = replyOf(yield* client.sendMessage({ message: userText("hello \"world\"") }))
      expect(upstream.requests[1]!.body).toBe("\"hello \\\"world\\\"\"")
      expect(plain.parts).toEqual([{ text: "got \"hello \\\"world\\\"\"", mediaType: "text/plain" }])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("a non-2xx answer is a failed task with the status and body, never the URL or the credentials", () =>
    Effect.gen(function*() {
      const upstream = yield* endpoint(() => ({ status: 503, body: "{\"error\":\"overloaded\"}" }))
      const client = yield* A2AClient.resolve(
        yield* passthrough({ url: `${upstream.url}/internal/path`, headers: { authorization: `Bearer ${SECRET}` } })
      )
      const response = yield* client.sendMessage({ message: dataMessage({ a: 1 }) })
      const text = failedText(response)
      expect(text).toBe("The endpoint answered HTTP 503: {\"error\":\"overloaded\"}")
      // The failed task is stored: the client reads it back.
      if (!("task" in response)) return
      const read = yield* client.getTask({ id: response.task.id })
      expect(read.status.state).toBe("TASK_STATE_FAILED")
      const everything = JSON.stringify(read)
      expect(everything).not.toContain(SECRET)
      expect(everything).not.toContain("/internal/path")
      expect(everything).not.toContain(upstream.url)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  // live: the timeout runs on the real clock
  it.live("an endpoint that never answers fails the task within the timeout; one not listening fails it too", () =>
    Effect.gen(function*() {
      const silent = yield* serve(() => {}) // never answers
      const client = yield* A2AClient.resolve(yield* passthrough({ url: silent.url, timeout: "300 millis" }))
      const started = Date.now()
      const text = failedText(yield* client.sendMessage({ message: dataMessage({ a: 1 }) }))
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(text).toBe("The endpoint did not answer within 300ms")

      // A port that nothing listens on: the one of a server closed again.
      const closed = yield* Effect.scoped(Effect.map(serve(() => {}), (s) => s.url))
      const unreachable = yield* A2AClient.resolve(yield* passthrough({ url: `${closed}/x` }))
      const down = failedText(yield* unreachable.sendMessage({ message: dataMessage({ a: 1 }) }))
      expect(down).toMatch(/^The endpoint could not be reached: /)
      expect(down).not.toContain(closed)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.effect("a message with neither data nor text is InvalidParams; the card says it is a passthrough", () =>
    Effect.gen(function*() {
      const upstream = yield* endpoint(() => ({ status: 200, body: "{}" }))
      const client = yield* A2AClient.resolve(yield* passthrough({ url: `${upstream.url}/secret-path` }))
      const error = yield* Effect.flip(client.sendMessage({
        message: { messageId: "f", role: "ROLE_USER", parts: [{ url: "https://example.com/a.png" }] }
      }))
      expect(error._tag).toBe("InvalidParams")
      expect(upstream.requests).toHaveLength(0)

      expect(client.card.capabilities.extensions).toContainEqual(
        expect.objectContaining({ uri: RestPassthrough.EXTENSION_URI, required: false })
      )
      expect(client.card.skills.map((skill) => skill.tags)).toEqual([[RestPassthrough.TAG]])
      expect(client.card.description).toContain("passthrough")
      expect(JSON.stringify(client.card)).not.toContain("secret-path")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
