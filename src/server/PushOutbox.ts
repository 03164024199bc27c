/**
 * Webhook deliveries written down before they are attempted, so that those still pending when a server process
 * stops (a webhook down, retries in progress, a crash) are made later, by this process after a restart or by
 * another node sharing the database: at least once, and once in the common case (only a delivery made just before
 * its process died, and not yet marked done, is made again).
 *
 * The default keeps nothing (deliveries live in memory, as with the memory stores); the SQL stores provide one
 * in the same database as the tasks (see SqlStore).
 *
 * @example
 * ```ts
 * import { PushOutbox } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // what a delivery looks like once written down
 * const recorded = Effect.flatMap(PushOutbox.PushOutbox, (outbox) =>
 *   outbox.add({ taskId: "t-1", configId: "c-1", body: "{}", contentType: "application/a2a+json", kind: "task" }))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/**
 * One event for one webhook, as it will be POSTed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Delivery {
  readonly taskId: string
  readonly configId: string
  readonly body: string
  readonly contentType: string
  /** The event's kind (task, statusUpdate...), for logs. */
  readonly kind: string
}

/**
 * A delivery written down, with its id.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pending extends Delivery {
  readonly id: string
}

/**
 * What a push outbox does: keep deliveries until they are made, across restarts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Writes a delivery down; its id, or undefined when nothing is kept. */
  readonly add: (delivery: Delivery) => Effect.Effect<string | undefined>
  /** The delivery was made (or given up): forget it. */
  readonly done: (id: string) => Effect.Effect<void>
  /**
   * Deliveries this process has taken over from processes that are gone, oldest first, for it to make; filled
   * at start and, for a database several nodes share, whenever a node is found gone.
   */
  readonly orphans: Stream.Stream<Pending>
}

/**
 * Nothing kept: deliveries pending at a stop are lost.
 *
 * @since 0.1.0
 * @category constructors
 */
export const none: Service = {
  add: () => Effect.undefined,
  done: () => Effect.void,
  orphans: Stream.empty
}

/**
 * The push outbox of the server: none by default (deliveries are made at once, and lost with the process).
 *
 * @since 0.1.0
 * @category services
 */
export const PushOutbox = Context.Reference<Service>("effect-a2a/server/PushOutbox", {
  defaultValue: () => none
})
