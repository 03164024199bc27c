/**
 * Persistence of tasks. Every access is scoped by the owner principal and the tenant (spec 13.1): a task of
 * another owner, or under another tenant, does not exist. The list query is structured (filters, cursor, shaping) so a SQL implementation can do it
 * all in SQL; the pagination token's wire form belongs to the RequestHandler, not to the store.
 *
 * @example
 * ```ts
 * import { TaskStore } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * const latest = Effect.gen(function*() {
 *   const store = yield* TaskStore.TaskStore
 *   const page = yield* store.list({ owner: "alice", tenant: "" }, { pageSize: 10, includeArtifacts: false })
 *   return page.tasks
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { InternalError, Unavailable } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import { isFinal, label } from "../protocol/TaskStates.ts"

/**
 * A TaskStore failure: the storage unreachable (`unavailable`), another writer first (`conflict`), or anything
 * else.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskStoreError extends Schema.TaggedError<TaskStoreError>()("TaskStoreError", {
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect()),
  /**
   * True when a save lost a race: another writer (e.g. another server node sharing the database) saved the task
   * since it was read. Reading it again and deciding anew is the remedy, not reporting a failure.
   */
  conflict: Schema.optionalKey(Schema.Boolean),
  /**
   * True when the storage could not be reached (its database is down or restarting, its connection lost): the
   * request may succeed if made again later, so the client is told UNAVAILABLE rather than an internal error.
   */
  unavailable: Schema.optionalKey(Schema.Boolean)
}) {}

/**
 * Whether a store failure is a lost race (see `TaskStoreError.conflict`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isConflict = (error: TaskStoreError): boolean => error.conflict === true

/**
 * The failure of a save over a task that has ended: a terminal state never changes (spec 4.1.3), so every store
 * refuses it, as a conflict (the writer that ended the task won the race).
 *
 * @since 0.1.0
 * @category utils
 */
export const terminalConflict = (taskId: string, state: v1.TaskState): TaskStoreError =>
  new TaskStoreError({ message: `Task ${taskId} has ended (${label(state)}); its state cannot change`, conflict: true })

const storageFailed = new InternalError({ message: "Task storage failed" })

/**
 * Seconds a client is asked to wait before retrying while the storage is unreachable.
 *
 * @since 0.1.0
 * @category constants
 */
export const UNAVAILABLE_RETRY_SECONDS = 2

const storageUnreachable = new Unavailable({
  message: "Task storage is unreachable; retry later",
  retryAfterSeconds: UNAVAILABLE_RETRY_SECONDS
})

/**
 * Whether a client's error is the one a store failure makes when the storage could not be reached (`clientErrorOf`),
 * not an Unavailable of other origin (an agent's own).
 *
 * @since 0.1.0
 * @category guards
 */
export const isStorageUnreachable = (error: unknown): boolean => error === storageUnreachable

/**
 * What a store failure is for the client: Unavailable when the storage could not be reached, else InternalError.
 *
 * @since 0.1.0
 * @category utils
 */
export const clientErrorOf = (error: { readonly unavailable?: boolean | undefined }): InternalError | Unavailable =>
  error.unavailable === true ? storageUnreachable : storageFailed

/**
 * A store failure as the client sees it (`clientErrorOf`), with a generic message. What failed (SQL, versions,
 * file names) is logged for the operator and never sent to the client.
 *
 * @since 0.1.0
 * @category utils
 */
export const orInternal = <A, R>(
  effect: Effect.Effect<A, TaskStoreError, R>
): Effect.Effect<A, InternalError | Unavailable, R> => Effect.catchTag(effect, "TaskStoreError", storageFailure)

/**
 * What `orInternal` makes of a storage error: logged, and the client's error.
 *
 * @since 0.1.0
 * @category utils
 */
export const storageFailure = (error: TaskStoreError): Effect.Effect<never, InternalError | Unavailable> =>
  Effect.andThen(Effect.logError("effect-a2a: task storage failed", error), Effect.fail(clientErrorOf(error)))

