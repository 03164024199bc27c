/**
 * In-memory TaskStore: a map of records, listed by sorting on (status timestamp, id). For tests and
 * single-process use; everything is lost when the process exits. A task that has ended is never saved over.
 *
 * Bounded, so a long-running server's memory stays flat: a task that has ended (completed, failed, canceled,
 * rejected) is kept for `terminalTaskTtl` and among the `maxTerminalTasks` most recently ended, then forgotten
 * (GetTask answers TaskNotFound); a task still in progress or waiting for input is never forgotten. A task's
 * history keeps its `maxHistory` most recent messages; `historyLength` in requests works on what is kept.
 *
 * @example
 * ```ts
 * import { MemoryTaskStore, TaskStore } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * const found = Effect.gen(function*() {
 *   const store = yield* TaskStore.TaskStore
 *   return yield* store.get("t-1", { owner: "alice", tenant: "" })
 * }).pipe(Effect.provide(MemoryTaskStore.layerWith({ maxTerminalTasks: 1000, terminalTaskTtl: "10 minutes" })))
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { isTerminal } from "../../protocol/TaskStates.ts"
import {
  compareCursor,
  cursorOf,
  inScope,
  limitHistory,
  matchesQuery,
  shapeArtifacts,
  type TaskRecord,
  TaskStore,
  terminalConflict
} from "../TaskStore.ts"

/**
 * The bounds of the memory store: how many ended tasks it keeps and for how long, and how long a task's history
 * grows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Ended tasks kept, at most: the earliest to end are forgotten first. Default 10,000. */
  readonly maxTerminalTasks?: number | undefined
  /** How long an ended task is kept. Default 1 hour. */
  readonly terminalTaskTtl?: Duration.Input | undefined
  /** Messages kept in a task's history, the most recent. Default 1,000. */
  readonly maxHistory?: number | undefined
}

