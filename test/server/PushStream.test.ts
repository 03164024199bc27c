/**
 * PushStream: read as a Stream it behaves as one; `run` delivers a PushStream straight into a sink (during the
 * attach, no fiber) and any other Stream through a fiber; `map` keeps a PushStream one and never lets its
 * function throw into the producer. The in-process EventBus subscription is one, buffering until attached.
 * `produce` streams: `runForEachWhile` runs their producer in its own fiber and ends as Stream.runForEachWhile does
 * (the same stream read the Stream way is the reference); `runBatchesWhile` reads them in batches as Stream.chunks
 * of a Stream.buffer does, and stops their producer wherever it waits.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Stream } from "effect"
import { InternalError } from "../../src/protocol/A2AError.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as PushStream from "../../src/server/internal/PushStream.ts"

type Seen = Array<string>

const recorder = <A>(seen: Seen): PushStream.Sink<A> => ({
  offer: (event) => void seen.push(`offer ${String(event)}`),
  fail: (cause) => void seen.push(`fail ${Cause.pretty(cause).split("\n")[0]}`),
  end: () => void seen.push("end")
})

const threeThenEnd = PushStream.make<number>((sink) =>
  Effect.sync(() => {
    sink.offer(1)
    sink.offer(2)
    sink.offer(3)
    sink.end()
  })
)

describe("PushStream", () => {
  it.effect("read as a Stream: its events, then its end or its failure", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual([...yield* Stream.runCollect(threeThenEnd)], [1, 2, 3])
      const failing = PushStream.make<number>((sink) =>
        Effect.sync(() => {
          sink.offer(1)
          sink.fail(Cause.fail(new InternalError({ message: "boom" })))
        })
      )
      const exit = yield* Effect.exit(Stream.runCollect(failing))
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(
        yield* Effect.exit(Stream.runCollect(PushStream.fail(new InternalError({ message: "x" })))),
        Exit.fail(new InternalError({ message: "x" }))
      )
    }))

  it.effect("run delivers a PushStream during the attach, and a plain Stream through a fiber", () =>
    Effect.gen(function*() {
      const direct: Seen = []
      yield* PushStream.run(threeThenEnd, recorder(direct))
      assert.deepStrictEqual(direct, ["offer 1", "offer 2", "offer 3", "end"])

      const pulled: Seen = []
      yield* PushStream.run(Stream.make(1, 2), recorder(pulled))
      yield* Effect.yieldNow
      assert.deepStrictEqual(pulled, ["offer 1", "offer 2", "end"])
    }).pipe(Effect.scoped))

  it.effect("a failed attach reaches the sink as a failure", () =>
    Effect.gen(function*() {
      const seen: Seen = []
      yield* PushStream.run(PushStream.fail(new InternalError({ message: "no" })), recorder(seen))
      assert.strictEqual(seen.length, 1)
      assert.match(seen[0]!, /^fail .*no/)
    }).pipe(Effect.scoped))

  it.effect("both push forms are whole Streams: recognised, piped through operators, read more than once", () =>
    Effect.gen(function*() {
      const produced = PushStream.produce<number, never>((emit) =>
        Effect.andThen(emit(1), Effect.andThen(emit(2), emit(3)))
      )
      for (const stream of [threeThenEnd, produced]) {
        assert.isTrue(Stream.isStream(stream))
        const doubled = stream.pipe(Stream.map((n) => n * 2), Stream.take(2))
        assert.deepStrictEqual([...yield* Stream.runCollect(doubled)], [2, 4])
        // Each reading builds the Stream anew: a second one sees every event again.
        assert.deepStrictEqual([...yield* Stream.runCollect(stream)], [1, 2, 3])
        assert.deepStrictEqual([...yield* Stream.runCollect(stream)], [1, 2, 3])
      }
    }))

  it.effect("map keeps a PushStream one; a throwing function fails the stream instead of its producer", () =>
    Effect.gen(function*() {
      const doubled: Seen = []
      yield* PushStream.run(PushStream.map(threeThenEnd, (n) => n * 2), recorder(doubled))
      assert.deepStrictEqual(doubled, ["offer 2", "offer 4", "offer 6", "end"])

      const thrown: Seen = []
      const throwing = PushStream.map(threeThenEnd, (n) => {
        if (n === 2) throw new Error("bad event")
        return n
      })
      // The producer (the attach) completes normally: the defect went to the sink.
      yield* PushStream.run(throwing, recorder(thrown))
      assert.strictEqual(thrown[0], "offer 1")
      assert.match(thrown[1]!, /^fail .*bad event/)
    }).pipe(Effect.scoped))

  it.effect("an EventBus subscription keeps the events published before its reader attached, in order", () =>
    Effect.gen(function*() {
      const bus = yield* EventBus.makeInProcess
      const events = yield* bus.subscribe("t")
      const event = (sequence: number): EventBus.TaskEvent => ({
        taskId: "t",
        sequence,
        event: { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } }
      })
      yield* bus.publish(event(1))
      yield* bus.publish(event(2))
      const seen: Array<number> = []
      yield* PushStream.run(events, {
        offer: (e) => void seen.push(e.sequence),
        fail: () => void seen.push(-1),
        end: () => void seen.push(0)
      })
      yield* bus.publish(event(3))
      assert.deepStrictEqual(seen, [1, 2, 3])
    }).pipe(Effect.scoped))
})

/** A producer of 1..4 recording what it emitted, whether its finalizer ran, and the fiber it ran in. */
const counting = () => {
  const log = { emitted: [] as Array<number>, finalized: false, fiber: -1 }
  const stream = PushStream.produce<number, string>((emit) =>
    Effect.gen(function*() {
      log.fiber = yield* Effect.fiberId
      for (let n = 1; n <= 4; n++) {
        log.emitted.push(n)
        yield* emit(n)
      }
      return yield* Effect.fail("producer failed")
    }).pipe(Effect.ensuring(Effect.sync(() => (log.finalized = true))))
  )
  return { log, stream }
}

