/**
 * Node's native body reader on a real server on 127.0.0.1: once it has read a request's body it lets go of the
 * request (an open stream lives on with it, and the reader's listeners would keep the body's chunks for as long),
 * and a later "error" on the request is still taken, not thrown.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NetAddress from "effect/net/NetAddress"
import { createServer, IncomingMessage } from "node:http"
import * as NodeNativeHttp from "../../src/node/NodeNativeHttp.ts"
import * as TestServer from "../http/fixtures/TestServer.ts"

const EVENTS = ["data", "end", "error", "close"] as const

const listeners = (source: IncomingMessage) =>
  Object.fromEntries(EVENTS.map((event) => [event, source.listenerCount(event)]))

const readAndInspect = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const source = request.source
  const read = NodeNativeHttp.service.readBody(request, 1024)
  if (!(source instanceof IncomingMessage) || read === undefined) {
    return HttpServerResponse.text("no native body reader", { status: 500 })
  }
  const before = listeners(source)
  const body = yield* read.pipe(Effect.orElseSucceed(() => "unreadable"))
  const after = listeners(source)
  // `emit` returns whether a listener took it; without one an "error" would be thrown here.
  const lateErrorTaken = source.emit("error", new Error("late"))
  return yield* HttpServerResponse.json({ body, before, after, lateErrorTaken })
})

describe("NodeNativeHttp.readBody", () => {
  it.live("lets go of the request once its body is read, and still takes a later error", () =>
    Effect.gen(function*() {
      const server = HttpRouter.serve(HttpRouter.add("POST", "/read", readAndInspect), { disableLogger: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
        Layer.provide(Logger.layer([]))
      )
      const context = yield* Layer.build(server)
      const address = Context.get(context, HttpServer.HttpServer).address
      const base = `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`

      const reply = yield* TestServer.request(`${base}/read`, { method: "POST", body: "hello body" })
      assert.strictEqual(reply.status, 200)
      const { after, before, body, lateErrorTaken } = reply.json as {
        body: string
        before: Record<string, number>
        after: Record<string, number>
        lateErrorTaken: boolean
      }
      assert.strictEqual(body, "hello body")
      // None of the reader's listeners is left but the one "error" listener that stands in for them.
      assert.deepStrictEqual(after, { ...before, error: before.error! + 1 })
      assert.isTrue(lateErrorTaken)
    }).pipe(Effect.scoped))
})