/**
 * Whose a task is: every task access is scoped by both (spec 13.1). A task created under one tenant is not
 * found under another, nor at the root (no tenant).
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskScope {
  /** Principal id of the owner. */
  readonly owner: string
  /** The request's `tenant` (the REST `/{tenant}` prefix, the JSON-RPC `tenant` param); "" when it names none. */
  readonly tenant: string
}

/**
 * A stored task: the task, whose it is, and its version (incremented by every saved change). A value: once saved or
 * read, no one changes a record or its task in place (a change is a new record, saved), so what was derived from a
 * task object (its JSON text, kept for the next GetTask) stays true of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskRecord extends TaskScope {
  readonly task: v1.Task
  /**
   * Monotonic per task. Event-bus events carry the version they produced, so a subscriber that reads a
   * snapshot at version v replays exactly the events with a larger sequence (spec 3.1.6).
   */
  readonly version: number
  /**
   * The message (its messageId) that the save of this record took into the task, its turn starting: a task waiting
   * for input keeps its status until its agent reports, so this tells a turn cut short before then (its node lost
   * or stopped) from one that ended. Only that save sets it; the turn's next save (a new record) has none.
   */
  readonly turn?: string | undefined
}

/**
 * Whether the turn of message `messageId`, already taken into the record's task, was cut short (its node lost or
 * stopped) rather than ended: the task is still in flight, or its last save is the one that took the message in.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTurnCut = (record: TaskRecord, messageId: string): boolean =>
  !isFinal(record.task.status.state) || record.turn === messageId

/**
 * Where a page ends, in the list's order (status timestamp descending, then task id descending).
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskCursor {
  /** Status timestamp in epoch milliseconds. */
  readonly timestamp: number
  readonly id: string
}

/**
 * What ListTasks asks the store for: filters, page size and cursor, and how much of each task to return.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskQuery {
  readonly contextId?: string | undefined
  readonly status?: v1.TaskState | undefined
  /** Only tasks whose status timestamp (epoch ms) is >= this. */
  readonly statusTimestampAfter?: number | undefined
  /** 1..100, already validated. */
  readonly pageSize: number
  /** Return only tasks strictly after this cursor. */
  readonly after?: TaskCursor | undefined
  /** Keep at most this many most recent history messages; 0 drops `history`. Unset keeps all. */
  readonly historyLength?: number | undefined
  /** When false, `artifacts` is omitted from every task. */
  readonly includeArtifacts: boolean
}

/**
 * One page of tasks, the cursor of the next page, if any, and how many tasks match in all.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskPage {
  readonly tasks: ReadonlyArray<v1.Task>
  /** Number of tasks matching the filters, ignoring pagination. */
  readonly totalSize: number
  /** Cursor of the last task on this page when more tasks follow; None on the last page. */
  readonly next: Option.Option<TaskCursor>
}

/**
 * Where tasks are kept, per owner and tenant.
 *
 * @since 0.1.0
 * @category services
 */
export class TaskStore extends Context.Service<TaskStore, {
  /** The task if it exists in `scope` (same owner and tenant). */
  readonly get: (taskId: string, scope: TaskScope) => Effect.Effect<Option.Option<TaskRecord>, TaskStoreError>
  /**
   * Inserts or replaces the task (keyed by `record.task.id`); never a task that has ended, whose terminal state
   * never changes: that save fails as a conflict (`terminalConflict`).
   */
  readonly save: (record: TaskRecord) => Effect.Effect<void, TaskStoreError>
  /** Tasks in `scope` matching the query, newest status first (ties: larger id first). */
  readonly list: (scope: TaskScope, query: TaskQuery) => Effect.Effect<TaskPage, TaskStoreError>
  /**
   * True when a save is costly enough (a commit, as in the SQL stores) that the server should write the events an
   * agent emits back to back in one save: the agent then runs ahead of the writes by a few events, and each event
   * is still published only once saved. Unset or false (the in-memory store): one save per event, made before the
   * agent goes on.
   */
  readonly coalesceSaves?: boolean | undefined
  /**
   * True while the store is too far behind on its writes to take new work (the SQLite store past its
   * `maxWriteLag`): a send is then refused with `storeBusy` (UNAVAILABLE, retry after a second) instead of being
   * queued behind those writes. Unset: the store always takes new work.
   */
  readonly overloaded?: (() => boolean) | undefined
  /**
   * Told when a cancel is about to wait for the task's execution to stop, which waits for the save the execution
   * has in flight: a store that queues its writes (SQLite) writes that task's saves ahead of the others from then
   * on, so a cancel does not wait for the whole backlog. Unset: nothing to hurry.
   */
  readonly hurry?: ((taskId: string) => void) | undefined
  /**
   * Told that a task is not stored, known without reading it (a new task whose id its sender chose and told nobody),
   * as a read that found nothing would tell it: a store that reads a task before saving it unless it knows what is
   * stored (the SQL stores) writes its first save as a new task's. Wrong, it costs that save a read, never a write:
   * the save is refused by what is stored, then made as without the hint. Unset: nothing to tell.
   */
  readonly absent?: ((taskId: string) => void) | undefined
}>()("effect-a2a/server/TaskStore") {}

