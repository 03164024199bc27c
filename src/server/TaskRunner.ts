/**
 * Runs the agent for a task: one fiber per execution, owned by the server's scope (never by the request, so a
 * client leaving a stream does not stop its task). Every agent event is validated and folded into the task
 * (TaskReducer), saved, published on the EventBus, handed to the PushNotifier, and offered to the caller.
 * While an execution runs it is the only writer of its task; starting one, and cancelling a task with none,
 * happen under a per-task lock.
 *
 * Cancellation interrupts the agent's fiber (its finalizers run); the runner then records CANCELED.
 */
import { Cause, Deferred, Effect, Exit, Fiber, Option, Queue, Result, Schema, Semaphore, Stream } from "effect"
import type * as v1 from "../generated/v1.ts"
import {
  A2AError,
  InternalError,
  InvalidAgentResponse,
  InvalidParams,
  TaskNotCancelable,
  TaskNotFound,
  UnsupportedOperation
} from "../protocol/A2AError.ts"
import { isFinal, isTerminal, label } from "../protocol/TaskStates.ts"
import { type AgentEvent, AgentExecutor, type RequestContext } from "./AgentExecutor.ts"
import type { CallContext } from "./CallContext.ts"
import { EventBus } from "./EventBus.ts"
import * as Ids from "./Ids.ts"
import { type PushConfig, PushConfigStore } from "./PushConfigStore.ts"
import { PushNotifier } from "./PushNotifier.ts"
import * as TaskReducer from "./TaskReducer.ts"
import { type TaskRecord, TaskStore, type TaskStoreError } from "./TaskStore.ts"

/** One event as the caller of an execution sees it. */
export interface Processed {
  readonly event: v1.StreamResponse
  /** The task after the event; None for a direct message reply. */
  readonly task: Option.Option<v1.Task>
}

/** What the caller reads: the execution's events, ending when it ends, failing when it fails before a task. */
export type Execution = Queue.Queue<Processed, A2AError | Cause.Done>

export interface StartOptions {
  readonly message: v1.Message
  readonly owner: string
  readonly call: CallContext
  readonly metadata: { readonly [k: string]: unknown } | undefined
  readonly configuration: v1.SendMessageConfiguration | undefined
  /** Push config to attach to the task once it exists (SendMessageConfiguration.taskPushNotificationConfig). */
  readonly pushConfig: v1.TaskPushNotificationConfig | undefined
}

export interface TaskRunner {
  /**
   * Starts an execution: continues `message.taskId` when set (TaskNotFound, UnsupportedOperation for a
   * terminal or busy task, InvalidParams for a contextId mismatch), else works on a new task.
   */
  readonly start: (options: StartOptions) => Effect.Effect<Execution, A2AError>
  /** Cancels a task: interrupts its execution if one runs, and records CANCELED. */
  readonly cancel: (taskId: string, owner: string) => Effect.Effect<v1.Task, A2AError>
}

/** A store failure inside the runner, kept apart from the agent's own failures. */
class StoreFailed extends Schema.TaggedError<StoreFailed>()("StoreFailed", { message: Schema.String }) {}

const isA2AError = Schema.is(A2AError)

/** Per-key mutual exclusion; entries live only while someone holds or waits for them. */
const makeKeyedLock = () => {
  const locks = new Map<string, { readonly semaphore: Semaphore.Semaphore; refs: number }>()
  return <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const entry = locks.get(key) ?? { semaphore: Semaphore.makeUnsafe(1), refs: 0 }
        entry.refs++
        locks.set(key, entry)
        return entry
      }),
      (entry) => entry.semaphore.withPermit(effect),
      (entry) =>
        Effect.sync(() => {
          entry.refs--
          if (entry.refs === 0) locks.delete(key)
        })
    )
}

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" &&
    error.message.length > 0
    ? error.message
    : String(error)

