/**
 * How the engine and the HTTP bindings read the server's streams without pulling them. Every event of the server
 * (an agent's, an execution's, the EventBus's, an SSE response's) is an ordinary `Stream`; those a source feeds
 * (StreamSources: `delivering`, `emitting`) also keep how they are fed, and a reader here uses that instead:
 * - `run` attaches a sink to a delivering stream for as long as the reader's scope lasts: an idle SSE subscriber
 *   then costs one small sink object, no fiber nor queue (Effect's PubSub or Stream.callback would hold a queue
 *   and a pumping fiber per subscriber);
 * - `runForEachWhile` runs an emitting stream's producer in the reader's fiber, each `emit` waiting for the
 *   reader's step: an agent's TaskUpdater work runs in the execution's own fiber, each event saved before the next
 *   is made (read as a Stream it needs a producer fiber and a queue per execution);
 * - `runBatchesWhile` runs an emitting stream's producer ahead of its reader in a fiber of its own, feeding a plain
 *   array the reader takes whole at each step: the batches a store that coalesces saves needs, without the queue,
 *   scope and channels a buffered Stream would add per execution.
 *
 * Both take any Stream and read it the Stream way when it carries no such form. Why not pull: Effect's Stream is
 * pulled (Stream.fromPull, channels), and a producer that calls `emit` can only be pulled if it is suspended
 * between its events, which takes a fiber of its own and a queue between the two (Stream.callback, PubSub):
 * exactly the cost these readers avoid.
 *
 * Only the engine and the bindings read streams here; the public services make theirs with StreamSources.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { A2AError } from "../../protocol/A2AError.ts"
import * as StreamSources from "./StreamSources.ts"

export type { Attach, Emit, Producer, Sink } from "./StreamSources.ts"
export { producerOf, queueSink } from "./StreamSources.ts"

/**
 * The stream of what `attach` delivers (StreamSources.delivering).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A, E = A2AError>(attach: StreamSources.Attach<A, E>): Stream.Stream<A, E> =>
  StreamSources.delivering(attach)

/**
 * The stream of the events `producer` emits (StreamSources.emitting).
 *
 * @since 0.1.0
 * @category constructors
 */
export const produce = <A, E>(producer: StreamSources.Producer<A, E>): Stream.Stream<A, E> =>
  StreamSources.emitting(producer)

/**
 * A delivering stream failing at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fail = <E>(error: E): Stream.Stream<never, E> => make(() => Effect.fail(error))

/**
 * Delivers `self` into `sink` for as long as the scope lasts: directly for a delivering stream, otherwise through
 * a fiber (forked in the scope) that pulls it. Every outcome reaches the sink, a failure to attach included.
 *
 * @since 0.1.0
 * @category readers
 */
export const run = <A, E>(
  self: Stream.Stream<A, E>,
  sink: StreamSources.Sink<A, E>
): Effect.Effect<void, never, Scope.Scope> => {
  const attach = StreamSources.attachOf(self)
  if (attach !== undefined) return Effect.catchCause(attach(sink), (cause) => Effect.sync(() => sink.fail(cause)))
  // Sinks may be class instances: their methods are called on them, never detached.
  return self.pipe(
    Stream.runForEachArray((events) =>
      Effect.sync(() => {
        for (const event of events) sink.offer(event)
      })
    ),
    Effect.matchCause({ onSuccess: () => sink.end(), onFailure: (cause) => sink.fail(cause) }),
    Effect.forkScoped,
    Effect.asVoid
  )
}

/**
 * A sink taking `A`s into one taking `B`s; `f` throwing fails the sink instead of its producer.
 *
 * @since 0.1.0
 * @category sinks
 */
export const mapInput = <A, B, E>(sink: StreamSources.Sink<B, E>, f: (event: A) => B): StreamSources.Sink<A, E> =>
  new Mapped(sink, f)

/**
 * Like Stream.map, keeping a delivering stream one.
 *
 * @since 0.1.0
 * @category combinators
 */
