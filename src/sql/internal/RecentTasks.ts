/**
 * What a process remembers of the tasks it handled most recently, keyed by task id and bounded: past its bound the
 * task noted longest ago is forgotten. For guesses that spare a read (a task's history, whether it has webhooks)
 * and marks that must not grow without end (the tasks a cancel hurries), where forgetting costs only that read.
 *
 * @internal
 */

/** Tasks remembered at most, by default. */
const DEFAULT_BOUND = 10_000

/**
 * A bounded map of task ids (see the module).
 *
 * @since 0.2.0
 * @category models
 */
export interface RecentTasks<A> {
  readonly get: (taskId: string) => A | undefined
  readonly has: (taskId: string) => boolean
  /** Notes `value` for the task, as its most recent. */
  readonly set: (taskId: string, value: A) => void
  readonly delete: (taskId: string) => void
}

/**
 * An empty RecentTasks remembering `bound` tasks at most.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <A>(bound: number = DEFAULT_BOUND): RecentTasks<A> => {
  const tasks = new Map<string, A>()
  return {
    get: (taskId) => tasks.get(taskId),
    has: (taskId) => tasks.has(taskId),
    set: (taskId, value) => {
      // deleted first: a Map iterates in insertion order, so the first key is the one noted longest ago
      tasks.delete(taskId)
      tasks.set(taskId, value)
      if (tasks.size > bound) tasks.delete(tasks.keys().next().value!)
    },
    delete: (taskId) => {
      tasks.delete(taskId)
    }
  }
}
