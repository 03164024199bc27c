/**
 * Streams are consumed incrementally from the socket, respect backpressure, and interrupting the consumer
 * closes the HTTP connection. The peer is a hand-written node:http SSE server, so we see its side too.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import type { ServerResponse } from "node:http"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import { cardFor, rpcId, serve } from "./TestServer.ts"

const frame = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`

const status = (n: number, state = "TASK_STATE_WORKING") => ({
  statusUpdate: {
    taskId: "t1",
    contextId: "c1",
    status: { state, message: { messageId: `m${n}`, role: "ROLE_AGENT", parts: [{ text: String(n) }] } }
  }
})

const openStream = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  res.flushHeaders()
}

const clientFor = (url: string) =>
  A2AClient.make(cardFor([{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }]))

const numberOf = (event: unknown): number => {
  const e = event as { statusUpdate?: { status: { message?: { parts: Array<{ text?: string }> } } } }
  return Number(e.statusUpdate?.status.message?.parts[0]?.text ?? -1)
}

describe("A2AClient streaming", () => {
  it.live("consumes a slow 200-event stream incrementally, in order, ending at the terminal state", () =>
    Effect.gen(function*() {
      let produced = 0
      const firstSeen = yield* Deferred.make<void>()
      const server = yield* serve((req, res) => {
        const id = rpcId(req.body)
        openStream(res)
        res.write(frame(id, { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } }))
        produced = 1
        // The rest is produced only after the client has seen the first event: a client that buffered the
        // whole body would never see it, and this test would time out instead of passing.
        Effect.runFork(Effect.andThen(
          Deferred.await(firstSeen),
          Effect.sync(() => {
            const tick = () => {
              produced++
              const last = produced === 200
              res.write(frame(id, status(produced, last ? "TASK_STATE_COMPLETED" : "TASK_STATE_WORKING")))
              if (last) res.end()
              else setTimeout(tick, 1)
            }
            tick()
          })
        ))
      })
      const client = yield* clientFor(server.url)
      let producedAtFirst = -1
      const events = yield* client.sendStreamingMessage({ message: userText("go") }).pipe(
        Stream.tap((event) =>
          "task" in event
            ? Effect.andThen(Effect.sync(() => (producedAtFirst = produced)), Deferred.succeed(firstSeen, undefined))
            : Effect.void
        ),
        Stream.runCollect,
        Effect.timeout("10 seconds")
      )
      expect(producedAtFirst).toBe(1)
      expect(events.length).toBe(200)
      expect(events.slice(1).map(numberOf)).toEqual(Array.from({ length: 199 }, (_, i) => i + 2))
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("interrupting the consumer closes the HTTP connection", () =>
    Effect.gen(function*() {
      const closed = yield* Deferred.make<number>()
      let produced = 0
      const server = yield* serve((req, res) => {
        const id = rpcId(req.body)
        openStream(res)
        const timer = setInterval(() => {
          produced++
          res.write(
            frame(
              id,
              produced === 1 ? { task: { id: "t1", status: { state: "TASK_STATE_WORKING" } } } : status(produced)
            )
          )
        }, 2)
        res.on("close", () => {
          clearInterval(timer)
          Deferred.doneUnsafe(closed, Effect.succeed(produced))
        })
      })
      const client = yield* clientFor(server.url)
      const firstEvent = yield* Deferred.make<void>()
      const fiber = yield* client.sendStreamingMessage({ message: userText("go") }).pipe(
        Stream.tap(() => Deferred.succeed(firstEvent, undefined)),
        Stream.runDrain,
        Effect.forkChild
      )
      yield* Deferred.await(firstEvent)
      yield* Fiber.interrupt(fiber)
      const producedWhenClosed = yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))
      expect(producedWhenClosed).toBeGreaterThan(0)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("taking a prefix of the stream closes the connection too", () =>
    Effect.gen(function*() {
      const closed = yield* Deferred.make<void>()
      const server = yield* serve((req, res) => {
        const id = rpcId(req.body)
        openStream(res)
        let n = 0
        const timer = setInterval(() => res.write(frame(id, status(++n))), 2)
        res.on("close", () => {
          clearInterval(timer)
          Deferred.doneUnsafe(closed, Effect.void)
        })
      })
      const client = yield* clientFor(server.url)
      const events = yield* client.sendStreamingMessage({ message: userText("go") }).pipe(
        Stream.take(3),
        Stream.runCollect
      )
      expect(events.map(numberOf)).toEqual([1, 2, 3])
      yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("backpressure: a consumer that stops pulling stops the producer", () =>
    Effect.gen(function*() {
      // Resolved with how many events were written when the producer stalled (no "drain" for a while), or
      // with `total` if it managed to write everything: without backpressure 12.8 MB flow straight through.
      const outcome = yield* Deferred.make<number>()
      const total = 200
      const server = yield* serve((req, res) => {
        const id = rpcId(req.body)
        openStream(res)
        const padding = "x".repeat(64 * 1024)
        let n = 0
        const pump = () => {
          while (n < total) {
            n++
            if (!res.write(frame(id, { ...status(n), padding }))) {
              const stall = setTimeout(() => Deferred.doneUnsafe(outcome, Effect.succeed(n)), 300)
              res.once("drain", () => {
                clearTimeout(stall)
                pump()
              })
              return
            }
          }
          Deferred.doneUnsafe(outcome, Effect.succeed(total))
          res.end()
        }
        pump()
      })
      const client = yield* clientFor(server.url)
      const gate = yield* Deferred.make<void>()
      const fiber = yield* client.sendStreamingMessage({ message: userText("go") }).pipe(
        Stream.mapEffect((event) => Effect.as(Deferred.await(gate), event)),
        Stream.runDrain,
        Effect.forkChild
      )
      const written = yield* Deferred.await(outcome).pipe(Effect.timeout("20 seconds"))
      expect(written).toBeLessThan(total)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
