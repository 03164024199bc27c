/**
 * StreamSources: the streams the public services make are ordinary Streams to any Stream operator (their events,
 * their end or failure), keep how they are fed for the engine and the bindings alone (a stream derived from one
 * is a plain Stream), and start feeding only when read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import * as StreamSources from "../../src/server/internal/StreamSources.ts"

describe("StreamSources", () => {
  it.effect("delivering: read as a Stream, what the source delivers, its end; attached only once read", () =>
    Effect.gen(function*() {
      let attached = 0
      const stream = StreamSources.delivering<number, string>((sink) =>
        Effect.sync(() => {
          attached++
          sink.offer(1)
          sink.offer(2)
          sink.end()
        })
      )
      const mapped = Stream.map(stream, (n) => n * 10)
      assert.strictEqual(attached, 0)
      assert.deepStrictEqual([...yield* Stream.runCollect(mapped)], [10, 20])
      assert.strictEqual(attached, 1)
      assert.isDefined(StreamSources.attachOf(stream))
      assert.isUndefined(StreamSources.attachOf(mapped))
      assert.isUndefined(StreamSources.producerOf(stream))
      const failing = StreamSources.delivering<number, string>(() => Effect.fail("no"))
      assert.deepStrictEqual(yield* Effect.exit(Stream.runCollect(failing)), Exit.fail("no"))
    }))

  it.effect("emitting: read as a Stream, what the producer emits, then its failure; run only once read", () =>
    Effect.gen(function*() {
      let runs = 0
      const stream = StreamSources.emitting<number, string>((emit) =>
        Effect.gen(function*() {
          runs++
          yield* emit(1)
          yield* emit(2)
          return yield* Effect.fail("done badly")
        })
      )
      assert.strictEqual(runs, 0)
      const seen: Array<number> = []
      const exit = yield* Effect.exit(Stream.runForEach(stream, (n) => Effect.sync(() => seen.push(n))))
      assert.deepStrictEqual(seen, [1, 2])
      assert.deepStrictEqual(exit, Exit.fail("done badly"))
      assert.strictEqual(runs, 1)
      assert.isDefined(StreamSources.producerOf(stream))
      assert.isUndefined(StreamSources.producerOf(Stream.take(stream, 1)))
      assert.isUndefined(StreamSources.attachOf(stream))
      assert.deepStrictEqual([...yield* Stream.runCollect(Stream.take(stream, 1))], [1])
    }))
})
