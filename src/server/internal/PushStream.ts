/**
 * Streams of operation events that can also deliver straight into a sink. The events of the streaming
 * operations are pushed by their producers anyway (the EventBus, a task execution); read as a plain Stream they
 * go through a queue and whoever pulls it, but a reader that only forwards them (an SSE response) can attach a
 * sink instead and skip both: an idle subscriber then costs no fiber and no queue of its own.
 *
 * A PushStream is an ordinary Stream: every Stream operator works on it (and yields a plain Stream). `run`
 * takes any Stream; only the ones built here, and kept so by `map` and `unwrap`, skip the fiber.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
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

/** The stream of what `attach` delivers; read as a Stream, through a queue. */
export const make = <A, E = A2AError>(attach: Attach<A, E>): PushStream<A, E> =>
  Object.assign(
    Stream.callback<A, E>((queue) => attach(queueSink(queue))),
    { [TypeId]: attach }
  )

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