/**
 * Seconds a client is asked to wait before sending again while the store is behind on its writes (`storeBusy`).
 *
 * @since 0.2.0
 * @category constants
 */
export const STORE_BUSY_RETRY_SECONDS = 1

/**
 * What a send hears while the store is behind on its writes (`TaskStore.overloaded`): UNAVAILABLE, retry later
 * (HTTP 503 with Retry-After).
 *
 * @since 0.2.0
 * @category errors
 */
export const storeBusy: Unavailable = new Unavailable({
  message: "The task store is behind on its writes; send the message again later",
  retryAfterSeconds: STORE_BUSY_RETRY_SECONDS
})

// --- helpers shared by implementations ---

/**
 * Status timestamp in epoch ms; tasks without one sort oldest.
 *
 * @since 0.1.0
 * @category utils
 */
export const statusTimestampOf = (task: v1.Task): number => {
  const ts = task.status.timestamp
  if (ts === undefined) return 0
  const ms = Date.parse(ts)
  return Number.isNaN(ms) ? 0 : ms
}

/**
 * Compares in list order: negative when `a` comes first (newer status, then larger id).
 *
 * @since 0.1.0
 * @category utils
 */
export const compareCursor = (a: TaskCursor, b: TaskCursor): number =>
  a.timestamp !== b.timestamp ? b.timestamp - a.timestamp : a.id < b.id ? 1 : a.id > b.id ? -1 : 0

/**
 * Whether a record is in a scope.
 *
 * @since 0.1.0
 * @category utils
 */
export const inScope = (record: TaskScope, scope: TaskScope): boolean =>
  record.owner === scope.owner && record.tenant === scope.tenant

/**
 * The cursor of a task in ListTasks order.
 *
 * @since 0.1.0
 * @category utils
 */
export const cursorOf = (task: v1.Task): TaskCursor => ({ timestamp: statusTimestampOf(task), id: task.id })

/**
 * Applies history-length semantics (spec 3.2.4): unset keeps all, 0 omits `history`, n keeps the last n.
 *
 * @since 0.1.0
 * @category utils
 */
export const limitHistory = (task: v1.Task, historyLength: number | undefined): v1.Task => {
  if (historyLength === undefined || task.history === undefined) return task
  if (historyLength <= 0) {
    const { history: _, ...rest } = task
    return rest
  }
  return task.history.length <= historyLength ? task : { ...task, history: task.history.slice(-historyLength) }
}

/**
 * Omits `artifacts` entirely unless asked for (spec 3.1.4); an empty list is kept when included.
 *
 * @since 0.1.0
 * @category utils
 */
export const shapeArtifacts = (task: v1.Task, includeArtifacts: boolean): v1.Task => {
  if (includeArtifacts) return task.artifacts === undefined ? { ...task, artifacts: [] } : task
  if (task.artifacts === undefined) return task
  const { artifacts: _, ...rest } = task
  return rest
}

/**
 * Whether a task matches the filters of a query (not the cursor).
 *
 * @since 0.1.0
 * @category utils
 */
export const matchesQuery = (task: v1.Task, query: TaskQuery): boolean =>
  (query.contextId === undefined || task.contextId === query.contextId) &&
  (query.status === undefined || task.status.state === query.status) &&
  (query.statusTimestampAfter === undefined || statusTimestampOf(task) >= query.statusTimestampAfter)