/**
 * The most ended tasks kept by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_TERMINAL_TASKS = 10_000
/**
 * How long an ended task is kept by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_TERMINAL_TASK_TTL = Duration.hours(1)
/**
 * The most messages of a task's history kept by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_HISTORY = 1_000

const capHistory = (record: TaskRecord, maxHistory: number): TaskRecord => {
  const history = record.task.history
  return history === undefined || history.length <= maxHistory
    ? record
    : { ...record, task: { ...record.task, history: history.slice(-maxHistory) } }
}

/**
 * Tasks kept in this process, within `options`' bounds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWith = (options: Options = {}): Effect.Effect<TaskStore["Service"]> =>
  Effect.sync(() => {
    const maxTerminal = Math.max(0, Math.floor(options.maxTerminalTasks ?? DEFAULT_MAX_TERMINAL_TASKS))
    const ttl = Duration.toMillis(Duration.fromInputUnsafe(options.terminalTaskTtl ?? DEFAULT_TERMINAL_TASK_TTL))
    const maxHistory = Math.max(1, Math.floor(options.maxHistory ?? DEFAULT_MAX_HISTORY))
    // Each operation is one synchronous step, so plain Maps are safe: fibers never observe a half-done update.
    const records = new Map<string, TaskRecord>()
    // Ended tasks, with when they ended.
    const ended = new Map<string, number>()
    // The same, in the order they ended: a queue read from `head`. Not the Map's own order: a Map keeps the slots
    // of its deleted entries until it grows again, and iterating it from its start steps over each of them, so
    // finding the oldest ended task in a full store (one forgotten per save) cost thousands of steps per save
    // .
    const endedIds: Array<string> = []
    let head = 0

    const forget = (now: number) => {
      while (head < endedIds.length) {
        const taskId = endedIds[head]!
        if (ended.size <= maxTerminal && now - ended.get(taskId)! < ttl) break
        head++
        ended.delete(taskId)
        records.delete(taskId)
      }
      // Drop the forgotten part of the queue once it is most of it: amortised, a constant per save.
      if (head > 1024 && head * 2 > endedIds.length) {
        endedIds.splice(0, head)
        head = 0
      }
    }

    const save: TaskStore["Service"]["save"] = (record) =>
      // clockWith calls back when the effect runs: the check and the write are one step.
      Effect.clockWith((clock) => {
        const taskId = record.task.id
        // A terminal state never changes: whoever saves over one lost a race with the writer that ended the task.
        if (ended.has(taskId)) return Effect.fail(terminalConflict(taskId, records.get(taskId)!.task.status.state))
        records.set(taskId, capHistory(record, maxHistory))
        const now = clock.currentTimeMillisUnsafe()
        if (isTerminal(record.task.status.state)) {
          ended.set(taskId, now)
          endedIds.push(taskId)
        }
        if (ended.size > 0) forget(now)
        return Effect.void
      })

    const isLive = (record: TaskRecord, now: number): boolean => {
      const at = ended.get(record.task.id)
      return at === undefined || now - at < ttl
    }

    return TaskStore.of({
      // clockWith calls back when the effect runs, so the lookup happens then, in one step.
      get: (taskId, scope) =>
        Effect.clockWith((clock) => {
          const record = records.get(taskId)
          return Effect.succeed(
            record !== undefined && inScope(record, scope) && isLive(record, clock.currentTimeMillisUnsafe())
              ? Option.some(record)
              : Option.none()
          )
        }),
      save,
      list: (scope, query) =>
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            const now = clock.currentTimeMillisUnsafe()
            const matching = Array.from(records.values())
              .filter((r) => inScope(r, scope) && matchesQuery(r.task, query) && isLive(r, now))
              .map((r) => r.task)
              .sort((a, b) => compareCursor(cursorOf(a), cursorOf(b)))
            const after = query.after
            const rest = after === undefined
              ? matching
              : matching.filter((t) => compareCursor(cursorOf(t), after) > 0)
            const page = rest.slice(0, query.pageSize)
            const last = page[page.length - 1]
            return {
              tasks: page.map((t) => shapeArtifacts(limitHistory(t, query.historyLength), query.includeArtifacts)),
              totalSize: matching.length,
              next: rest.length > page.length && last !== undefined ? Option.some(cursorOf(last)) : Option.none()
            }
          })
        )
    })
  })

/**
 * The store with the default bounds (see `Options`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<TaskStore["Service"]> = makeWith()

/**
 * Tasks kept in this process, with the default bounds, as the TaskStore.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<TaskStore> = Layer.effect(TaskStore, make)

/**
 * Tasks kept in this process, within `options`' bounds, as the TaskStore.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<TaskStore> => Layer.effect(TaskStore, makeWith(options))

/**
 * The bounds from configuration: `A2A_MEMORY_MAX_TASKS` (ended tasks kept), `A2A_MEMORY_TASK_TTL` (e.g.
 * "1 hour") and `A2A_MEMORY_MAX_HISTORY`, each with the default of `Options`.
 *
 * @since 0.1.0
 * @category config
 */
export const optionsConfig: Config.Config<Options> = Config.all({
  maxTerminalTasks: Config.Int("A2A_MEMORY_MAX_TASKS").pipe(Config.withDefault(DEFAULT_MAX_TERMINAL_TASKS)),
  terminalTaskTtl: Config.Duration("A2A_MEMORY_TASK_TTL").pipe(Config.withDefault(DEFAULT_TERMINAL_TASK_TTL)),
  maxHistory: Config.Int("A2A_MEMORY_MAX_HISTORY").pipe(Config.withDefault(DEFAULT_MAX_HISTORY))
})

/**
 * Tasks kept in this process, within the bounds read from the environment (see `optionsConfig`), as the TaskStore.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<TaskStore, Config.ConfigError> = Layer.unwrap(
  Effect.map(optionsConfig, layerWith)
)
