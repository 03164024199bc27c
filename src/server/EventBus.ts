/**
 * Per-task ordered fan-out of task events to every live subscriber (spec 3.5.2). Each event carries the
 * task version it produced; a subscriber subscribes first, then reads the stored snapshot (version v), and
 * keeps the events with sequence > v. Nothing is lost or duplicated between snapshot and stream (spec
 * 3.1.6), and the same recipe works across nodes (e.g. PostgreSQL LISTEN/NOTIFY) as in process.
 */
import { Context, Effect, Layer, PubSub, type Scope, Stream } from "effect"
import type * as v1 from "../generated/v1.ts"

export interface TaskEvent {
  readonly taskId: string
  /** The task version this event produced (TaskRecord.version after it was saved). */
  readonly sequence: number
  readonly event: v1.StreamResponse
}

export class EventBus extends Context.Service<EventBus, {
  /** Delivers to every subscription of the task that is live now; no subscribers, no cost. */
  readonly publish: (event: TaskEvent) => Effect.Effect<void>
  /**
   * Subscribes to a task's events. The subscription is live once this effect completes, and lasts until the
   * scope closes. Events arrive in publish order.
   */
  readonly subscribe: (taskId: string) => Effect.Effect<Stream.Stream<TaskEvent>, never, Scope.Scope>
}>()("effect-a2a/server/EventBus") {}

/**
 * In-process bus: one unbounded PubSub per task with live subscribers, dropped with its last subscriber.
 * Unbounded so a slow subscriber never stalls the task nor loses events.
 */
export const makeInProcess: Effect.Effect<EventBus["Service"]> = Effect.gen(function*() {
  const topics = yield* Effect.sync(() => new Map<string, { pubsub: PubSub.PubSub<TaskEvent>; refs: number }>())

  const acquire = (taskId: string) =>
    Effect.gen(function*() {
      const existing = topics.get(taskId)
      if (existing !== undefined) {
        existing.refs++
        return existing
      }
      const topic = { pubsub: yield* PubSub.unbounded<TaskEvent>(), refs: 1 }
      topics.set(taskId, topic)
      return topic
    })

  const release = (taskId: string, topic: { pubsub: PubSub.PubSub<TaskEvent>; refs: number }) =>
    Effect.suspend(() => {
      topic.refs--
      if (topic.refs > 0) return Effect.void
      topics.delete(taskId)
      return PubSub.shutdown(topic.pubsub)
    })

  return EventBus.of({
    publish: (event) =>
      Effect.suspend(() => {
        const topic = topics.get(event.taskId)
        return topic === undefined ? Effect.void : Effect.asVoid(PubSub.publish(topic.pubsub, event))
      }),
    subscribe: (taskId) =>
      Effect.gen(function*() {
        const topic = yield* Effect.acquireRelease(acquire(taskId), (topic) => release(taskId, topic))
        const subscription = yield* PubSub.subscribe(topic.pubsub)
        return Stream.fromSubscription(subscription)
      }).pipe(Effect.uninterruptible)
  })
})

export const layerInProcess: Layer.Layer<EventBus> = Layer.effect(EventBus, makeInProcess)
