/**
 * The one place where the server's events bypass Effect's Stream machinery, for speed and memory: every event of
 * the server (an agent's, an execution's, the EventBus's, an SSE response's) is an ordinary `Stream`, and a few of
 * those Streams also carry a push form that a reader built here uses instead of pulling them. Read with any
 * Stream operator they behave as the Stream they are (and yield a plain Stream).
 *
 * Two push forms, because there are two kinds of producers:
 * - a source pushes from a fiber of its own (the EventBus publisher, a task's execution) into a `Sink`, for as
 *   long as the reader's scope lasts (`make`, read by `run`): an idle SSE subscriber then costs one small sink
 *   object, no fiber nor queue (JS heap per idle stream 27.0 -> 9.5 KiB, rpc-stream CPU 331 -> 226 µs/op when it
 *   came in; Effect's PubSub or Stream.callback would hold a queue and a pumping fiber per subscriber);
 * - a producer runs in its reader's fiber and waits at each `emit` for the reader's step (`produce`, read by
 *   `runForEachWhile`): an agent's TaskUpdater work runs in the execution's own fiber, each event saved before
 *   the next is made (blocking task SendMessage in process 59-67 -> 46 µs, 75 -> 61 KB allocated per request;
 *   read as Stream.callback it needs a producer fiber and a queue per execution).
 *
 * `run` and `runForEachWhile` take any Stream and read it the Stream way when it carries no push form.
 *
 * Why not pull: Effect's Stream is pulled (Stream.fromPull, channels), and a producer that calls `emit` can only be
 * pulled if it is suspended between its events, which takes a fiber of its own and a queue between the two
 * (Stream.callback, PubSub): exactly the cost the push forms avoid. Read in process on a shared 2-core machine
 * (`node bench/inprocess.ts 6000 SendMessage`, CPU µs per blocking task SendMessage, two alternated runs each),
 * the `task` helper read the Stream way cost 184 and 290 µs against 159 and 182 through `runForEachWhile`.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import { pipeArguments } from "effect/Pipeable"
import * as Predicate from "effect/Predicate"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { A2AError } from "../../protocol/A2AError.ts"

/**
 * Where a stream's events go, synchronously and in order. After `fail` or `end` nothing more arrives; a sink
 * ignores calls once it is done, so producers need not track it. A sink never throws (its producer may be
 * serving other readers).
 */
export interface Sink<in A, in E = A2AError> {
  readonly offer: (event: A) => void
  readonly fail: (cause: Cause.Cause<E>) => void
  readonly end: () => void
}

/**
 * Starts delivering into `sink` for as long as the scope lasts. A failure of the returned effect is the
 * stream's failure (the sink is not told).
 */
export type Attach<A, E = A2AError> = (sink: Sink<A, E>) => Effect.Effect<void, E, Scope.Scope>

const TypeId = "~effect-a2a/server/PushStream"
const ProducerId = "~effect-a2a/server/PushStream/Producer"

export interface PushStream<A, E = A2AError> extends Stream.Stream<A, E> {
  readonly [TypeId]: Attach<A, E>
}

const attachOf = <A, E>(stream: Stream.Stream<A, E>): Attach<A, E> | undefined =>
  Predicate.hasProperty(stream, TypeId) ? (stream as PushStream<A, E>)[TypeId] : undefined

/** A Sink feeding a queue. */
export const queueSink = <A, E>(queue: Queue.Enqueue<A, E | Cause.Done>): Sink<A, E> => ({
  offer: (event) => void Queue.offerUnsafe(queue, event),
  fail: (cause) => void Queue.failCauseUnsafe(queue, cause),
  end: () => void Queue.endUnsafe(queue)
})

const variance: Stream.VarianceStruct<never, never, never> = { _A: identity, _E: identity, _R: identity }

/**
 * A Stream whose channel is built only when it is read the Stream way: the server reads the push forms directly,
 * and most of them are never read as Streams. A channel built per request anyway costs memory beyond its size: it
 * holds the request's closures (the agent's context, an SSE response's state), and V8 may allocate it in the old
 * generation (allocation-site pretenuring, decided at run time and kept), where it keeps all that alive through
 * every young collection until the next full one. In process, one direct-reply SendMessage at a time, warmed
 * up: ~760 KB survived each scavenge with the channel built eagerly, ~25 KB without (BENCHMARKS.md, "GC").
 */
abstract class LazyStream<A, E> implements Stream.Stream<A, E> {
  readonly [Stream.TypeId] = variance
  get channel(): Stream.Stream<A, E>["channel"] {
    return this.build().channel
  }
  protected abstract build(): Stream.Stream<A, E>
  pipe() {
    // Effect's own Pipeable implementations take `arguments` as is (pipeArguments' contract).
    // eslint-disable-next-line prefer-rest-params
    return pipeArguments(this, arguments)
  }
}

class Attached<A, E> extends LazyStream<A, E> implements PushStream<A, E> {
  readonly [TypeId]: Attach<A, E>
  constructor(attach: Attach<A, E>) {
    super()
    this[TypeId] = attach
  }
  protected build(): Stream.Stream<A, E> {
    const attach = this[TypeId]
    return Stream.callback<A, E>((queue) => attach(queueSink(queue)))
  }
}