describe("PushStream.produce", () => {
  // Each reader step: keep going while `step` says so, or fail with it.
  const readers = {
    all: (_: number) => Effect.succeed(true),
    untilTwo: (n: number) => Effect.succeed(n < 2),
    failAtTwo: (n: number) => n === 2 ? Effect.fail("reader failed") : Effect.succeed(true)
  }

  for (const [name, step] of Object.entries(readers)) {
    it.effect(`runForEachWhile runs the producer in the reader's fiber, ending as a stream read would (${name})`, () =>
      Effect.gen(function*() {
        const pushed = counting()
        const seenPushed: Array<number> = []
        const pushedExit = yield* Effect.exit(
          PushStream.runForEachWhile(
            pushed.stream,
            (n) => Effect.andThen(Effect.sync(() => seenPushed.push(n)), step(n))
          )
        )
        const pulled = counting()
        const seenPulled: Array<number> = []
        const pulledExit = yield* Effect.exit(
          Stream.runForEachWhile(pulled.stream, (n) => Effect.andThen(Effect.sync(() => seenPulled.push(n)), step(n)))
        )
        assert.deepStrictEqual(seenPushed, seenPulled)
        assert.deepStrictEqual(pushedExit, pulledExit)
        assert.deepStrictEqual(pushed.log.emitted, seenPushed, "the producer stops at the step that ends the reading")
        assert.isTrue(pushed.log.finalized)
        assert.isTrue(pulled.log.finalized)
        assert.strictEqual(pushed.log.fiber, yield* Effect.fiberId)
        assert.notStrictEqual(pulled.log.fiber, yield* Effect.fiberId)
      }))
  }

  it.effect("a producer that goes on emitting after its reader stopped is interrupted again", () =>
    Effect.gen(function*() {
      const emitted: Array<number> = []
      const stubborn = PushStream.produce<number, never>((emit) =>
        Effect.gen(function*() {
          for (let n = 1; n <= 3; n++) {
            emitted.push(n)
            // Swallowing the interruption does not let it past the end of the reading.
            yield* Effect.catchCause(emit(n), () => Effect.void)
          }
        })
      )
      const seen: Array<number> = []
      yield* PushStream.runForEachWhile(stubborn, (n) => Effect.sync(() => seen.push(n) < 1))
      assert.deepStrictEqual(seen, [1])
      assert.deepStrictEqual(emitted, [1, 2, 3])
      // A reader that failed still fails, though the producer went on and returned.
      const failed = yield* Effect.exit(PushStream.runForEachWhile(stubborn, () => Effect.fail("store failed")))
      assert.deepStrictEqual(failed, Exit.fail("store failed"))
    }))

  // --- runBatchesWhile ---

  const numbersTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

  /** A producer emitting 1..n, then failing with "boom" when asked; `emitted` counts the emits that returned. */
  const emitting = (n: number, failAtEnd: boolean) => {
    const counter = { emitted: 0 }
    const stream = PushStream.produce<number, InternalError>((emit) =>
      Effect.gen(function*() {
        for (let i = 1; i <= n; i++) {
          yield* emit(i)
          counter.emitted++
        }
        if (failAtEnd) return yield* new InternalError({ message: "boom" })
      })
    )
    return { counter, stream }
  }

  it.effect("runBatchesWhile: every event in order, in batches of at most its capacity, then the producer's failure", () =>
    Effect.gen(function*() {
      const { stream } = emitting(10, true)
      const batches: Array<ReadonlyArray<number>> = []
      const error = yield* PushStream.runBatchesWhile(
        stream,
        4,
        (batch) => Effect.as(Effect.andThen(Effect.sync(() => batches.push(batch)), Effect.yieldNow), true)
      ).pipe(Effect.flip)
      assert.strictEqual(error.message, "boom")
      assert.deepStrictEqual(batches.flat(), numbersTo(10))
      for (const batch of batches) assert.isAtMost(batch.length, 4)
      assert.isAtLeast(batches.length, 3)
      // A plain Stream goes through Stream.buffer: the same events.
      const plain: Array<number> = []
      yield* PushStream.runBatchesWhile(
        Stream.fromIterable(numbersTo(10)),
        4,
        (batch) => Effect.sync(() => plain.push(...batch) > 0)
      )
      assert.deepStrictEqual(plain, numbersTo(10))
    }))

  it.effect("runBatchesWhile: what a producer emits while a batch is read is taken in one batch, up to the capacity", () =>
    Effect.gen(function*() {
      const { counter, stream } = emitting(50, false)
      const ahead: Array<number> = []
      const sizes: Array<number> = []
      let read = 0
      yield* PushStream.runBatchesWhile(stream, 8, (batch) =>
        Effect.gen(function*() {
          read += batch.length
          sizes.push(batch.length)
          // Busy with this batch (a save in flight): the producer goes on meanwhile, until the buffer is full.
          for (let i = 0; i < 50; i++) yield* Effect.yieldNow
          ahead.push(counter.emitted - read)
          return true
        }))
      assert.strictEqual(read, 50)
      assert.isAtMost(Math.max(...ahead), 8)
      assert.isAbove(Math.max(...ahead), 0)
      // Coalesced: fewer batches than events, the later ones full.
      assert.isBelow(sizes.length, 50)
      assert.strictEqual(Math.max(...sizes), 8)
    }))

  it.effect("runBatchesWhile: a lone event is read at once, with nothing waiting after it", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const stream = PushStream.produce<number, never>((emit) =>
        Effect.andThen(emit(1), Effect.andThen(Deferred.await(release), emit(2)))
      )
      const batches: Array<ReadonlyArray<number>> = []
      yield* PushStream.runBatchesWhile(stream, 8, (batch) =>
        Effect.as(
          Effect.andThen(
            Effect.sync(() => batches.push(batch)),
            // The producer waits for this: the first batch was read without it.
            batches.length === 0 ? Deferred.succeed(release, undefined) : Effect.void
          ),
          true
        ))
      assert.deepStrictEqual(batches, [[1], [2]])
    }))

  it.effect("runBatchesWhile: once the reader is done, a producer waiting elsewhere is interrupted, its finalizers run", () =>
    Effect.gen(function*() {
      const finalized = yield* Deferred.make<void>()
      const never = yield* Deferred.make<void>()
      const stream = PushStream.produce<number, never>((emit) =>
        Effect.andThen(emit(1), Effect.andThen(emit(2), Deferred.await(never))).pipe(
          Effect.ensuring(Deferred.succeed(finalized, undefined))
        )
      )
      const taken: Array<number> = []
      yield* PushStream.runBatchesWhile(stream, 8, (batch) => Effect.sync(() => taken.push(...batch) < 2))
      assert.isTrue(yield* Deferred.isDone(finalized))
      assert.deepStrictEqual(taken, [1, 2])
      // The reader failing stops it the same way, and its failure is the outcome.
      const again = yield* Deferred.make<void>()
      const failing = PushStream.produce<number, never>((emit) =>
        Effect.andThen(emit(1), Deferred.await(never)).pipe(Effect.ensuring(Deferred.succeed(again, undefined)))
      )
      const exit = yield* Effect.exit(PushStream.runBatchesWhile(failing, 8, () => Effect.fail("store failed")))
      assert.deepStrictEqual(exit, Exit.fail("store failed"))
      assert.isTrue(yield* Deferred.isDone(again))
    }))

  it.effect("runBatchesWhile: interrupted, it lets the batch being read finish and drops what waits", () =>
    Effect.gen(function*() {
      const reading = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      const { stream } = emitting(20, false)
      const taken: Array<ReadonlyArray<number>> = []
      const fiber = yield* PushStream.runBatchesWhile(
        stream,
        4,
        (batch) =>
          Effect.uninterruptible(Effect.gen(function*() {
            yield* Deferred.succeed(reading, undefined)
            yield* Deferred.await(finish)
            taken.push(batch)
            return true
          }))
      ).pipe(Effect.forkChild)
      yield* Deferred.await(reading)
      const interrupted = yield* Effect.forkChild(Fiber.interrupt(fiber))
      yield* Effect.yieldNow
      yield* Deferred.succeed(finish, undefined)
      yield* Fiber.join(interrupted)
      // The batch in progress was read to its end; nothing after it.
      assert.strictEqual(taken.length, 1)
      assert.strictEqual(taken[0]![0], 1)
    }))
})
