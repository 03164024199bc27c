/**
 * The operations that read tasks and follow them: GetTask, ListTasks, SubscribeToTask (spec 3.1.3-3.1.6), and
 * CancelTask, which answers the task as its cancel leaves it. `follow` is how a stream delivers a task's snapshot
 * and then its events; SendStreamingMessage uses it too, for a message an earlier send already accepted.
 *
 * @since 0.2.0
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { type A2AError, type FieldViolation, type Unavailable, UnsupportedOperation } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isTerminal, label } from "../../protocol/TaskStates.ts"
import type { TaskEvent } from "../EventBus.ts"
import * as PageToken from "../internal/PageToken.ts"
import * as PushStream from "../internal/PushStream.ts"
import * as Validation from "../internal/Validation.ts"
import { limitHistory, orInternal, type TaskScope } from "../TaskStore.ts"
import {
  DEFAULT_PAGE_SIZE,
  endsTask,
  getOwned,
  getOwnedThen,
  MAX_PAGE_SIZE,
  noStreaming,
  scopeOf,
  type Shared
} from "./Common.ts"
import type { Handlers } from "./Common.ts"
import * as LongPoll from "./LongPoll.ts"

/**
 * The reading operations, and `follow` for the sending ones.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reading extends Pick<Handlers, "getTask" | "listTasks" | "cancelTask" | "subscribeToTask"> {
  /**
   * Delivers the task's snapshot and then its events as they come, as SubscribeToTask does; a task that has ended
   * is what `ended` makes of it.
   */
  readonly follow: (
    taskId: string,
    scope: TaskScope,
    sink: PushStream.Sink<v1.StreamResponse>,
    ended: (task: v1.Task) => Effect.Effect<void, A2AError>
  ) => Effect.Effect<void, A2AError, Scope.Scope>
}

const notSubscribable = (task: v1.Task) =>
  new UnsupportedOperation({
    message: `Task ${task.id} is ${label(task.status.state)}; subscribing needs a task that is not finished`,
    metadata: { taskId: task.id }
  })

/**
 * The reading operations over `shared`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = ({ bus, capabilities, draft, runner, store }: Shared): Reading => {
  const follow: Reading["follow"] = (taskId, scope, sink, ended) =>
    // Subscribe first, then read the snapshot: events newer than its version follow it exactly once. A pipeline,
    // not a generator: the open subscription's last step then holds only the events and their sink.
    Effect.flatMap(bus.subscribe(taskId), (events) =>
      Effect.flatMap(getOwned(store, taskId, scope), ({ task, version }) => {
        if (isTerminal(task.status.state)) {
          return ended(task)
        }
        sink.offer({ task })
        return PushStream.run(events, new AfterSnapshot(sink, version))
      }))

  // A plain pipeline, not a generator: it runs on every GetTask, and a generator made per call costs more.
  const getTask: Handlers["getTask"] = (req, ctx) => {
    const invalid = Validation.check(Validation.historyLength("historyLength", req.historyLength))
    if (invalid !== undefined) return Effect.fail(invalid)
    // A2A 1.1 draft: a long poll, when the server keeps generations (ignored otherwise, as 1.0 ignores the field).
    if (draft.enabled && req.currentGeneration !== undefined) {
      return Effect.map(
        LongPoll.waitPast(store, bus, req.id, scopeOf(req, ctx), req.currentGeneration, draft.maxWait),
        (record) => limitHistory(record.task, req.historyLength)
      )
    }
    return getOwnedThen(store, req.id, scopeOf(req, ctx), (record) => limitHistory(record.task, req.historyLength))
  }

  const listTasks: Handlers["listTasks"] = Effect.fnUntraced(function*(req, ctx) {
    const violations: Array<FieldViolation> = [
      ...Validation.intInRange("pageSize", req.pageSize, 1, MAX_PAGE_SIZE),
      ...Validation.historyLength("historyLength", req.historyLength)
    ]
    let statusTimestampAfter: number | undefined
    if (req.statusTimestampAfter !== undefined) {
      const parsed = Validation.timestamp("statusTimestampAfter", req.statusTimestampAfter)
      if (typeof parsed === "number") statusTimestampAfter = parsed
      else violations.push(parsed)
    }
    const filters: PageToken.Filters = {
      contextId: req.contextId !== undefined && req.contextId.length > 0 ? req.contextId : undefined,
      status: req.status !== undefined && req.status !== "TASK_STATE_UNSPECIFIED" ? req.status : undefined,
      statusTimestampAfter
    }
    let after: ReturnType<typeof PageToken.decode> | undefined
    if (req.pageToken !== undefined && req.pageToken.length > 0) {
      after = PageToken.decode(req.pageToken, filters)
      if (after === "malformed") {
        violations.push({ field: "pageToken", description: "Not a page token issued by this agent" })
      } else if (after === "filters") {
        violations.push({
          field: "pageToken",
          description: "The page token was issued for different filters (contextId, status, statusTimestampAfter)"
        })
      }
    }
    yield* Validation.verify(violations)
    const pageSize = req.pageSize ?? DEFAULT_PAGE_SIZE
    const page = yield* store.list(scopeOf(req, ctx), {
      contextId: filters.contextId,
      status: filters.status as v1.TaskState | undefined,
      statusTimestampAfter,
      pageSize,
      after: typeof after === "object" ? after : undefined,
      historyLength: req.historyLength,
      includeArtifacts: req.includeArtifacts === true
    }).pipe(orInternal)
    return {
      tasks: page.tasks,
      nextPageToken: Option.match(page.next, {
        onNone: () => "",
        onSome: (cursor) => PageToken.encode(cursor, filters)
      }),
      pageSize,
      totalSize: page.totalSize
    }
  })

  const cancelTask: Handlers["cancelTask"] = (req, ctx) => runner.cancel(req.id, scopeOf(req, ctx))

  // A PushStream: an SSE response forwards the bus's events as they are published, with no queue nor fiber of
  // its own, and read as a Stream it is one queue. An idle subscription holds nothing else.
  const subscribeToTask: Handlers["subscribeToTask"] = (req, ctx) =>
    capabilities.streaming !== true ?
      PushStream.fail(noStreaming()) :
      PushStream.make((sink) => follow(req.id, scopeOf(req, ctx), sink, (task) => Effect.fail(notSubscribable(task))))

  return { getTask, listTasks, cancelTask, subscribeToTask, follow }
}

/**
 * A subscription's events after its snapshot: those newer than the snapshot's version, up to the one that ends
 * the task (the snapshot is not terminal, so only a later event can end the stream). A class, not closures: an
 * idle subscription holds it for as long as it is open.
 */
class AfterSnapshot implements PushStream.Sink<TaskEvent, Unavailable> {
  private ended = false
  private readonly sink: PushStream.Sink<v1.StreamResponse>
  private readonly version: number
  constructor(sink: PushStream.Sink<v1.StreamResponse>, version: number) {
    this.sink = sink
    this.version = version
  }
  offer(e: TaskEvent): void {
    if (this.ended || e.sequence <= this.version) return
    this.sink.offer(e.event)
    if (endsTask(e.event)) this.end()
  }
  fail(cause: Cause.Cause<Unavailable>): void {
    if (this.ended) return
    this.ended = true
    this.sink.fail(cause)
  }
  end(): void {
    if (this.ended) return
    this.ended = true
    this.sink.end()
  }
}