/** The stream of what `attach` delivers; read as a Stream, through a queue. */
export const make = <A, E = A2AError>(attach: Attach<A, E>): PushStream<A, E> => new Attached(attach)

/** A PushStream failing at once. */
export const fail = <E>(error: E): PushStream<never, E> => make(() => Effect.fail(error))

/**
 * Delivers `self` into `sink` for as long as the scope lasts: directly for a PushStream, otherwise through a
 * fiber (forked in the scope) that pulls it. Every outcome reaches the sink, a failure to attach included.
 */
export const run = <A, E>(self: Stream.Stream<A, E>, sink: Sink<A, E>): Effect.Effect<void, never, Scope.Scope> => {
  const attach = attachOf(self)
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

/** A sink taking `A`s into one taking `B`s; `f` throwing fails the sink instead of its producer. */
export const mapInput = <A, B, E>(sink: Sink<B, E>, f: (event: A) => B): Sink<A, E> => new Mapped(sink, f)

/** Like Stream.map, keeping a PushStream one. */
export const map = <A, E, B>(self: Stream.Stream<A, E>, f: (event: A) => B): Stream.Stream<B, E> => {
  const attach = attachOf(self)
  return attach === undefined ? Stream.map(self, f) : make<B, E>((sink) => attach(mapInput(sink, f)))
}

// A class, not closures: an idle stream holds its sinks for as long as it is open.
class Mapped<A, B, E> implements Sink<A, E> {
  readonly sink: Sink<B, E>
  readonly f: (event: A) => B
  constructor(sink: Sink<B, E>, f: (event: A) => B) {
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

/** Like Stream.unwrap (the effect runs when the stream starts), giving a PushStream. */
export const unwrap = <A, E>(
  effect: Effect.Effect<Stream.Stream<A, E>, E, Scope.Scope>
): PushStream<A, E> => make((sink) => Effect.flatMap(effect, (stream) => run(stream, sink)))

/** Hands one event to a producer's reader and waits until the reader has taken it. */
export type Emit<A> = (event: A) => Effect.Effect<void>

/** A producer that runs in its reader's fiber, emitting its events in order; see `produce`. */
export type Producer<A, E> = (emit: Emit<A>) => Effect.Effect<void, E>

/**
 * The stream of the events `producer` emits, failing as it fails. `runForEachWhile` runs the producer in its own
 * fiber, each `emit` waiting for its step; read as a plain Stream the producer runs in a fiber of its own feeding
 * a queue (Stream.callback). A stream derived from it (map, concat...) is read the Stream way.
 */
export const produce = <A, E>(producer: Producer<A, E>): Stream.Stream<A, E> => new Produced(producer)

class Produced<A, E> extends LazyStream<A, E> {
  readonly [ProducerId]: Producer<A, E>
  constructor(producer: Producer<A, E>) {
    super()
    this[ProducerId] = producer
  }
  protected build(): Stream.Stream<A, E> {
    return fromProducer(this[ProducerId], undefined)
  }
}

/** The producer in a fiber of its own feeding a queue (unbounded unless `capacity` is given, then it waits). */
const fromProducer = <A, E>(producer: Producer<A, E>, capacity: number | undefined): Stream.Stream<A, E> =>
  // Failures of the producer travel through the queue, after the events emitted before them.
  Stream.callback<A, E>(
    (queue) => Effect.andThen(producer((event) => Effect.asVoid(Queue.offer(queue, event))), Queue.end(queue)),
    capacity === undefined ? undefined : { bufferSize: capacity, strategy: "suspend" }
  )

/**
 * `self` run ahead of its reader by up to `capacity` events, in a fiber of its own (a `produce` stream's producer
 * directly, any other stream through Stream.buffer): each pull of the result takes every event waiting then, at
 * least one, never waiting for more. Read with Stream.chunks, those are the batches a slow reader (a reader that
 * commits to a database) can handle in one go.
 */
export const buffered = <A, E>(self: Stream.Stream<A, E>, capacity: number): Stream.Stream<A, E> => {
  const producer = producerOf(self)
  return producer !== undefined ? fromProducer(producer, capacity) : Stream.buffer(self, { capacity })
}

/** The producer a stream was made from by `produce`, if it was. */
export const producerOf = <A, E>(stream: Stream.Stream<A, E>): Producer<A, E> | undefined =>
  Predicate.hasProperty(stream, ProducerId) ? (stream as Produced<A, E>)[ProducerId] : undefined

/**
 * Stream.runForEachWhile, running a `produce` stream's producer in this fiber: once `f` answers false, or fails,
 * the producer is interrupted at its next `emit` or wait, as the end of reading interrupts a stream's producer,
 * and the outcome is what Stream.runForEachWhile's would be.
 */
export const runForEachWhile = <A, E, E2>(
  self: Stream.Stream<A, E>,
  f: (event: A) => Effect.Effect<boolean, E2>
): Effect.Effect<void, E | E2> => {
  const producer = producerOf(self)
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

  readonly emit: Emit<A> = (event) =>
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
