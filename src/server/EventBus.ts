/**
 * Per-task ordered fan-out of task events to every live subscriber (spec 3.5.2). Each event carries the
 * task version it produced; a subscriber subscribes first, then reads the stored snapshot (version v), and
 * keeps the events with sequence > v. Nothing is lost or duplicated between snapshot and stream (spec
 * 3.1.6), and the same recipe works across nodes (e.g. PostgreSQL LISTEN/NOTIFY) as in process.
 */
import { Context, Effect, Layer, Queue, type Scope, Stream } from "effect"
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
 * In-process bus: per task with live subscribers, the set of their queues; the entry goes with its last
 * subscriber. One unbounded queue per subscriber (a slow subscriber never stalls the task nor loses events), fed
 * synchronously by `publish`: lighter than a PubSub per task, which matters with thousands of idle subscribers.
 */
export const makeInProcess: Effect.Effect<EventBus["Service"]> = Effect.sync(() => {
  const topics = new Map<string, Set<Queue.Queue<TaskEvent>>>()

  const add = (taskId: string, queue: Queue.Queue<TaskEvent>) => {
    const subscribers = topics.get(taskId)
    if (subscribers === undefined) topics.set(taskId, new Set([queue]))
    else subscribers.add(queue)
  }

  const remove = (taskId: string, queue: Queue.Queue<TaskEvent>) => {
    const subscribers = topics.get(taskId)
    if (subscribers === undefined) return
    subscribers.delete(queue)
    if (subscribers.size === 0) topics.delete(taskId)
  }

  return EventBus.of({
    publish: (event) =>
      Effect.sync(() => {
        const subscribers = topics.get(event.taskId)
        if (subscribers !== undefined) { for (const queue of subscribers) Queue.offerUnsafe(queue, event) }
      }),
    subscribe: (taskId) =>
      Effect.acquireRelease(
        Effect.tap(Queue.unbounded<TaskEvent>(), (queue) => Effect.sync(() => add(taskId, queue))),
        (queue) => Effect.andThen(Effect.sync(() => remove(taskId, queue)), Queue.shutdown(queue))
      ).pipe(Effect.map(Stream.fromQueue))
  })
})

export const layerInProcess: Layer.Layer<EventBus> = Layer.effect(EventBus, makeInProcess)