export const map = <A, E, B>(self: Stream.Stream<A, E>, f: (event: A) => B): Stream.Stream<B, E> => {
  const attach = StreamSources.attachOf(self)
  return attach === undefined ? Stream.map(self, f) : make<B, E>((sink) => attach(mapInput(sink, f)))
}

// A class, not closures: an idle stream holds its sinks for as long as it is open.
class Mapped<A, B, E> implements StreamSources.Sink<A, E> {
  readonly sink: StreamSources.Sink<B, E>
  readonly f: (event: A) => B
  constructor(sink: StreamSources.Sink<B, E>, f: (event: A) => B) {
    this.sink = sink
    this.f = f
  }
  offer(event: A): void {
    let mapped: B
    try {
      mapped = this.f(event)
    } catch (defect) {
      return this.sink.fail(Cause.die(defect))
    }
    this.sink.offer(mapped)
  }
  fail(cause: Cause.Cause<E>): void {
    this.sink.fail(cause)
  }
  end(): void {
    this.sink.end()
  }
}

/**
 * Like Stream.unwrap (the effect runs when the stream starts), giving a delivering stream.
 *
 * @since 0.1.0
 * @category constructors
 */
export const unwrap = <A, E>(
  effect: Effect.Effect<Stream.Stream<A, E>, E, Scope.Scope>
): Stream.Stream<A, E> => make((sink) => Effect.flatMap(effect, (stream) => run(stream, sink)))

/**
 * Reads `self` in batches, as `Stream.runForEachWhile(Stream.chunks(Stream.buffer(self, { capacity })), f)` does: `self` runs
 * ahead of `f` by up to `capacity` events, and each call of `f` takes every event waiting then, at least one, never
 * waiting for more. For an emitting stream, without a Stream: its producer runs in a fiber of its own feeding a
 * plain array that this fiber takes whole, which costs a fiber and a small object per reading rather than a queue,
 * a scope and the channels of Stream.callback, Stream.chunks and Stream.runForEachWhile. Once `f` answers false or
 * fails, or this fiber is interrupted (never during `f` when `f` is uninterruptible), the producer is interrupted,
 * whatever it is doing, and the events it emitted that `f` did not take go with it; a failure of the producer is
 * read after the events it emitted before it.
 *
 * @since 0.2.0
 * @category readers
 */
export const runBatchesWhile = <A, E, E2>(
  self: Stream.Stream<A, E>,
  capacity: number,
  f: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2>
): Effect.Effect<void, E | E2> => {
  const producer = StreamSources.producerOf(self)
  if (producer === undefined) return Stream.runForEachWhile(Stream.chunks(Stream.buffer(self, { capacity })), f)
  return Effect.uninterruptibleMask((restore) => {
    const ahead = new RunAhead<A, E>(capacity)
    return Effect.flatMap(
      Effect.forkDetach(ahead.produce(producer)),
      (fiber) => Effect.ensuring(restore(ahead.read(f)), Fiber.interrupt(fiber))
    )
  })
}

/**
 * One `runBatchesWhile` of a producer: the events emitted and not yet taken, and who waits (the reader for an
 * event, a producer for room). A class: an idle agent holds it for as long as it waits.
 */
class RunAhead<A, E> {
  private readonly capacity: number
  private waiting: Array<A> = []
  /** How the producer ended, once it has. */
  private exit: Exit.Exit<void, E> | undefined = undefined
  /** The reader, while it waits for an event or the producer's end. */
  private reader: ((effect: Effect.Effect<void>) => void) | undefined = undefined
  /** Producers waiting for room, while the buffer is full. */
  private writers: Array<(effect: Effect.Effect<void>) => void> | undefined = undefined

  constructor(capacity: number) {
    this.capacity = capacity
  }

  // The reader resumes after a yield, not in the producer's call: what the producer emits before it waits (a
  // task and its first status, a burst of chunks) is then taken in one batch.
  private wake(): void {
    const reader = this.reader
    if (reader === undefined) return
    this.reader = undefined
    reader(Effect.yieldNow)
  }

