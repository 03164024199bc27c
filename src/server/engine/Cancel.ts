/**
 * CancelTask: interrupts the task's execution when one runs here (it then records CANCELED itself), asks the node
 * running it otherwise (RemoteCancel) and waits a bounded time for its outcome, and records CANCELED itself for a
 * task no one works on. Each round decides under the task's lock; one that cannot decide there says what to wait
 * for outside it (`Retry`), then decides again: an execution may end (e.g. at input-required) just as it is
 * cancelled, and another node may save the task between a read and a write.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type A2AError, InternalError, TaskNotCancelable } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isFinal, isTerminal, label } from "../../protocol/TaskStates.ts"
import type { EventBus } from "../EventBus.ts"
import * as Ids from "../internal/Ids.ts"
import type * as RemoteCancel from "../RemoteCancel.ts"
import { isConflict, orInternal, type TaskScope, type TaskStore } from "../TaskStore.ts"
import type * as Commit from "./Commit.ts"
import * as Execution from "./Execution.ts"
import type * as TaskLocks from "./TaskLocks.ts"
import * as TaskReducer from "./TaskReducer.ts"
import { notFound } from "./Turns.ts"

/**
 * The outcome of one round of a cancel: the task canceled, or what to wait for before deciding again (the
 * execution stopping, another node recording its outcome, or nothing after a save lost to another node).
 *
 * @since 0.1.0
 * @category models
 */
export type Round = Canceled | Retry

/**
 * @since 0.1.0
 * @category models
 */
export interface Canceled {
  readonly _tag: "Canceled"
  readonly task: v1.Task
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Retry {
  readonly _tag: "Retry"
  /** What to wait for, outside the lock, before the next round. */
  readonly after: Effect.Effect<void, A2AError>
}

const canceled = (task: v1.Task): Round => ({ _tag: "Canceled", task })

const retryAfter = (after: Effect.Effect<void, A2AError>): Round => ({ _tag: "Retry", after })

/** How long a CancelTask waits for the node running the task to record the outcome. */
const REMOTE_CANCEL_WAIT = "10 seconds"

/** Rounds a cancel takes at most before it gives up (InternalError: try again). */
const MAX_ROUNDS = 5

const notCancelable = (taskId: string, state: v1.TaskState) =>
  new TaskNotCancelable({ message: `Task ${taskId} is ${label(state)} and cannot be canceled`, metadata: { taskId } })

/**
 * What a cancel uses.
 *
 * @since 0.1.0
 * @category models
 */
export interface Dependencies {
  readonly store: TaskStore["Service"]
  readonly bus: EventBus["Service"]
  readonly remote: RemoteCancel.Service
  readonly commit: Commit.Commit
  readonly locks: TaskLocks.TaskLocks
  readonly running: Execution.Running
}

/**
 * Cancels a task: interrupts its execution if one runs, and records CANCELED.
 *
 * @since 0.1.0
 * @category models
 */
export type Cancel = (taskId: string, scope: TaskScope) => Effect.Effect<v1.Task, A2AError>

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = ({ bus, commit, locks, remote, running, store }: Dependencies): Cancel => {
  /**
   * Waits (a bounded time) until the stored task is terminal: another node was asked to cancel its execution and
   * records the outcome; this node hears it on the EventBus.
   */
  const awaitOutcome: (taskId: string, scope: TaskScope) => Effect.Effect<void, A2AError> = Effect.fnUntraced(
    function*(taskId: string, scope: TaskScope) {
      // Subscribed before reading, so nothing between the read and the wait is missed.
      const events = yield* bus.subscribe(taskId)
      const current = yield* store.get(taskId, scope).pipe(orInternal)
      if (Option.isNone(current) || isTerminal(current.value.task.status.state)) return
      const version = current.value.version
      yield* events.pipe(
        Stream.filter(({ event, sequence }) =>
          sequence > version && "statusUpdate" in event && isTerminal(event.statusUpdate.status.state)
        ),
        Stream.runHead,
        Effect.timeoutOption(REMOTE_CANCEL_WAIT)
      )
    },
    Effect.scoped
  )

  /** The terminal outcome of a cancel, once its task is terminal; None while it is not. */
  const outcomeOf = (taskId: string, scope: TaskScope): Effect.Effect<Option.Option<v1.Task>, A2AError> =>
    Effect.flatMap(
      store.get(taskId, scope).pipe(orInternal),
      (stored): Effect.Effect<Option.Option<v1.Task>, A2AError> => {
        if (Option.isNone(stored)) return Effect.fail(notFound(taskId))
        const task = stored.value.task
        const state = task.status.state
        if (state === "TASK_STATE_CANCELED") return Effect.succeedSome(task)
        return isTerminal(state) ? Effect.fail(notCancelable(taskId, state)) : Effect.succeedNone
      }
    )

  /** One round of a cancel, under the task's lock. */
  const round: (taskId: string, scope: TaskScope) => Effect.Effect<Round, A2AError> = Effect.fnUntraced(
    function*(taskId: string, scope: TaskScope) {
      const existing = yield* store.get(taskId, scope).pipe(orInternal)
      if (Option.isNone(existing)) {
        return yield* notFound(taskId)
      }
      const execution = running.get(taskId)?.current
      if (execution !== undefined) {
        // It stops once its save in flight is made: not behind every other task's saves.
        store.hurry?.(taskId)
        return retryAfter(Execution.stop(execution))
      }
      const { task, version } = existing.value
      if (isTerminal(task.status.state)) return yield* notCancelable(taskId, task.status.state)
      // In flight with no execution here: it may run on another node, which then cancels it.
      if (!isFinal(task.status.state) && (yield* remote.request(taskId, scope))) {
        return retryAfter(awaitOutcome(taskId, scope))
      }
      const applied = TaskReducer.setStatus(task, { state: "TASK_STATE_CANCELED", timestamp: yield* Ids.now })
      const saved = yield* commit(scope, version, applied).pipe(
        Effect.as(true),
        Effect.catchIf(isConflict, () => Effect.succeed(false)),
        orInternal
      )
      // Lost a race with another node's save: decide again on what it saved.
      return saved ? canceled(applied.task) : retryAfter(Effect.void)
    }
  )

  return Effect.fnUntraced(function*(taskId: string, scope: TaskScope) {
    for (let i = 0; i < MAX_ROUNDS; i++) {
      const outcome = yield* locks.withLock(taskId, round(taskId, scope))
      if (outcome._tag === "Canceled") return outcome.task
      yield* outcome.after
      const ended = yield* outcomeOf(taskId, scope)
      if (Option.isSome(ended)) return ended.value
    }
    return yield* new InternalError({ message: `Task ${taskId} could not be canceled; try again` })
  })
}
