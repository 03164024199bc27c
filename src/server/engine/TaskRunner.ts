/**
 * The engine: runs the agent for a task and cancels it, assembled from its parts.
 *
 * - TaskLocks: per-task mutual exclusion (continuing a task, cancelling one with no execution, an execution letting
 *   go of its task).
 * - Turns: which message runs on a task and when (a new task, a continued one, messages waiting for the turn in
 *   progress).
 * - Execution: one run of the agent in a fiber of the server's scope, each batch of its events reduced
 *   (EventBatch, TaskReducer), committed (Commit: saved, then published and notified) and offered to its caller.
 * - Cancel: CancelTask, here or on the node running the task.
 * - TurnDispatch: where a turn runs; here unless an engine spreads them over several nodes.
 *
 * The RequestHandler builds one with `make` and calls `start` and `cancel`.
 *
 * The path of an agent event, one name per stage. The event itself is one `v1.StreamResponse` object from the
 * agent to the wire: each stage adds what the next reader needs beside it, never a copy of it.
 * 1. `AgentEvent`: what the agent emits, a `v1.StreamResponse` (`message`, `task`, `statusUpdate` or
 *    `artifactUpdate`) with no wrapper.
 * 2. `TaskReducer.Published`: the event as applied to its task (stamped, completed), with the task after it: what
 *    Commit saves, then publishes and hands to the PushNotifier.
 * 3. `EventBus.TaskEvent`: the event as the bus carries it to subscribers and other nodes, with its task id and
 *    sequence (the task version it produced), by which a subscriber orders it after its snapshot.
 * 4. `Processed`: the event as the execution's caller hears it, with the task after it, or none for a direct
 *    reply (a message, which makes no task).
 * 5. `v1.StreamResponse` again: what a binding writes, the event taken back out of whichever stage carried it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { A2AError } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { A2A11 } from "../A2A11.ts"
import { AgentExecutor } from "../AgentExecutor.ts"
import { EventBus } from "../EventBus.ts"
import * as LiveSet from "../internal/LiveSet.ts"
import * as Observability from "../Observability.ts"
import { PushConfigStore } from "../PushConfigStore.ts"
import { PushNotifier } from "../PushNotifier.ts"
import { RemoteCancel } from "../RemoteCancel.ts"
import { ShutdownDeadline } from "../ShutdownDeadline.ts"
import { type TaskRecord, type TaskScope, TaskStore } from "../TaskStore.ts"
import { TurnDispatch } from "../TurnDispatch.ts"
import type { Caller, StartOptions } from "./Caller.ts"
import * as Cancel from "./Cancel.ts"
import * as Commit from "./Commit.ts"
import type * as Execution from "./Execution.ts"
import * as TaskLocks from "./TaskLocks.ts"
import * as Turns from "./Turns.ts"

export type { Caller, Processed, ReceiptHooks, StartOptions } from "./Caller.ts"
export { COALESCE_CAPACITY, STORAGE_LOST } from "./Execution.ts"
export { MAX_PENDING } from "./Turns.ts"

/**
 * The engine as the RequestHandler uses it: start a message, cancel a task.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskRunner {
  /**
   * Starts an execution that reports to `caller`: continues `message.taskId` when set (TaskNotFound,
   * UnsupportedOperation for a terminal task, InvalidParams for a contextId mismatch), else works on a new task.
   * Succeeds once the execution runs, or, for a task whose agent is still working on an earlier message (spec 3.7
   * "Task Interaction": agents MAY accept messages for non-terminal tasks), once the message is queued: it gets
   * the next turn when the one in progress ends in an interrupted state (input or auth required), and the
   * UnsupportedOperation of a terminal task when it ends there. Its events and outcome go to `caller` only.
   *
   * A message already in the task's history (its messageId) is not run again: `start` answers the task as it is
   * and `caller` hears nothing (InvalidParams when the earlier message had another body).
   */
  readonly start: (options: StartOptions, caller: Caller) => Effect.Effect<TaskRecord | undefined, A2AError>
  /** Cancels a task: interrupts its execution if one runs, and records CANCELED. */
  readonly cancel: (taskId: string, scope: TaskScope) => Effect.Effect<v1.Task, A2AError>
  /**
   * Whether `start` routes its messages through an engine that stores one turn per message and runs it once
   * (TurnDispatch's `route`: the cluster engine), which takes a continued task's message once that turn is stored
   * rather than as `start` returns (see MessageClaims).
   */
  readonly routed?: boolean | undefined
}

/**
 * The task runner of the server's scope: its executions are interrupted when the scope closes, before what they
 * use closes; other nodes' cancel requests (RemoteCancel) are served for as long as it lasts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const store = yield* TaskStore
  const bus = yield* EventBus
  const remote = yield* RemoteCancel
  const commit = Commit.make(store, bus, yield* PushNotifier)
  const locks = yield* TaskLocks.make
  const running: Execution.Running = new Map()
  const fibers = LiveSet.make<Fiber.Fiber<void>>()
  const executor = yield* AgentExecutor
  // Set as the executions are interrupted: none starts from then on (see Execution.launch).
  let stopped = false
  const { start } = Turns.make({
    store,
    pushConfigs: yield* PushConfigStore,
    executor,
    commit,
    locks,
    running,
    fibers,
    serverScope: yield* Effect.scope,
    stopped: () => stopped,
    observed: yield* Observability.isEnabled,
    generations: (yield* A2A11).enabled
  })
  const cancel = Cancel.make({ store, bus, remote, commit, locks, running })

  // Other nodes' cancel requests for the executions running here.
  yield* remote.serve((taskId, scope) =>
    cancel(taskId, scope).pipe(
      Effect.catch((error) => Effect.logDebug(`Cancel requested by another node: ${error.message}`)),
      Effect.asVoid
    )
  )

  // Added late, so run early when the server's scope closes, as the executions' own finalizers were when each was
  // forked into it: the executions end before what they use closes.
  yield* Effect.addFinalizer(() =>
    Effect.withFiber((current) => {
      stopped = true
      return Fiber.interruptAll(LiveSet.takeAll(fibers).filter((fiber) => fiber !== current))
    })
  )

  // With an engine spreading turns over several nodes (TurnDispatch), SendMessage queues the turn there, and the
  // turns it hands this node run through this runner. Served last, so that a stopping engine lets the turns it
  // runs end (until the ShutdownDeadline) before the executions are interrupted.
  const dispatch = yield* TurnDispatch
  yield* dispatch.serve({
    start,
    commit,
    restartable: executor.restartable === true,
    deadline: yield* ShutdownDeadline
  })

  return { start: dispatch.route ?? start, cancel, routed: dispatch.route !== undefined } satisfies TaskRunner
})
