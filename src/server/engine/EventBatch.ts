/**
 * The reduction of a batch of agent events: from the task as last saved and the events an agent emitted since, the
 * task to save, the events to publish (each with the task after it), and whether the turn ends. Pure: the
 * execution saves, publishes and reports what this decides (see Execution's `step`).
 *
 * Events are applied in order, each seeing those before it; nothing after the event that ends the turn is applied.
 * A turn ends at
 * - a final state (terminal or interrupted): the events up to it are saved, and the turn is over (`final`);
 * - a message before any task: the direct reply, the whole answer (`ending`, `Reply`); when the caller named the
 *   task (`namedTask`, A2A 0.1), the task, completed with that message (`final`);
 * - a misbehaving event (TaskReducer's checks): the events before it are saved, then the task fails (`ending`,
 *   `Invalid`), as one event at a time would have had it.
 *
 * Once the task exists its stream may only carry updates (spec: a Task, then status or artifact updates until a
 * terminal or interrupted state). A message then is the agent asking the client something: it becomes the status
 * message of an INPUT_REQUIRED update, and joins the history.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isFinal } from "../../protocol/TaskStates.ts"
import type { AgentEvent } from "../AgentEvent.ts"
import * as TaskReducer from "./TaskReducer.ts"

/**
 * What ends a turn without a change of the task: a direct reply (the message as the caller hears it: the turn's
 * contextId, no taskId), or a misbehaving event (why it was refused).
 *
 * @since 0.1.0
 * @category models
 */
export type Ending =
  | { readonly _tag: "Reply"; readonly message: v1.Message }
  | { readonly _tag: "Invalid"; readonly reason: string }

/**
 * @since 0.1.0
 * @category models
 */
export interface Reduced {
  /**
   * The change of the whole batch: the task after its last applied event (what to save) and every event to
   * publish, in order; undefined when no event was applied.
   */
  readonly applied: TaskReducer.Applied | undefined
  /**
   * How many of the events were applied (the first ones). When more than one, saving the batch at once may fail:
   * `steps` then gives each one's own change, to save one event at a time.
   */
  readonly count: number
  /** An applied event reached a final state: the turn is over once the batch is saved. */
  readonly final: boolean
  /** What ends the turn after the batch is saved, if an event did. */
  readonly ending: Ending | undefined
}

/**
 * Reduces `events` over `task` (undefined before the turn's task exists), `context` naming the turn's task,
 * context, message and time.
 *
 * @since 0.1.0
 * @category reduction
 */
export const reduce = (
  task: v1.Task | undefined,
  events: ReadonlyArray<AgentEvent>,
  context: TaskReducer.ReducerContext
): Reduced => {
  // The task as the events so far leave it: an event sees those before it in the batch.
  let current = task
  let first: TaskReducer.Applied | undefined
  let published: ReadonlyArray<TaskReducer.Published> | undefined
  let count = 0
  let final = false
  let ending: Ending | undefined
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    let taskEvent = event
    if ("message" in event) {
      const reply: v1.Message = { ...event.message, contextId: context.contextId }
      if (current === undefined && context.namedTask === true) {
        // The task the caller named: the reply completes it (the reducer starts its history with the user message).
        const answer: v1.Message = { ...reply, taskId: context.taskId }
        taskEvent = {
          task: {
            id: context.taskId,
            contextId: context.contextId,
            status: { state: "TASK_STATE_COMPLETED", message: answer, timestamp: context.now },
            history: [answer]
          }
        }
      } else if (current === undefined) {
        const { taskId: _, ...message } = reply
        ending = { _tag: "Reply", message }
        break
      } else {
        taskEvent = {
          statusUpdate: {
            taskId: context.taskId,
            contextId: context.contextId,
            status: {
              state: "TASK_STATE_INPUT_REQUIRED",
              message: { ...reply, taskId: context.taskId },
              timestamp: context.now
            }
          }
        }
      }
    }
    const applied = TaskReducer.apply(current, taskEvent, context)
    if (Result.isFailure(applied)) {
      ending = { _tag: "Invalid", reason: applied.failure }
      break
    }
    current = applied.success.task
    count++
    if (first === undefined) {
      first = applied.success
      published = first.published
    } else {
      published = published!.concat(applied.success.published)
    }
    // Only this turn's own status decides: a continued task starts out interrupted (input-required).
    const reached = "statusUpdate" in taskEvent
      ? taskEvent.statusUpdate.status.state
      : "task" in taskEvent
      ? taskEvent.task.status.state
      : undefined
    if (reached !== undefined && isFinal(reached)) {
      final = true
      break
    }
  }
  // One event's change is the batch's as it is (no second object for the common case).
  const applied = count <= 1 ? first : { task: current!, published: published! }
  return { applied, count, final, ending }
}

/**
 * Each of `events`' own change over those before it, from `task`: what is saved one event at a time when saving
 * them at once failed (the events before the failing one are then stored and published, and the failure is that
 * event's, as with one save per event). `events` are a batch's applied ones (`Reduced.count`). Made only then: kept
 * with every batch, these changes (a task each, with its own copy of the history) lived as long as the batch's save
 * waited for its group commit.
 *
 * @since 0.1.0
 * @category reduction
 */
export const steps = (
  task: v1.Task | undefined,
  events: ReadonlyArray<AgentEvent>,
  context: TaskReducer.ReducerContext
): ReadonlyArray<TaskReducer.Applied> => {
  const changes: Array<TaskReducer.Applied> = []
  let current = task
  for (const event of events) {
    const { applied } = reduce(current, [event], context)
    if (applied === undefined) break
    changes.push(applied)
    current = applied.task
  }
  return changes
}
