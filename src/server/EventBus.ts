/**
 * Per-task ordered fan-out of task events to every live subscriber (spec 3.5.2). Each event carries the
 * task version it produced; a subscriber subscribes first, then reads the stored snapshot (version v), and
 * keeps the events with sequence > v. Nothing is lost or duplicated between snapshot and stream (spec
 * 3.1.6), and the same recipe works across nodes (e.g. PostgreSQL LISTEN/NOTIFY) as in process.
 *
 * @example
 * ```ts
 * import { EventBus } from "effect-a2a/server"
 * import { Effect, Stream } from "effect"
 *
 * const follow = (taskId: string) =>
 *   Effect.gen(function*() {
 *     const bus = yield* EventBus.EventBus
 *     const events = yield* bus.subscribe(taskId)
 *     yield* Stream.runForEach(events, (event) => Effect.log(event.sequence))
 *   }).pipe(Effect.scoped, Effect.provide(EventBus.layerInProcess))
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { Unavailable } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as StreamSources from "./internal/StreamSources.ts"

/**
 * An event as the bus carries it (stage 3 of the event path, see TaskRunner): the event with its task id and
 * sequence.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskEvent {
  readonly taskId: string
  /** The task version this event produced (TaskRecord.version after it was saved). */
  readonly sequence: number
  readonly event: v1.StreamResponse
}

/**
 * Fans out each task's events to its live subscribers, in order, here or on every node.
 *
 * @since 0.1.0
 * @category services
 */
export class EventBus extends Context.Service<EventBus, {
  /** Delivers to every subscription of the task that is live now; no subscribers, no cost. */
  readonly publish: (event: TaskEvent) => Effect.Effect<void>
  /**
   * Subscribes to a task's events. The subscription is live once this effect completes, and lasts until the
   * scope closes. Events arrive in publish order. A bus that can no longer promise every event (one spanning
   * several nodes that lost its link to them) ends its subscriptions with Unavailable: subscribe again later.
   */
  readonly subscribe: (taskId: string) => Effect.Effect<Stream.Stream<TaskEvent, Unavailable>, never, Scope.Scope>
}>()("effect-a2a/server/EventBus") {}

/**
 * The in-process bus, which a bus spanning several nodes delivers through (see store/PgEventBus).
 *
 * @since 0.1.0
 * @category models
 */
export type InProcess = EventBus["Service"] & {
  /** Ends every live subscription with `error`; later subscriptions are not affected. */
  readonly failAll: (error: Unavailable) => Effect.Effect<void>
  /** Whether `taskId` has a live subscription here now: an event of a task without one would reach no one. */
  readonly watched: (taskId: string) => boolean
}

/** One live subscription: events wait in `pending` until a reader attaches, then go straight to it. */
interface Subscriber {
  sink: StreamSources.Sink<TaskEvent, Unavailable> | undefined
  pending: Array<TaskEvent> | undefined
  /** Set when the subscription was ended (failAll) before a reader attached. */
  failed: Unavailable | undefined
}

/**
 * In-process bus: per task with live subscribers, the set of them; the entry goes with its last subscriber.
 * `publish` delivers synchronously to each subscriber's reader, or buffers until it attaches (a slow reader
 * never stalls the task nor loses events). A subscription is the stream of what its subscriber delivers
 * (StreamSources.delivering): an SSE response reading it holds no queue nor fiber for it, which matters with
 * thousands of idle subscribers. Its stream is meant to be read once; a later reader takes over from the earlier
 * one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeInProcess: Effect.Effect<InProcess> = Effect.sync(() => {
  // A task usually has one subscriber: it is kept as is, and a Set (~250 bytes) only made for a second one.
  const topics = new Map<string, Subscriber | Set<Subscriber>>()

  const add = (taskId: string, subscriber: Subscriber) => {
    const subscribers = topics.get(taskId)
    if (subscribers === undefined) topics.set(taskId, subscriber)
    else if (subscribers instanceof Set) subscribers.add(subscriber)
    else topics.set(taskId, new Set([subscribers, subscriber]))
  }

  const remove = (taskId: string, subscriber: Subscriber) => {
    const subscribers = topics.get(taskId)
    if (subscribers === subscriber) topics.delete(taskId)
    else if (subscribers instanceof Set) {
      subscribers.delete(subscriber)
      if (subscribers.size === 0) topics.delete(taskId)
    }
  }

  const deliver = (subscriber: Subscriber, event: TaskEvent) => {
    if (subscriber.sink !== undefined) subscriber.sink.offer(event)
    else (subscriber.pending ??= []).push(event)
  }

  const release = (taskId: string, subscriber: Subscriber) => {
    remove(taskId, subscriber)
    subscriber.pending = undefined
    // A reader still attached sees its stream interrupted, as when a subscriber queue is shut down.
    const sink = subscriber.sink
    subscriber.sink = undefined
    sink?.fail(Cause.interrupt())
  }

  const attach = (subscriber: Subscriber, sink: StreamSources.Sink<TaskEvent, Unavailable>) =>
    Effect.sync(() => {
      if (subscriber.failed !== undefined) return sink.fail(Cause.fail(subscriber.failed))
      subscriber.sink?.end()
      subscriber.sink = sink
      const pending = subscriber.pending
      subscriber.pending = undefined
      if (pending !== undefined) { for (const event of pending) sink.offer(event) }
    })

  const failAll = (error: Unavailable) =>
    Effect.sync(() => {
      const all = Array.from(topics.values()).flatMap((subscribers) =>
        subscribers instanceof Set ? Array.from(subscribers) : [subscribers]
      )
      topics.clear()
      for (const subscriber of all) {
        subscriber.pending = undefined
        subscriber.failed = error
        const sink = subscriber.sink
        subscriber.sink = undefined
        sink?.fail(Cause.fail(error))
      }
    })

  return {
    failAll,
    watched: (taskId) => topics.has(taskId),
    publish: (event) =>
      Effect.sync(() => {
        const subscribers = topics.get(event.taskId)
        if (subscribers === undefined) return
        if (!(subscribers instanceof Set)) return deliver(subscribers, event)
        for (const subscriber of subscribers) deliver(subscriber, event)
      }),
    // The finalizer first, then the entry: an interruption in between leaves nothing behind.
    subscribe: (taskId) =>
      Effect.flatMap(Effect.scope, (scope) => {
        const subscriber: Subscriber = { sink: undefined, pending: undefined, failed: undefined }
        return Scope.addFinalizerExit(scope, () => Effect.sync(() => release(taskId, subscriber))).pipe(
          Effect.map(() => {
            add(taskId, subscriber)
            return StreamSources.delivering<TaskEvent, Unavailable>((sink) => attach(subscriber, sink))
          })
        )
      })
  }
})

/**
 * The in-process bus as the EventBus: subscribers on this process only.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInProcess: Layer.Layer<EventBus> = Layer.effect(EventBus, makeInProcess)
