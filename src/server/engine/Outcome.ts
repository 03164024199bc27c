/**
 * How an execution ends: the outcome of its agent's work recorded on its task, whatever ended it. The agent
 * reached a final state or replied (nothing to record); it finished without either (FAILED); a CancelTask
 * interrupted it (CANCELED); it failed (FAILED with its error as the status message, or the error itself to a
 * caller that has no task yet); or the storage failed under it (the caller hears InternalError or Unavailable, and
 * a task left in flight is recorded FAILED once the storage is back).
 *
 * Execution.run calls `record` once its agent's work has ended; the rest of the engine never does.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { A2AError, InternalError, InvalidAgentResponse, Unavailable } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isTerminal } from "../../protocol/TaskStates.ts"
import { clientErrorOf, isConflict, type TaskScope, type TaskStore, type TaskStoreError } from "../TaskStore.ts"
import type { TaskRecord } from "../TaskStore.ts"
import type { Caller } from "./Caller.ts"

/**
 * What recording an outcome needs of an execution: its task as last saved, whom to tell, and how to end the task.
 * Execution is the one implementation; naming only this keeps Outcome below it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Ending {
  readonly deps: { readonly store: TaskStore["Service"]; readonly serverScope: Scope.Scope }
  readonly context: { readonly taskId: string }
  readonly scope: TaskScope
  readonly reporter: Caller
  readonly record: TaskRecord | undefined
  readonly acknowledged: boolean
  readonly rerunOnStorageLoss: boolean
  settled: boolean
  fail(error: A2AError, reason: string): Effect.Effect<void, StoreFailed>
  finalStatus(target: v1.TaskState, reason: string | undefined): Effect.Effect<void, StoreFailed>
}

/**
 * The status message of a task whose execution lost its storage.
 *
 * @since 0.1.0
 * @category constants
 */
export const STORAGE_LOST = "The task store was unreachable while this task was being worked on, so its work was " +
  "lost and it was marked as failed. Send the request again to start a new task."

/**
 * What a send hears of a turn that ended having told it nothing (no event, no failure) and left no task stored:
 * its execution was interrupted before its task's first save (the agent interrupted itself, a cancel, the server's
 * executions interrupted as it stopped), so nothing of it ran that the caller could be told. Retryable: the
 * message was not taken into any task.
 *
 * @since 0.2.0
 * @category errors
 */
export const toldNothing = (taskId: string | undefined): Unavailable =>
  new Unavailable({
    message: `${taskId === undefined ? "The turn" : `The turn of task ${taskId}`} ended before it told anything ` +
      "(its execution was interrupted before the task was first saved); send the message again",
    retryAfterSeconds: 1
  })

/**
 * A store failure inside an execution, kept apart from the agent's own failures.
 *
 * @since 0.2.0
 * @category errors
 */
export class StoreFailed extends Schema.TaggedError<StoreFailed>()("StoreFailed", {
  message: Schema.String,
  /** Another writer (another node) saved the task meanwhile; see TaskStoreError.conflict. */
  conflict: Schema.Boolean,
  /** The storage could not be reached; see TaskStoreError.unavailable. */
  unavailable: Schema.Boolean
}) {}

