/**
 * The long-poll GetTask of the A2A 1.1 draft (A2A11): a GetTask with `currentGeneration` N is answered once the
 * task's generation is greater than N, at once when it already is (or when the task has ended, or keeps no
 * generation), else when one of the task's events on the EventBus carries a greater one, or when the server's
 * longest wait ends, with the task as it is then.
 *
 * A waiting request holds a bus subscription and a small sink, no fiber of its own beyond its request's, and reads
 * the store only when it starts and when it answers: thousands of them cost little memory and no CPU while their
 * tasks do not change.
 *
 * @since 0.2.0
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { A2AError, Unavailable } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isTerminal } from "../../protocol/TaskStates.ts"
import { generationOf } from "../engine/TaskReducer.ts"
import type { EventBus, TaskEvent } from "../EventBus.ts"
import * as PushStream from "../internal/PushStream.ts"
import type { TaskRecord, TaskScope, TaskStore } from "../TaskStore.ts"
import { endsTask, getOwned } from "./Common.ts"

/**
 * The generation an event carries (0: none).
 *
 * @since 0.2.0
 * @category utils
 */
export const generationOfEvent = (event: v1.StreamResponse): number =>
  "statusUpdate" in event
    ? event.statusUpdate.generation ?? 0
    : "artifactUpdate" in event
    ? event.artifactUpdate.generation ?? 0
    : "task" in event
    ? event.task.generation ?? 0
    : 0

/** Whether a GetTask waiting past `after` answers with this task at once. */
const answersNow = (task: v1.Task, after: number): boolean => {
  const generation = generationOf(task)
  // A task that keeps no generation (made before the server kept them) would never move past `after`.
  return generation === 0 || generation > after || isTerminal(task.status.state)
}

/** Opens `woken` at the first event past `after` (or when the bus can no longer promise events). */
class Waker implements PushStream.Sink<TaskEvent, Unavailable> {
  readonly woken = Deferred.makeUnsafe<void>()
  private readonly after: number
  constructor(after: number) {
    this.after = after
  }
  offer(e: TaskEvent): void {
    if (generationOfEvent(e.event) > this.after || endsTask(e.event)) Deferred.doneUnsafe(this.woken, Effect.void)
  }
  fail(_cause: Cause.Cause<Unavailable>): void {
    Deferred.doneUnsafe(this.woken, Effect.void)
  }
  end(): void {
    Deferred.doneUnsafe(this.woken, Effect.void)
  }
}

/**
 * The task once its generation is past `after`, or as it is when `maxWait` ends. Subscribes before it reads the
 * task, so no event between the two is missed.
 *
 * @since 0.2.0
 * @category constructors
 */
export const waitPast = (
  store: TaskStore["Service"],
  bus: EventBus["Service"],
  taskId: string,
  scope: TaskScope,
  after: number,
  maxWait: Duration.Duration
): Effect.Effect<TaskRecord, A2AError> =>
  Effect.scoped(
    Effect.flatMap(bus.subscribe(taskId), (events) => {
      const waker = new Waker(after)
      return Effect.andThen(
        PushStream.run(events, waker),
        Effect.flatMap(getOwned(store, taskId, scope), (record) =>
          answersNow(record.task, after)
            ? Effect.succeed(record)
            : Deferred.await(waker.woken).pipe(
              Effect.timeoutOption(maxWait),
              // The event was published after its save: the store holds it (or a later change) now.
              Effect.andThen(getOwned(store, taskId, scope))
            ))
      )
    })
  )
