/**
 * The reduction of a batch of agent events: from the task as last saved and the events an agent emitted since, the
 * task to save, the events to publish (each with the task after it), and whether the turn ends. Pure: the
 * execution saves, publishes and reports what this decides (see Execution's `step`).
 *
 * Events are applied in order, each seeing those before it; nothing after the event that ends the turn is applied.
 * A turn ends at
 * - a final state (terminal or interrupted): the events up to it are saved, and the turn is over (`final`);
 * - a message before any task: the direct reply, the whole answer (`ending`, `Reply`);
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
import type * as v1 from "../../generated/v1.ts"
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
   * Each applied event's own change, when more than one was applied: what is saved one event at a time when
   * saving the batch at once fails (the events before the failing one are then stored and published, and the
   * failure is that event's, as with one save per event).
   */
  readonly steps: ReadonlyArray<TaskReducer.Applied> | undefined
  /** An applied event reached a final state: the turn is over once the batch is saved. */
  readonly final: boolean
  /** What ends the turn after the batch is saved, if an event did. */
  readonly ending: Ending | undefined
}

/**
 * The history of a batch's tasks, copied once per batch rather than once per message: the first message the batch
 * adds copies the history it joins, the later ones are pushed onto that copy (`append`, TaskReducer's
 * AppendHistory). Each step's task must still hold the history as its own event left it: `track`, called with each
 * step in order, notes its length, and `settle`, once the fold is over, gives each step whose task's history grew
 * after it a task whose history is that many messages, copied only if someone reads it. A copy of the whole history
 * per message (a task's history grows by a message per status: O(history) per event) was garbage held until the
 * batch was saved, long enough to be promoted when saves wait for a group commit (BENCHMARKS.md, "Write load, third
 * pass").
 */
const batchHistory = () => {
  // The batch's own copy: pushed onto only while no one outside the fold has seen it. (Pushes may leave it spare
  // room, held until the task's next batch copies it again.)
  let owned: Array<v1.Message> | undefined
  // Per step, in order: the length of its task's history when that is the batch's copy, else -1.
  const lengths: Array<number> = []
  const append: TaskReducer.AppendHistory = (history, message) => {
    if (TaskReducer.holds(history, message)) return history!
    if (history !== undefined && history === owned) {
      owned.push(message)
      return owned
    }
    return (owned = history === undefined ? [message] : history.concat([message]))
  }
  const track = (step: TaskReducer.Applied) => {
    lengths.push(owned !== undefined && step.task.history === owned ? owned.length : -1)
  }
  const settle = (steps: ReadonlyArray<TaskReducer.Applied>) =>
    steps.map((step, i): TaskReducer.Applied => {
      const length = lengths[i]!
      if (length < 0 || length === step.task.history!.length) return step
      const task = withHistoryPrefix(step.task, length)
      return { task, published: step.published.map((p) => p.task === step.task ? { event: p.event, task } : p) }
    })
  return { append, track, settle }
}

/** Where a task made by `withHistoryPrefix` keeps what its history is made from (not enumerable: not copied). */
const prefixOf = Symbol("EventBatch.historyPrefix")

interface Prefix {
  readonly history: ReadonlyArray<v1.Message>
  readonly length: number
  copy: ReadonlyArray<v1.Message> | undefined
}

// One getter for every such task: V8 keeps an accessor in the object's hidden class, so a getter per task would
// give each task a hidden class of its own.
function historyPrefix(this: { readonly [prefixOf]: Prefix }): ReadonlyArray<v1.Message> {
  const prefix = this[prefixOf]
  return (prefix.copy ??= prefix.history.slice(0, prefix.length))
}

/** `task` with the first `length` messages of its history as its history, copied when first read. */
const withHistoryPrefix = ({ history, ...task }: v1.Task, length: number): v1.Task =>
  Object.defineProperties(task, {
    [prefixOf]: { value: { history: history!, length, copy: undefined } satisfies Prefix },
    history: { enumerable: true, get: historyPrefix }
  })

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
  let steps: Array<TaskReducer.Applied> | undefined
  let final = false
  let ending: Ending | undefined
  const history = events.length > 1 ? batchHistory() : undefined
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    let taskEvent = event
    if ("message" in event) {
      const reply: v1.Message = { ...event.message, contextId: context.contextId }
      if (current === undefined) {
        const { taskId: _, ...message } = reply
        ending = { _tag: "Reply", message }
        break
      }
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
    const applied = TaskReducer.apply(current, taskEvent, context, history?.append)
    if (Result.isFailure(applied)) {
      ending = { _tag: "Invalid", reason: applied.failure }
      break
    }
    current = applied.success.task
    history?.track(applied.success)
    if (first === undefined) first = applied.success
    else (steps ??= [first]).push(applied.success)
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
  if (steps !== undefined) steps = history!.settle(steps)
  // One event's change is the batch's as it is (no second object for the common case).
  const applied = first === undefined || steps === undefined
    ? first
    : { task: current!, published: steps.flatMap((step) => step.published) }
  return { applied, steps, final, ending }
}
