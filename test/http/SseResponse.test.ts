/**
 * Sse.open and the Hub, without HTTP: the first-event window (early failure -> plain error, later -> error
 * event), framing, keep-alive pings from the shared ticker, the end of open streams at shutdown, and the
 * interruption of the operation's stream when the request scope closes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Scope, Stream } from "effect"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import { TestClock } from "effect/testing"
import * as SseResponse from "../../src/http/internal/SseResponse.ts"
import { InternalError, TaskNotFound } from "../../src/protocol/A2AError.ts"

const decoder = new TextDecoder()

const options = {
  window: Duration.seconds(1),
  encode: (n: number) => SseResponse.frame(String(n)),
  encodeError: (e: { readonly message: string }) => SseResponse.frame(JSON.stringify(e.message), "error")
}

const hub = (keepAlive: Duration.Input = Duration.zero, shutdown: Effect.Effect<void> = Effect.never) =>
  SseResponse.makeHub({ keepAlive: Duration.fromInputUnsafe(keepAlive), shutdown })

const bodyOf = (response: HttpServerResponse.HttpServerResponse): Stream.Stream<string, unknown> => {
  if (response.body._tag !== "Stream") throw new Error(`expected a stream body, got ${response.body._tag}`)
  return response.body.stream.pipe(Stream.map((bytes) => decoder.decode(bytes)))
}

const ready = (opened: SseResponse.Opened) => {
  if (opened._tag !== "Ready") return assert.fail(`expected Ready, got ${opened._tag}`)
  assert.strictEqual(opened.response.headers["content-type"], "text/event-stream")
  return opened.response
}

const readAll = (opened: SseResponse.Opened) => Stream.runCollect(bodyOf(ready(opened))).pipe(Effect.map((c) => [...c]))

describe("Sse.open", () => {
  it.effect("frames every event, then ends with the stream", () =>
    Effect.gen(function*() {
      const opened = yield* SseResponse.open(yield* hub(), Stream.make(1, 2, 3), options)
      assert.deepStrictEqual(yield* readAll(opened), ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"])
    }).pipe(Effect.scoped))

  it.effect("a failure before the first event is Failed, with the operation's error", () =>
    Effect.gen(function*() {
      const error = new TaskNotFound({ message: "Task t not found" })
      const opened = yield* SseResponse.open(yield* hub(), Stream.fail(error), options)
      assert.strictEqual(opened._tag, "Failed")
      if (opened._tag === "Failed") assert.deepStrictEqual(Exit.failCause(opened.cause), Exit.fail(error))
    }).pipe(Effect.scoped))

  it.effect("a failure after an event is the last event, and the stream ends cleanly", () =>
    Effect.gen(function*() {
      const stream = Stream.concat(Stream.make(1), Stream.fail(new InternalError({ message: "boom" })))
      const opened = yield* SseResponse.open(yield* hub(), stream, options)
      assert.deepStrictEqual(yield* readAll(opened), ["data: 1\n\n", "event: error\ndata: \"boom\"\n\n"])
    }).pipe(Effect.scoped))

  it.effect("an empty stream is an empty event stream", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* readAll(yield* SseResponse.open(yield* hub(), Stream.empty, options)), [])
    }).pipe(Effect.scoped))

  it.effect("after the window the response is sent anyway; a later failure is an event, not an error response", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const stream = Stream.fromEffect(Deferred.await(gate)).pipe(
        Stream.flatMap(() => Stream.fail(new InternalError({ message: "late" })))
      )
      const opening = yield* Effect.forkChild(SseResponse.open(yield* hub(), stream, options))
      yield* TestClock.adjust("1 second")
      const opened = yield* Fiber.join(opening)
      yield* Deferred.succeed(gate, undefined)
      assert.deepStrictEqual(yield* readAll(opened), ["event: error\ndata: \"late\"\n\n"])
    }).pipe(Effect.scoped))

  it.effect("closing the request scope interrupts the operation's stream", () =>
    Effect.gen(function*() {
      const released = yield* Deferred.make<void>()
      const stream = Stream.concat(Stream.make(1), Stream.never).pipe(
        Stream.ensuring(Deferred.succeed(released, undefined))
      )
      const shared = yield* hub()
      const scope = yield* Scope.make()
      const opened = yield* SseResponse.open(shared, stream, options).pipe(Scope.provide(scope))
      ready(opened)
      assert.isFalse(yield* Deferred.isDone(released))
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* Deferred.isDone(released))
    }).pipe(Effect.scoped))
})

describe("Sse.makeHub", () => {
  it.effect("every open stream gets a ping per keep-alive interval, from one shared ticker", () =>
    Effect.gen(function*() {
      const shared = yield* hub("10 seconds")
      const bodies = yield* Effect.forEach(
        [1, 2],
        (n) => SseResponse.open(shared, Stream.concat(Stream.make(n), Stream.never), options).pipe(Effect.map(ready))
      )
      const reads = yield* Effect.forEach(
        bodies,
        (body) => Effect.forkChild(Stream.runCollect(Stream.take(bodyOf(body), 3)))
      )
      yield* TestClock.adjust("10 seconds")
      yield* TestClock.adjust("10 seconds")
      const got = yield* Effect.forEach(reads, Fiber.join)
      assert.deepStrictEqual(got.map((c) => [...c]), [
        ["data: 1\n\n", ": ping\n\n", ": ping\n\n"],
        ["data: 2\n\n", ": ping\n\n", ": ping\n\n"]
      ])
    }).pipe(Effect.scoped))

  it.effect("shutdown ends the open streams cleanly, and a stream opened afterwards ends at once", () =>
    Effect.gen(function*() {
      const signal = yield* Deferred.make<void>()
      const shared = yield* hub(Duration.zero, Deferred.await(signal))
      const before = yield* SseResponse.open(shared, Stream.concat(Stream.make(1), Stream.never), options)
      const reading = yield* Effect.forkChild(readAll(before))
      yield* Deferred.succeed(signal, undefined)
      assert.deepStrictEqual(yield* Fiber.join(reading), ["data: 1\n\n"])
      const after = yield* SseResponse.open(shared, Stream.concat(Stream.make(2), Stream.never), options)
      assert.deepStrictEqual(yield* readAll(after), ["data: 2\n\n"])
    }).pipe(Effect.scoped))
})
