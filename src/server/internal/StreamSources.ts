/**
 * Streams that a source feeds rather than a reader pulls, as the server's services make them: an ordinary
 * `Stream` to whoever reads it with Stream operators, which also keeps how it is fed, for the engine and the HTTP
 * bindings to read it without pulling (PushStream).
 *
 * Two kinds, because there are two kinds of sources:
 * - `delivering`: a source that pushes from a fiber of its own into a `Sink` for as long as its reader's scope
 *   lasts (the EventBus's subscriptions, an execution's caller). Read as a Stream, through a queue.
 * - `emitting`: a producer that emits its events one at a time and waits at each `emit` until its reader has
 *   taken it (an agent's TaskUpdater work). Read as a Stream, the producer runs in a fiber of its own feeding a
 *   queue.
 *
 * Either Stream builds its channel only when it is read as a Stream: the engine and the bindings mostly never
 * do, and a channel built per request keeps the request's closures alive through V8's young-generation
 * collections.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
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
 *
 * @since 0.1.0
 * @category models
 */
export interface Sink<in A, in E = A2AError> {
  /** The next event. */
  readonly offer: (event: A) => void
  /** Ends the stream with a failure. */
  readonly fail: (cause: Cause.Cause<E>) => void
  /** Ends the stream. */
  readonly end: () => void
}

/**
 * Starts delivering into `sink` for as long as the scope lasts. A failure of the returned effect is the
 * stream's failure (the sink is not told).
 *
 * @since 0.1.0
 * @category models
 */
export type Attach<A, E = A2AError> = (sink: Sink<A, E>) => Effect.Effect<void, E, Scope.Scope>

/**
 * Hands one event to a producer's reader and waits until the reader has taken it.
 *
 * @since 0.1.0
 * @category models
 */
export type Emit<A> = (event: A) => Effect.Effect<void>

/**
 * A producer that emits its events in order; see `emitting`.
 *
 * @since 0.1.0
 * @category models
 */
export type Producer<A, E> = (emit: Emit<A>) => Effect.Effect<void, E>

const AttachId = "~effect-a2a/server/StreamSources/Attach"
const ProducerId = "~effect-a2a/server/StreamSources/Producer"

/**
 * A Sink feeding a queue.
 *
 * @since 0.1.0
 * @category constructors
 */
export const queueSink = <A, E>(queue: Queue.Enqueue<A, E | Cause.Done>): Sink<A, E> => ({
  offer: (event) => void Queue.offerUnsafe(queue, event),
  fail: (cause) => void Queue.failCauseUnsafe(queue, cause),
  end: () => void Queue.endUnsafe(queue)
})

const variance: Stream.VarianceStruct<never, never, never> = { _A: identity, _E: identity, _R: identity }

/** A Stream whose channel is built only when it is read as a Stream. */
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

class Delivering<A, E> extends LazyStream<A, E> {
  readonly [AttachId]: Attach<A, E>
  constructor(attach: Attach<A, E>) {
    super()
    this[AttachId] = attach
  }
  protected build(): Stream.Stream<A, E> {
    const attach = this[AttachId]
    return Stream.callback<A, E>((queue) => attach(queueSink(queue)))
  }
}

class Emitting<A, E> extends LazyStream<A, E> {
  readonly [ProducerId]: Producer<A, E>
  constructor(producer: Producer<A, E>) {
    super()
    this[ProducerId] = producer
  }
  protected build(): Stream.Stream<A, E> {
    return fromProducer(this[ProducerId])
  }
}

/**
 * The stream of what `attach` delivers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const delivering = <A, E = A2AError>(attach: Attach<A, E>): Stream.Stream<A, E> => new Delivering(attach)

/**
 * The stream of the events `producer` emits, failing as it fails. A stream derived from it (map, concat...) is an
 * ordinary Stream.
 *
 * @since 0.1.0
 * @category constructors
 */
export const emitting = <A, E>(producer: Producer<A, E>): Stream.Stream<A, E> => new Emitting(producer)

/**
 * The producer in a fiber of its own feeding an unbounded queue.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromProducer = <A, E>(producer: Producer<A, E>): Stream.Stream<A, E> =>
  // Failures of the producer travel through the queue, after the events emitted before them.
  Stream.callback<A, E>((queue) =>
    Effect.andThen(producer((event) => Effect.asVoid(Queue.offer(queue, event))), Queue.end(queue))
  )

/**
 * How a `delivering` stream is fed, if it is one.
 *
 * @since 0.1.0
 * @category guards
 */
export const attachOf = <A, E>(stream: Stream.Stream<A, E>): Attach<A, E> | undefined =>
  Predicate.hasProperty(stream, AttachId) ? (stream as Delivering<A, E>)[AttachId] : undefined

/**
 * The producer of an `emitting` stream, if it is one.
 *
 * @since 0.1.0
 * @category guards
 */
export const producerOf = <A, E>(stream: Stream.Stream<A, E>): Producer<A, E> | undefined =>
  Predicate.hasProperty(stream, ProducerId) ? (stream as Emitting<A, E>)[ProducerId] : undefined
