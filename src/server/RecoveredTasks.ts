/**
 * Tasks a store failed because the server that ran them is gone (see the SQL stores' restart recovery), for
 * the push notifier to announce. Provided by a durable store; absent when nothing recovers tasks.
 *
 * @example
 * ```ts
 * import { RecoveredTasks } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // what the durable stores' restart recovery failed, if a durable store is in use
 * const recovered = Effect.map(
 *   Effect.serviceOption(RecoveredTasks.RecoveredTasks),
 *   (service) => service._tag === "Some" ? service.value.atStart.map((r) => r.task.id) : []
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Queue from "effect/Queue"
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * A task the recovery failed, with the event that did it (for push notifications).
 *
 * @since 0.1.0
 * @category models
 */
export interface RecoveredTask {
  readonly task: v1.Task
  readonly statusUpdate: v1.TaskStatusUpdateEvent
}

/**
 * What the recovery failed: at start, and later for stores shared by several nodes.
 *
 * @since 0.1.0
 * @category services
 */
export class RecoveredTasks extends Context.Service<RecoveredTasks, {
  /** The tasks failed while the store's layer was built. */
  readonly atStart: ReadonlyArray<RecoveredTask>
  /** Every recovered task, those at start first; one consumer (the notifier). Bounded: oldest dropped. */
  readonly queue: Queue.Dequeue<RecoveredTask>
}>()("effect-a2a/server/RecoveredTasks") {}