/**
 * A TaskStore failure as an execution keeps it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const storeFailed = (e: TaskStoreError): StoreFailed =>
  new StoreFailed({ message: e.message, conflict: isConflict(e), unavailable: e.unavailable === true })

const isA2AError = Schema.is(A2AError)

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" &&
    error.message.length > 0
    ? error.message
    : String(error)

const storageFailed = (caller: Caller, e: StoreFailed) =>
  Effect.logError("Task store failure during execution", e).pipe(
    Effect.andThen(Effect.sync(() => caller.fail(Cause.fail(clientErrorOf(e)))))
  )

// Another node saved the task meanwhile (a CancelTask there, racing this turn): when the task has ended there,
// that end is this turn's too, and the caller hears it as the status the task now has.
const endedElsewhere = (
  store: TaskStore["Service"],
  caller: Caller,
  taskId: string,
  scope: TaskScope,
  e: StoreFailed
) =>
  store.get(taskId, scope).pipe(
    Effect.flatMap((stored) => {
      const task = Option.getOrUndefined(stored)?.task
      if (task === undefined || !isTerminal(task.status.state)) return storageFailed(caller, e)
      return Effect.sync(() =>
        caller.offer({
          event: { statusUpdate: { taskId: task.id, contextId: task.contextId ?? "", status: task.status } },
          task: Option.some(task)
        })
      )
    }),
    Effect.catch(() => storageFailed(caller, e))
  )

/** Records the outcome of the agent's work; a store failure is left to `record`. */
const finish = (execution: Ending, exit: Exit.Exit<void, unknown>): Effect.Effect<void, StoreFailed> => {
  if (Exit.isSuccess(exit) && execution.settled) return Effect.void
  return Effect.gen(function*() {
    if (Exit.isSuccess(exit)) {
      if (execution.settled) return
      return yield* execution.fail(
        new InvalidAgentResponse({ message: "The agent finished without a response" }),
        "The agent finished without reaching a final state"
      )
    }
    const cause = exit.cause
    if (Cause.hasInterruptsOnly(cause)) {
      // CancelTask (or the agent itself). A shutdown also interrupts, but then the task is left as it is, for
      // recovery: the stores may be closing too.
      const current = execution.record
      if (
        current !== undefined && !isTerminal(current.task.status.state) &&
        execution.deps.serverScope.state._tag !== "Closed"
      ) {
        yield* execution.finalStatus("TASK_STATE_CANCELED", undefined)
      }
      execution.settled = true
      return
    }
    const error = Option.getOrUndefined(Cause.findErrorOption(cause))
    if (error instanceof StoreFailed) return yield* Effect.fail(error)
    if (error !== undefined && isA2AError(error) && execution.record === undefined) {
      execution.settled = true
      execution.reporter.fail(Cause.fail(error))
      return
    }
    yield* Effect.logError("Agent execution failed", cause)
    const reason = error !== undefined ? `Agent failed: ${describe(error)}` : "Agent failed: internal error"
    yield* execution.fail(new InternalError({ message: reason }), reason)
  })
}

/**
 * Records the outcome of an execution's agent work (`exit`), a store failure included.
 *
 * @since 0.2.0
 * @category combinators
 */
export const record = (execution: Ending, exit: Exit.Exit<void, unknown>): Effect.Effect<void> =>
  Effect.catch(finish(execution, exit), (e) =>
    e.conflict
      ? endedElsewhere(execution.deps.store, execution.reporter, execution.context.taskId, execution.scope, e)
      : Effect.andThen(
        storageFailed(execution.reporter, e),
        e.unavailable && !execution.rerunOnStorageLoss ? failOnceReachable(execution) : Effect.void
      ))

/**
 * After the storage was unreachable during the execution, its task would stay stored in flight with no agent
 * behind it, on a node that lives on (so no recovery ends it): it is recorded FAILED once the storage is back.
 * So is a task acknowledged before its first save failed (StartOptions.acknowledged): saved FAILED as a new task,
 * with the client's message, over what its acknowledgement stored, if anything.
 * Interruptible, unlike the rest of the outcome: a cancel or the server's stop ends the wait.
 */
const failOnceReachable = (execution: Ending): Effect.Effect<void> =>
  Effect.suspend(() => {
    const current = execution.record
    if (current === undefined ? !execution.acknowledged : isTerminal(current.task.status.state)) return Effect.void
    return execution.finalStatus("TASK_STATE_FAILED", STORAGE_LOST).pipe(
      Effect.retry({ while: (e) => e.unavailable, schedule: Schedule.spaced("1 second") }),
      // A conflict: the task was saved since (by another node), which decided its end.
      Effect.catch((e) => e.conflict ? Effect.void : Effect.logError("Cannot record a task as failed", e)),
      Effect.interruptible
    )
  })