export const make = Effect.gen(function*() {
  const store = yield* TaskStore
  const bus = yield* EventBus
  const notifier = yield* PushNotifier
  const pushConfigs = yield* PushConfigStore
  const executor = yield* AgentExecutor
  const serverScope = yield* Effect.scope
  const withLock = makeKeyedLock()
  /** Cancels the running execution of a task and waits until it has finished. */
  const running = new Map<string, Effect.Effect<void>>()

  const storeFailed = (e: TaskStoreError) => new StoreFailed({ message: e.message })

  /** Saves a step, then publishes and notifies each of its events in order. Returns the new version. */
  const persist = (owner: string, version: number, applied: TaskReducer.Applied) =>
    Effect.gen(function*() {
      const next = version + Math.max(1, applied.published.length)
      yield* store.save({ task: applied.task, owner, version: next })
      let sequence = version
      for (const { event, task } of applied.published) {
        sequence++
        yield* bus.publish({ taskId: applied.task.id, sequence, event })
        yield* notifier.notify({ taskId: applied.task.id, event, task })
      }
      return next
    })

  // --- one execution ---

  interface RunState {
    record: Option.Option<TaskRecord>
    /** Set once the execution has its answer (a final state, a message, or a recorded failure). */
    settled: boolean
  }

  const runExecution = (
    context: RequestContext,
    owner: string,
    state: RunState,
    pushConfig: v1.TaskPushNotificationConfig | undefined,
    caller: Queue.Queue<Processed, A2AError | Cause.Done>
  ) => {
    const offer = (processed: Processed) => Queue.offer(caller, processed)
    const reducerContext = (now: string): TaskReducer.ReducerContext => ({
      taskId: context.taskId,
      contextId: context.contextId,
      userMessage: context.message,
      now
    })

    /** Applies one event; false when the execution is over (final state, message reply, misbehaviour). */
    const step = (event: AgentEvent): Effect.Effect<boolean, StoreFailed> =>
      Effect.gen(function*() {
        const now = yield* Ids.now
        const current = Option.getOrUndefined(state.record)
        if ("message" in event) {
          // A message is the reply of this turn. Without a task it is all there is; with one, it also joins the
          // task's history.
          let reply: v1.Message = { ...event.message, contextId: context.contextId }
          if (current === undefined) {
            const { taskId: _, ...rest } = reply
            reply = rest
          } else {
            reply = { ...reply, taskId: context.taskId }
            const applied = TaskReducer.apply(current.task, { message: reply }, reducerContext(now))
            if (Result.isSuccess(applied)) yield* commit(applied.success)
          }
          yield* offer({ event: { message: reply }, task: Option.none() })
          state.settled = true
          return false
        }
        const applied = TaskReducer.apply(current?.task, event, reducerContext(now))
        if (Result.isFailure(applied)) {
          yield* Effect.logWarning(`Invalid agent response: ${applied.failure}`)
          yield* fail(new InvalidAgentResponse({ message: applied.failure }), applied.failure)
          return false
        }
        yield* commit(applied.success)
        // Only this execution's own status decides: a continued task starts out interrupted (input-required).
        const reached = "statusUpdate" in event
          ? event.statusUpdate.status.state
          : "task" in event
          ? event.task.status.state
          : undefined
        if (reached !== undefined && isFinal(reached)) state.settled = true
        return !state.settled
      })

    const commit = (applied: TaskReducer.Applied): Effect.Effect<void, StoreFailed> =>
      Effect.gen(function*() {
        const version = Option.match(state.record, { onNone: () => 0, onSome: (r) => r.version })
        if (Option.isNone(state.record) && pushConfig !== undefined) {
          const id = pushConfig.id !== undefined && pushConfig.id.length > 0 ? pushConfig.id : yield* Ids.randomId
          const config: PushConfig = { ...pushConfig, id, taskId: context.taskId }
          yield* pushConfigs.set(config).pipe(Effect.mapError(storeFailed))
        }
        const next = yield* persist(owner, version, applied).pipe(Effect.mapError(storeFailed))
        state.record = Option.some({ task: applied.task, owner, version: next })
        for (const p of applied.published) yield* offer({ event: p.event, task: Option.some(p.task) })
      })

    /**
     * Ends the execution on a failure: before the task exists the caller gets `error`; after, the task is
     * recorded FAILED with `reason` as the agent's status message.
     */
    const fail = (error: A2AError, reason: string): Effect.Effect<void, StoreFailed> =>
      Effect.gen(function*() {
        state.settled = true
        const current = Option.getOrUndefined(state.record)
        if (current === undefined) {
          yield* Queue.fail(caller, error)
          return
        }
        if (isTerminal(current.task.status.state)) return
        yield* finalStatus("TASK_STATE_FAILED", reason)
      })

    const finalStatus = (target: v1.TaskState, reason: string | undefined) =>
      Effect.gen(function*() {
        const now = yield* Ids.now
        const message = reason === undefined ? undefined : yield* Effect.map(Ids.randomId, (messageId) => ({
          messageId,
          role: "ROLE_AGENT" as const,
          parts: [{ text: reason }]
        }))
        const current = Option.getOrUndefined(state.record)
        const applied = TaskReducer.apply(current?.task, {
          statusUpdate: {
            taskId: context.taskId,
            contextId: context.contextId,
            status: { state: target, timestamp: now, ...(message !== undefined ? { message } : {}) }
          }
        }, reducerContext(now))
        if (Result.isSuccess(applied)) yield* commit(applied.success)
      })

    const consume = Stream.suspend(() => executor.execute(context)).pipe(
      Stream.runForEachWhile((event) => Effect.uninterruptible(step(event)))
    )

    const finish = (exit: Exit.Exit<void, unknown>): Effect.Effect<void, StoreFailed> =>
      Effect.gen(function*() {
        if (Exit.isSuccess(exit)) {
          if (state.settled) return
          return yield* fail(
            new InvalidAgentResponse({ message: "The agent finished without a response" }),
            "The agent finished without reaching a final state"
          )
        }
        const cause = exit.cause
        if (Cause.hasInterruptsOnly(cause)) {
          // Only CancelTask interrupts the agent's fiber alone (a shutdown interrupts the runner itself).
          const current = Option.getOrUndefined(state.record)
          if (current !== undefined && !isTerminal(current.task.status.state)) {
            yield* finalStatus("TASK_STATE_CANCELED", undefined)
          }
          state.settled = true
          return
        }
        const error = Option.getOrUndefined(Cause.findErrorOption(cause))
        if (error instanceof StoreFailed) return yield* Effect.fail(error)
        if (error !== undefined && isA2AError(error) && Option.isNone(state.record)) {
          state.settled = true
          yield* Queue.fail(caller, error)
          return
        }
        yield* Effect.logError("Agent execution failed", cause)
        const reason = error !== undefined ? `Agent failed: ${describe(error)}` : "Agent failed: internal error"
        yield* fail(new InternalError({ message: reason }), reason)
      })

    return Effect.gen(function*() {
      const agent = yield* Effect.forkChild(consume)
      return { agent, finished: Effect.flatMap(Fiber.await(agent), finish) }
    })
  }

  const start = (options: StartOptions): Effect.Effect<Execution, A2AError> =>
    Effect.gen(function*() {
      const continued = options.message.taskId !== undefined && options.message.taskId.length > 0
      const taskId = continued ? options.message.taskId! : yield* Ids.taskId
      return yield* withLock(
        taskId,
        Effect.gen(function*() {
          let record: Option.Option<TaskRecord> = Option.none()
          let contextId: string
          let message: v1.Message
          if (continued) {
            const existing = yield* store.get(taskId, options.owner).pipe(Effect.mapError(internal))
            if (Option.isNone(existing)) {
              return yield* new TaskNotFound({ message: `Task ${taskId} not found`, metadata: { taskId } })
            }
            const task = existing.value.task
            if (isTerminal(task.status.state)) {
              return yield* new UnsupportedOperation({
                message: `Task ${taskId} is ${label(task.status.state)} and accepts no further messages`,
                metadata: { taskId }
              })
            }
            if (running.has(taskId)) {
              return yield* new UnsupportedOperation({
                message: `Task ${taskId} is still processing a previous message; wait for it or cancel the task`,
                metadata: { taskId }
              })
            }
            contextId = task.contextId ?? options.message.contextId ?? (yield* Ids.randomId)
            if (options.message.contextId !== undefined && options.message.contextId !== contextId) {
              return yield* new InvalidParams({
                message:
                  `message.contextId "${options.message.contextId}" does not match the contextId of task ${taskId}`,
                fieldViolations: [{
                  field: "message.contextId",
                  description: `Must be "${contextId}" (the task's contextId) or omitted`
                }]
              })
            }
            message = { ...options.message, taskId, contextId }
            const history = task.history?.some((m) => m.messageId === message.messageId)
              ? task.history
              : [...(task.history ?? []), message]
            const next: TaskRecord = {
              task: { ...task, contextId, history },
              owner: options.owner,
              version: existing.value.version + 1
            }
            yield* store.save(next).pipe(Effect.mapError(internal))
            record = Option.some(next)
          } else {
            contextId = options.message.contextId !== undefined && options.message.contextId.length > 0
              ? options.message.contextId
              : yield* Ids.randomId
            const { taskId: _, ...rest } = options.message
            message = { ...rest, contextId }
          }

          const context: RequestContext = {
            message,
            taskId,
            contextId,
            task: Option.map(record, (r) => r.task),
            principal: options.call.principal,
            metadata: options.metadata,
            configuration: options.configuration,
            extensions: options.call.extensions,
            call: options.call
          }
          const caller = yield* Queue.unbounded<Processed, A2AError | Cause.Done>()
          const state: RunState = { record, settled: false }
          if (Option.isSome(record)) {
            yield* Queue.offer(caller, { event: { task: record.value.task }, task: Option.some(record.value.task) })
          }
          const agentFiber = yield* Deferred.make<Fiber.Fiber<void, unknown>>()
          const done = yield* Deferred.make<void>()
          running.set(
            taskId,
            Deferred.await(agentFiber).pipe(Effect.flatMap(Fiber.interrupt), Effect.andThen(Deferred.await(done)))
          )
          const runner = Effect.gen(function*() {
            const { agent, finished } = yield* runExecution(context, options.owner, state, options.pushConfig, caller)
            yield* Deferred.succeed(agentFiber, agent)
            yield* finished.pipe(
              Effect.catch((e) =>
                Effect.logError("Task store failure during execution", e).pipe(
                  Effect.andThen(Queue.fail(caller, new InternalError({ message: "Task storage failed" })))
                )
              )
            )
          }).pipe(
            Effect.ensuring(
              Effect.gen(function*() {
                yield* withLock(
                  taskId,
                  Effect.sync(() => running.delete(taskId))
                )
                yield* Queue.end(caller)
                yield* Deferred.succeed(done, undefined)
              })
            )
          )
          yield* Effect.forkIn(runner, serverScope)
          return caller
        })
      )
    })

  const internal = (e: TaskStoreError) => new InternalError({ message: `Task storage failed: ${e.message}` })

  const cancel = (taskId: string, owner: string): Effect.Effect<v1.Task, A2AError> =>
    Effect.gen(function*() {
      // A few rounds at most: an execution may end (e.g. at input-required) just as we try to cancel it.
      for (let round = 0; round < 5; round++) {
        const outcome = yield* withLock(
          taskId,
          Effect.gen(function*() {
            const existing = yield* store.get(taskId, owner).pipe(Effect.mapError(internal))
            if (Option.isNone(existing)) {
              return yield* new TaskNotFound({ message: `Task ${taskId} not found`, metadata: { taskId } })
            }
            const interrupt = running.get(taskId)
            if (interrupt !== undefined) return Result.fail(interrupt)
            const { task, version } = existing.value
            if (isTerminal(task.status.state)) {
              return yield* new TaskNotCancelable({
                message: `Task ${taskId} is ${label(task.status.state)} and cannot be canceled`,
                metadata: { taskId }
              })
            }
            const applied = TaskReducer.setStatus(task, { state: "TASK_STATE_CANCELED", timestamp: yield* Ids.now })
            yield* persist(owner, version, applied).pipe(Effect.mapError(internal))
            return Result.succeed(applied.task)
          })
        )
        if (Result.isSuccess(outcome)) return outcome.success
        yield* outcome.failure
        const after = yield* store.get(taskId, owner).pipe(Effect.mapError(internal))
        if (Option.isNone(after)) {
          return yield* new TaskNotFound({ message: `Task ${taskId} not found`, metadata: { taskId } })
        }
        const state = after.value.task.status.state
        if (state === "TASK_STATE_CANCELED") {
          return after.value.task
        }
        if (isTerminal(state)) {
          return yield* new TaskNotCancelable({
            message: `Task ${taskId} is ${label(state)} and cannot be canceled`,
            metadata: { taskId }
          })
        }
      }
      return yield* new InternalError({ message: `Task ${taskId} could not be canceled; try again` })
    })

  return { start, cancel } satisfies TaskRunner
})