  private offer(event: A): Effect.Effect<void> {
    if (this.waiting.length < this.capacity) {
      this.waiting.push(event)
      this.wake()
      return Effect.void
    }
    // Full: wait until the reader takes what waits, then try again.
    return Effect.andThen(
      Effect.callback<void>((resume) => {
        const writers = this.writers ??= []
        writers.push(resume)
        return Effect.sync(() => {
          const at = writers.indexOf(resume)
          if (at >= 0) writers.splice(at, 1)
        })
      }),
      Effect.suspend(() => this.offer(event))
    )
  }

  readonly emit: StreamSources.Emit<A> = (event) => Effect.suspend(() => this.offer(event))

  produce(producer: StreamSources.Producer<A, E>): Effect.Effect<void> {
    return Effect.onExit(
      Effect.asVoid(producer(this.emit)),
      (exit) =>
        Effect.sync(() => {
          this.exit = exit
          this.wake()
        })
    ).pipe(Effect.ignoreCause)
  }

  read<E2>(f: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2>): Effect.Effect<void, E | E2> {
    const next: Effect.Effect<void, E | E2> = Effect.suspend(() => {
      if (this.waiting.length > 0) {
        const batch = this.waiting
        this.waiting = []
        const writers = this.writers
        if (writers !== undefined) {
          this.writers = undefined
          for (const writer of writers) writer(Effect.void)
        }
        return Effect.flatMap(f(batch), (more) => more ? next : Effect.void)
      }
      const exit = this.exit
      if (exit !== undefined) return exit
      return Effect.andThen(
        Effect.callback<void>((resume) => {
          this.reader = resume
          return Effect.sync(() => {
            if (this.reader === resume) this.reader = undefined
          })
        }),
        next
      )
    })
    return next
  }
}

/**
 * Stream.runForEachWhile, running an emitting stream's producer in this fiber: once `f` answers false, or fails,
 * the producer is interrupted at its next `emit` or wait, as the end of reading interrupts a stream's producer,
 * and the outcome is what Stream.runForEachWhile's would be.
 *
 * @since 0.1.0
 * @category readers
 */
export const runForEachWhile = <A, E, E2>(
  self: Stream.Stream<A, E>,
  f: (event: A) => Effect.Effect<boolean, E2>
): Effect.Effect<void, E | E2> => {
  const producer = StreamSources.producerOf(self)
  if (producer === undefined) return Stream.runForEachWhile(self, f)
  return Effect.suspend(() => {
    const reading = new Reading<A, E2>(f)
    return Effect.flatMap(Effect.exit(producer(reading.emit)), reading.outcome)
  })
}

/**
 * One `runForEachWhile` of a producer: its state in one object, since a producer that waits (an idle agent) holds
 * it for as long as it waits; `emit` and `outcome` are the two functions the producer and its fiber need.
 */
class Reading<A, E2> {
  private stopped = false
  private failure: Cause.Cause<E2> | undefined = undefined
  private readonly f: (event: A) => Effect.Effect<boolean, E2>

  constructor(f: (event: A) => Effect.Effect<boolean, E2>) {
    this.f = f
  }

  private stop(cause?: Cause.Cause<E2>): Effect.Effect<never> {
    return Effect.andThen(
      Effect.sync(() => {
        this.stopped = true
        this.failure = cause
      }),
      Effect.interrupt
    )
  }

  readonly emit: StreamSources.Emit<A> = (event) =>
    this.stopped ? Effect.interrupt : Effect.matchCauseEffect(this.f(event), {
      onSuccess: (more) => more ? Effect.void : this.stop(),
      onFailure: (cause) => this.stop(cause)
    })

  // The reader's failure wins, even over a producer that swallowed its interruption and returned.
  readonly outcome = <E>(exit: Exit.Exit<void, E>): Effect.Effect<void, E | E2> => {
    const failure = this.failure
    if (failure !== undefined) return Effect.failCause(failure)
    if (Exit.isSuccess(exit)) return Effect.void
    return this.stopped && Cause.hasInterruptsOnly(exit.cause) ? Effect.void : Effect.failCause(exit.cause)
  }
}
