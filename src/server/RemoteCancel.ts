/**
 * Cancelling a task whose agent runs in another server process. With one process (the default) there is no
 * other: every execution is local and `request` always answers false. Stores shared by several nodes provide
 * their own (the SQL stores over PostgreSQL send the request to the node that runs the task).
 *
 * The runner asks `request` when a CancelTask finds the task in flight but no execution of its own; when another
 * node takes the request, that node interrupts its execution and records CANCELED (or the task ends first), and
 * the outcome reaches this node through the EventBus like any other event.
 *
 * @example
 * ```ts
 * import { RemoteCancel } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // the default: a single process, so no other node runs anything
 * const asked = Effect.flatMap(
 *   RemoteCancel.RemoteCancel,
 *   (remote) => remote.request("task-1", { owner: "anonymous", tenant: "" })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { TaskScope } from "./TaskStore.ts"

/**
 * Cancels this node's execution of a task, as CancelTask would (the runner's own cancel).
 *
 * @since 0.1.0
 * @category models
 */
export type LocalCancel = (taskId: string, scope: TaskScope) => Effect.Effect<void>

/**
 * What RemoteCancel does: ask the node running a task to cancel it, and serve such requests from other nodes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Asks the node that runs the task's execution, when that is another live node, to cancel it. True when such
   * a node was asked; false when no other node runs the task (the caller then cancels it itself).
   */
  readonly request: (taskId: string, scope: TaskScope) => Effect.Effect<boolean>
  /** Answers other nodes' requests with `cancel` for as long as the scope lasts. */
  readonly serve: (cancel: LocalCancel) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * A single process: nothing runs elsewhere.
 *
 * @since 0.1.0
 * @category constructors
 */
export const singleNode: Service = {
  request: () => Effect.succeed(false),
  serve: () => Effect.void
}

/**
 * How a CancelTask reaches the node running its task; on a single node, nowhere.
 *
 * @since 0.1.0
 * @category services
 */
export const RemoteCancel = Context.Reference<Service>("effect-a2a/server/RemoteCancel", {
  defaultValue: () => singleNode
})
