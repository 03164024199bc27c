/**
 * How the engine commits a change of a task: the task saved, then each of the change's events published on the
 * EventBus and handed to the PushNotifier, in order. An event reaches no one before a save holding it has
 * succeeded, so whoever was told of an event finds it in the store. A save's version is the sequence of the last
 * event it holds (sequences grow by one per event), so a snapshot at version v and the events after v rebuild
 * the task (spec 3.1.6).
 *
 * The save is given its events (SavedEvents), for a store that can send them to the other nodes in the save's own
 * transaction: the SQL store on PostgreSQL, whose event bus then does not send them again.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { EventBus, TaskEvent } from "../EventBus.ts"
import type { PushNotifier } from "../PushNotifier.ts"
import type { TaskRecord, TaskScope, TaskStore, TaskStoreError } from "../TaskStore.ts"
import type * as TaskReducer from "./TaskReducer.ts"

/**
 * Saves `applied` over the task stored at `version` in `scope`, then announces its events. Returns the record
 * saved.
 *
 * @since 0.1.0
 * @category models
 */
export type Commit = (
  scope: TaskScope,
  version: number,
  applied: TaskReducer.Applied
) => Effect.Effect<TaskRecord, TaskStoreError>

/**
 * The events the save being made holds, in order, as they are published once it succeeds (the same objects): a
 * store may send them to the other nodes with the save (see the module). None outside a Commit's save.
 *
 * @since 0.2.0
 * @category references
 */
export const SavedEvents = Context.Reference<ReadonlyArray<TaskEvent>>("effect-a2a/server/engine/Commit/SavedEvents", {
  defaultValue: () => []
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  store: TaskStore["Service"],
  bus: EventBus["Service"],
  notifier: PushNotifier["Service"]
): Commit => {
  /**
   * Publishes and notifies `published[i]` and those after it, one after the other: Effect.forEach's work without
   * its iterator and per-element effects, as a step has one event or a few.
   */
  const announce = (
    taskId: string,
    published: ReadonlyArray<TaskReducer.Published>,
    events: ReadonlyArray<TaskEvent>,
    i: number
  ): Effect.Effect<void> => {
    const { event, task } = published[i]!
    const one = Effect.andThen(bus.publish(events[i]!), notifier.notify({ taskId, event, task }))
    return i + 1 === published.length
      ? one
      : Effect.andThen(one, Effect.suspend(() => announce(taskId, published, events, i + 1)))
  }

  return (scope, version, applied) => {
    const published = applied.published
    const record: TaskRecord = {
      task: applied.task,
      owner: scope.owner,
      tenant: scope.tenant,
      version: version + Math.max(1, published.length)
    }
    if (published.length === 0) return Effect.as(store.save(record), record)
    const taskId = record.task.id
    const events = published.map((p, i): TaskEvent => ({ taskId, sequence: version + i + 1, event: p.event }))
    return Effect.flatMap(
      Effect.provideService(store.save(record), SavedEvents, events),
      () => Effect.as(announce(taskId, published, events, 0), record)
    )
  }
}
