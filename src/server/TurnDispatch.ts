/**
 * Where a turn runs: the seam between the task runner and an engine that spreads turns over several nodes.
 *
 * With one process (the default, and with SQLite or memory) there is no engine: `route` is undefined and the
 * runner starts every turn here, exactly as it always has, at no cost. Stores shared by several nodes may
 * provide an engine (the SQL stores over PostgreSQL, unless `A2A_CLUSTER=false`; see sql/cluster/ClusterTurns): the
 * runner then hands each SendMessage to `route`, which queues the turn and reports its events to the caller,
 * and gives the engine its own `start` through `serve`, with which a node that executes runs the turns it is
 * handed. An engine reports a turn run elsewhere to its caller as the runner would, and follows the task through
 * its events with the runner's own reducer (`applyEvent`).
 *
 * @example
 * ```ts
 * import { TurnDispatch } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // the default: no engine, every turn runs on the node its message reached
 * const spread = Effect.map(TurnDispatch.TurnDispatch, (dispatch) => dispatch.route !== undefined)
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { A2AError } from "../protocol/A2AError.ts"
import type { Caller, StartOptions } from "./engine/Caller.ts"
import type { Commit } from "./engine/Commit.ts"
import type { TaskRecord } from "./TaskStore.ts"

export type { Caller, Processed, ReceiptHooks, StartOptions } from "./engine/Caller.ts"
export { appended, apply as applyEvent, setStatus } from "./engine/TaskReducer.ts"

/**
 * Starts a turn on this node, as the runner's own `start`.
 *
 * @since 0.1.0
 * @category models
 */
export type LocalStart = (options: StartOptions, caller: Caller) => Effect.Effect<TaskRecord | undefined, A2AError>

/**
 * What an engine needs of the node's runner to run turns here.
 *
 * @since 0.1.0
 * @category models
 */
export interface Local {
  readonly start: LocalStart
  /**
   * Saves a change of a task, then tells its events as the runner's turns do (EventBus, PushNotifier): for a change
   * the engine makes itself (a turn lost with its node, failed).
   */
  readonly commit: Commit
  /** Whether the agent may run a turn again from its start (AgentExecutor's `restartable`). */
  readonly restartable: boolean
  /**
   * Done when a stopping node must have answered what it has in flight (ShutdownDeadline): its turns still
   * running then are cut short.
   */
  readonly deadline: Deferred.Deferred<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Takes a SendMessage in place of the runner's `start` (same contract); undefined: the runner starts it here. */
  readonly route: LocalStart | undefined
  /**
   * Runs the turns the engine hands this node with the local runner, for as long as the scope lasts; when it
   * closes, before the runner interrupts its executions.
   */
  readonly serve: (local: Local) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * A single process: every turn runs where its message arrives.
 *
 * @since 0.1.0
 * @category constructors
 */
export const local: Service = { route: undefined, serve: () => Effect.void }

/**
 * @since 0.1.0
 * @category services
 */
export const TurnDispatch = Context.Reference<Service>("effect-a2a/server/TurnDispatch", {
  defaultValue: () => local
})
