/**
 * Per-task mutual exclusion: continuing a task, cancelling a task with no execution, and an execution letting go
 * of its task happen under the task's lock. A semaphore per task, kept only while someone holds or waits for it:
 * Effect's RcMap of semaphores.
 *
 * `isHeld` tells whether any fiber holds or waits for a task's lock: a task no one holds is free, and a step that
 * runs at once (synchronously) then needs no lock, since nothing else can run meanwhile (see Execution's
 * `release`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as RcMap from "effect/RcMap"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"

/**
 * @since 0.1.0
 * @category models
 */
export interface TaskLocks {
  /** Runs `effect` holding the task's lock (waiting for it first). */
  readonly withLock: <A, E>(taskId: string, effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  /** Whether some fiber holds or waits for the task's lock. */
  readonly isHeld: (taskId: string) => boolean
}

/**
 * The locks, for as long as the scope lasts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<TaskLocks, never, Scope.Scope> = Effect.map(
  RcMap.make({ lookup: (_taskId: string) => Semaphore.make(1) }),
  (locks) => {
    // How many fibers hold or wait for each task's lock: a task missing here is free.
    const users = new Map<string, number>()
    const withLock = <A, E>(taskId: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.uninterruptibleMask((restore) => {
        users.set(taskId, (users.get(taskId) ?? 0) + 1)
        return Effect.ensuring(
          restore(Effect.scoped(Effect.flatMap(RcMap.get(locks, taskId), (lock) => lock.withPermit(effect)))),
          Effect.sync(() => {
            const left = users.get(taskId)! - 1
            if (left === 0) users.delete(taskId)
            else users.set(taskId, left)
          })
        )
      })
    return { withLock, isHeld: (taskId) => users.has(taskId) }
  }
)
