/**
 * Runs the agent for a task: one fiber per execution, owned by the server's scope (never by the request, so a
 * client leaving a stream does not stop its task). Every agent event is validated and folded into the task
 * (TaskReducer), saved, published on the EventBus, handed to the PushNotifier, and offered to the caller.
 * While an execution runs it is the only writer of its task; continuing a task, cancelling a task with no
 * execution, and an execution letting go of its task happen under a per-task lock. A new task needs no lock to
 * start: nobody else knows its id yet.
 *
 * Cancellation interrupts the execution's fiber while the agent runs (the agent's finalizers run); the runner
 * then records CANCELED.
 *
 * What an execution's events keep, whether saved one by one or several at once (TaskStore.coalesceSaves):
 * - An event reaches the EventBus (subscribers, other nodes), the PushNotifier and its caller only once a save
 *   holding it has succeeded: a final state is stored before the answer that reports it, and whoever was told of
 *   an event finds it in the store.
 * - Per task, events are applied, saved, published and offered in the order the agent emitted them. Sequences
 *   grow by one per event and a save's version is the sequence of the last event it holds, so a snapshot at
 *   version v and the events after v rebuild the task (spec 3.1.6), as they did with one save per event.
 * - A save is the whole task (status, history, artifacts with their appended parts) as it is after its last
 *   event: the restart recovery (store/SqlTaskRecovery) and other nodes only ever read a task as some event left
 *   it, and coalescing changes neither the final task nor the events.
 * - A failed save ends the execution as it always has (logged; InternalError to the caller; a conflict read as
 *   another node's outcome), and what it held was published to no one. A failed save of several events is made
 *   again one event at a time first, so the events before the failing one are stored and published, and the
 *   failure is that event's: what is stored and told is what one save per event gives.
 * - A step (apply, save, publish) is uninterruptible: a cancel lands between steps. Events the agent emitted
 *   but that no step has taken go with the interrupted agent, never published.
 * - On a store whose save is a commit, the agent runs ahead in a fiber of its own by at most COALESCE_CAPACITY
 *   events and each step takes all that wait, at least one: nothing waits for more, so a lone event is saved as
 *   soon as it comes. Elsewhere (the memory store) the agent runs in the execution's fiber and each event is
 *   saved before the agent goes on, with no fiber nor queue added.
 *
 * The per-task lock is Effect's RcMap of semaphores (about 2 µs per lock over a Map by hand); an execution that
 * ends lets go of its task without it when no one else holds or waits for it (see `launch`).
 * The executions are not a FiberMap, for three reasons of its contract, not of cost (FiberMap.run measured as
 * cheap as forkIn):
 * - A turn hands its task over from inside its own fiber: its last step, under the task's lock, starts the turn
 *   of the next waiting message. FiberMap.run for that turn would replace, so interrupt, the fiber calling it
 *   (and `onlyIfMissing` would not start it); starting it from another fiber would let a new message in between.
 * - What the runner keeps per task lives from the turn's start until that hand-over, not until its fiber ends: the
 *   task as last saved (for the callers of queued messages) and the waiting messages. A FiberMap would sit beside
 *   that record as a second map under the same key with another lifetime.
 * - CancelTask must interrupt the execution it found under the lock, outside the lock (the execution takes the
 *   lock to let go of its task), by which time the key may name the next turn. So the record holds its own fiber,
 *   as a Deferred set when it is forked (the record is visible from the instant before).
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as RcMap from "effect/RcMap"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type * as v1 from "../../generated/v1.ts"
import {
  A2AError,
  InternalError,
  InvalidAgentResponse,
  InvalidParams,
  TaskNotCancelable,
  TaskNotFound,
  UnsupportedOperation
} from "../../protocol/A2AError.ts"
import { isFinal, isTerminal, label } from "../../protocol/TaskStates.ts"
import { type AgentEvent, AgentExecutor, type RequestContext } from "../AgentExecutor.ts"
import type { CallContext } from "../CallContext.ts"
import { EventBus } from "../EventBus.ts"
import * as Observability from "../Observability.ts"
import { type PushConfig, PushConfigStore } from "../PushConfigStore.ts"
import { PushNotifier } from "../PushNotifier.ts"
import { RemoteCancel } from "../RemoteCancel.ts"
import {
  isConflict,
  orInternal,
  type TaskRecord,
  type TaskScope,
  TaskStore,
  type TaskStoreError
} from "../TaskStore.ts"
import * as Ids from "./Ids.ts"
import * as Instrumentation from "./Instrumentation.ts"
import * as LiveSet from "./LiveSet.ts"
import * as PushStream from "./PushStream.ts"
import * as TaskReducer from "./TaskReducer.ts"

/** One event as the caller of an execution sees it. */
export interface Processed {
  readonly event: v1.StreamResponse
  /** The task after the event; None for a direct message reply. */
  readonly task: Option.Option<v1.Task>
}

/**
 * Where an execution's events go: a PushStream sink, fed synchronously and in order (`offer` for each event;
 * `fail` when the execution fails before it has a task, the caller's answer then being that error, or its storage
 * fails; `end` last, always). The runner never waits for a caller, so one that has gone away costs nothing.
 *
 * A message to a task whose agent is still working waits for the turn in progress to end (see `start`);
 * `queued` then tells its caller the task as it is now, which is all a non-blocking SendMessage answers.
 */
export interface Caller extends PushStream.Sink<Processed, A2AError> {
  readonly queued?: ((task: v1.Task) => void) | undefined
}

export interface StartOptions {
  readonly message: v1.Message
  readonly owner: string
  /** The request's tenant ("" for none): with `owner`, the scope of the task (spec 13.1). */
  readonly tenant: string
  readonly call: CallContext
  readonly metadata: { readonly [k: string]: unknown } | undefined
  readonly configuration: v1.SendMessageConfiguration | undefined
  /** Push config to attach to the task once it exists (SendMessageConfiguration.taskPushNotificationConfig). */
  readonly pushConfig: v1.TaskPushNotificationConfig | undefined
}

export interface TaskRunner {
  /**
   * Starts an execution that reports to `caller`: continues `message.taskId` when set (TaskNotFound,
   * UnsupportedOperation for a terminal task, InvalidParams for a contextId mismatch), else works on a new task.
   * Succeeds once the execution runs, or, for a task whose agent is still working on an earlier message (spec 3.7
   * "Task Interaction": agents MAY accept messages for non-terminal tasks), once the message is queued: it gets
   * the next turn when the one in progress ends in an interrupted state (input or auth required), and the
   * UnsupportedOperation of a terminal task when it ends there. Its events and outcome go to `caller` only.
   */
  readonly start: (options: StartOptions, caller: Caller) => Effect.Effect<void, A2AError>
  /** Cancels a task: interrupts its execution if one runs, and records CANCELED. */
  readonly cancel: (taskId: string, scope: TaskScope) => Effect.Effect<v1.Task, A2AError>
}

/** A message waiting for the turn in progress on its task to end. */
interface Pending {
  readonly options: StartOptions
  readonly caller: Caller
}

/**
 * Events an agent may run ahead of its task's saves on a store that coalesces them (TaskStore.coalesceSaves): the
 * most one save holds. Past it the agent waits at its next event for the save in progress.
 */
export const COALESCE_CAPACITY = 32

/** Messages that wait on one task, at most; more are refused until the agent catches up. */
export const MAX_PENDING = 16

/** An execution in progress. */
interface Running {
  /** Its fiber, once forked (the execution is visible from the instant before). */
  readonly fiber: Deferred.Deferred<Fiber.Fiber<void>>
  /** The task as the execution last saved it, for the callers of queued messages. */
  task: v1.Task | undefined
  /** Messages sent to the task meanwhile, in arrival order. */
  readonly pending: Array<Pending>
}

/** Cancels an execution: interrupts its fiber and waits until it has recorded the outcome and let go of its task. */
const stop = (execution: Running): Effect.Effect<void> =>
  Effect.flatMap(Deferred.await(execution.fiber), Fiber.interrupt)

/** A store failure inside the runner, kept apart from the agent's own failures. */
class StoreFailed extends Schema.TaggedError<StoreFailed>()("StoreFailed", {
  message: Schema.String,
  /** Another writer (another node) saved the task meanwhile; see TaskStoreError.conflict. */
  conflict: Schema.Boolean
}) {}

/** How long a CancelTask waits for the node running the task to record the outcome. */
const REMOTE_CANCEL_WAIT = "10 seconds"

const isA2AError = Schema.is(A2AError)

const notFound = (taskId: string) => new TaskNotFound({ message: `Task ${taskId} not found`, metadata: { taskId } })

const notCancelable = (taskId: string, state: v1.TaskState) =>
  new TaskNotCancelable({ message: `Task ${taskId} is ${label(state)} and cannot be canceled`, metadata: { taskId } })

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" &&
    error.message.length > 0
    ? error.message
    : String(error)

// What runs per request or per agent event is written as plain pipelines rather than generators: on a loaded
// server each generator on that path measurably costs µs. Generators remain for the rare paths.
export const make = Effect.gen(function*() {
  const store = yield* TaskStore
  const bus = yield* EventBus
  const notifier = yield* PushNotifier
  const pushConfigs = yield* PushConfigStore
  const executor = yield* AgentExecutor
  const serverScope = yield* Effect.scope
  // Per-task mutual exclusion: a semaphore per task, kept only while someone holds or waits for it.
  const locks = yield* RcMap.make({ lookup: (_taskId: string) => Semaphore.make(1) })
  // How many fibers hold or wait for each task's lock: a task missing here is free, and a step that runs at once
  // (synchronously) then needs no lock, since nothing else can run meanwhile (see `launch`).
  const lockUsers = new Map<string, number>()
  const withLock = <A, E>(taskId: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.uninterruptibleMask((restore) => {
      lockUsers.set(taskId, (lockUsers.get(taskId) ?? 0) + 1)
      return Effect.ensuring(
        restore(Effect.scoped(Effect.flatMap(RcMap.get(locks, taskId), (lock) => lock.withPermit(effect)))),
        Effect.sync(() => {
          const users = lockUsers.get(taskId)! - 1
          if (users === 0) lockUsers.delete(taskId)
          else lockUsers.set(taskId, users)
        })
      )
    })
  /**
   * The executions now running, by task id, each in a slot emptied when it goes: the Map's old tables keep what
   * they held until the next full GC (see LiveSet), which is then a slot, not an execution and its fiber.
   */
  const running = new Map<string, { current: Running | undefined }>()
  // Their fibers, interrupted when the server's scope closes. Not `forkIn(serverScope)`: that adds and removes an
  // entry of the scope's Map per execution, which V8 keeps reachable from the Map's old tables (see LiveSet).
  const executions = LiveSet.make<Fiber.Fiber<void>>()

  const remote = yield* RemoteCancel
  const observed = yield* Observability.isEnabled
  const storeFailed = (e: TaskStoreError) => new StoreFailed({ message: e.message, conflict: isConflict(e) })

  /** Saves a step, then publishes and notifies each of its events in order. Returns the record saved. */
  const persist = (
    scope: TaskScope,
    version: number,
    applied: TaskReducer.Applied
  ): Effect.Effect<TaskRecord, TaskStoreError> => {
    const published = applied.published
    const record: TaskRecord = {
      task: applied.task,
      owner: scope.owner,
      tenant: scope.tenant,
      version: version + Math.max(1, published.length)
    }
    return Effect.flatMap(
      store.save(record),
      () =>
        published.length === 0
          ? Effect.succeed(record)
          : Effect.as(announce(record.task.id, published, version, 0), record)
    )
  }

  /**
   * Publishes and notifies `published[i]` and those after it, one after the other: Effect.forEach's work without
   * its iterator and per-element effects (~1.2 KB a step), as a step has one event or a few.
   */
  const announce = (
    taskId: string,
    published: ReadonlyArray<TaskReducer.Published>,
    version: number,
    i: number
  ): Effect.Effect<void> => {
    const { event, task } = published[i]!
    const one = Effect.andThen(
      bus.publish({ taskId, sequence: version + i + 1, event }),
      notifier.notify({ taskId, event, task })
    )
    return i + 1 === published.length
      ? one
      : Effect.andThen(one, Effect.suspend(() => announce(taskId, published, version, i + 1)))
  }

  const storageFailed = (caller: Caller, e: StoreFailed) =>
    Effect.logError("Task store failure during execution", e).pipe(
      Effect.andThen(Effect.sync(() => caller.fail(Cause.fail(new InternalError({ message: "Task storage failed" })))))
    )

  // Another node saved the task meanwhile (a CancelTask there, racing this turn): when the task has ended there,
  // that end is this turn's too, and the caller hears it as the status the task now has.
  const endedElsewhere = (caller: Caller, taskId: string, scope: TaskScope, e: StoreFailed) =>
    store.get(taskId, scope).pipe(
      Effect.flatMap((stored) => {
        const task = Option.getOrUndefined(stored)?.task
        if (task === undefined || !isTerminal(task.status.state)) return storageFailed(caller, e)
        return Effect.sync(() =>
          caller.offer({
            event: { statusUpdate: { taskId: task.id, contextId: task.contextId ?? "", status: task.status } },
            task: Option.some(task)
          })
        )
      }),
      Effect.catch(() => storageFailed(caller, e))
    )

  // --- one execution ---

  interface RunState {
    record: Option.Option<TaskRecord>
    /** Set once the execution has its answer (a final state, a message, or a recorded failure). */
    settled: boolean
  }

  const runExecution = (
    context: RequestContext,
    scope: TaskScope,
    state: RunState,
    pushConfig: v1.TaskPushNotificationConfig | undefined,
    caller: Caller,
    handle: Running
  ) => {
    const reducerContext = (now: string): TaskReducer.ReducerContext => ({
      taskId: context.taskId,
      contextId: context.contextId,
      userMessage: context.message,
      now
    })

    /**
     * Applies events in order, the task saved once for all of them, then published; false when the execution is
     * over (final state, message reply, misbehaviour). Nothing after the event that ends the turn is applied.
     */
    const step = (events: ReadonlyArray<AgentEvent>): Effect.Effect<boolean, StoreFailed> =>
      Effect.flatMap(Ids.now, (now) => {
        // The task as the events so far leave it (saved only below): an event sees those before it in the batch.
        let task = Option.getOrUndefined(state.record)?.task
        let published: ReadonlyArray<TaskReducer.Published> | undefined
        let first: TaskReducer.Applied | undefined
        // Each event's own step, once the batch has more than one.
        let steps: Array<TaskReducer.Applied> | undefined
        let final = false
        // What ends the turn without a task change: a direct reply, or a misbehaving event (after the changes
        // before it are saved, as one event at a time would have had them).
        let then: Effect.Effect<boolean, StoreFailed> | undefined
        for (const event of events) {
          let taskEvent = event
          if ("message" in event) {
            const reply: v1.Message = { ...event.message, contextId: context.contextId }
            if (task === undefined) {
              // Before any task, a message is the whole answer: a direct reply.
              const { taskId: _, ...message } = reply
              then = Effect.sync(() => {
                caller.offer({ event: { message }, task: Option.none() })
                state.settled = true
                return false
              })
              break
            }
            // Once the task exists its stream may only carry updates (spec: a Task, then status or artifact updates
            // until a terminal or interrupted state). The agent speaking to the client ends its turn waiting for the
            // answer: the message becomes the status message of an INPUT_REQUIRED update, and joins the history.
            taskEvent = {
              statusUpdate: {
                taskId: context.taskId,
                contextId: context.contextId,
                status: {
                  state: "TASK_STATE_INPUT_REQUIRED",
                  message: { ...reply, taskId: context.taskId },
                  timestamp: now
                }
              }
            }
          }
          const applied = TaskReducer.apply(task, taskEvent, reducerContext(now))
          if (Result.isFailure(applied)) {
            then = Effect.logWarning(`Invalid agent response: ${applied.failure}`).pipe(
              Effect.andThen(fail(new InvalidAgentResponse({ message: applied.failure }), applied.failure)),
              Effect.as(false)
            )
            break
          }
          task = applied.success.task
          if (first === undefined) {
            first = applied.success
            published = first.published
          } else {
            published = published!.concat(applied.success.published)
            ;(steps ??= [first]).push(applied.success)
          }
          // Only this execution's own status decides: a continued task starts out interrupted (input-required).
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
        if (published === undefined || task === undefined) return then ?? Effect.succeed(!state.settled)
        // A batch whose save fails is saved again one event at a time: the events before the failing one are then
        // stored and published, and the failure is that event's, as with one save per event.
        const committed = steps === undefined ? commit({ task, published }) : Effect.catch(
          commit({ task, published }),
          (e) =>
            Effect.logDebug(`Saving ${steps!.length} events at once failed (${e.message}); saving them one by one`)
              .pipe(Effect.andThen(Effect.forEach(steps!, (applied) => commit(applied), { discard: true })))
        )
        return then !== undefined ? Effect.andThen(committed, then) : Effect.map(committed, () => {
          if (final) state.settled = true
          return !state.settled
        })
      })

    /** Attaches the request's push config to the task it is about to create. */
    const attachPushConfig = (config: v1.TaskPushNotificationConfig): Effect.Effect<void, StoreFailed> =>
      Effect.gen(function*() {
        const id = config.id !== undefined && config.id.length > 0 ? config.id : yield* Ids.randomId
        // Its webhook is sent payloads of the version the request was made in.
        const attached: PushConfig = {
          ...config,
          id,
          taskId: context.taskId,
          protocolVersion: context.call.requestedVersion
        }
        yield* pushConfigs.set(attached).pipe(Effect.mapError(storeFailed))
      })

    // Once only, even when the save after it fails and is made again (see `step`).
    let pushConfigAttached = false
    const commit = (applied: TaskReducer.Applied): Effect.Effect<void, StoreFailed> => {
      const version = Option.isSome(state.record) ? state.record.value.version : 0
      const saved = persist(scope, version, applied).pipe(Effect.mapError(storeFailed))
      return (Option.isNone(state.record) && pushConfig !== undefined && !pushConfigAttached
        ? attachPushConfig(pushConfig).pipe(
          Effect.andThen(Effect.sync(() => {
            pushConfigAttached = true
          })),
          Effect.andThen(saved)
        )
        : saved).pipe(
          Effect.map((record) => {
            state.record = Option.some(record)
            handle.task = applied.task
            for (const p of applied.published) caller.offer({ event: p.event, task: Option.some(p.task) })
          })
        )
    }

    /**
     * Ends the execution on a failure: before the task exists the caller gets `error`; after, the task is
     * recorded FAILED with `reason` as the agent's status message.
     */
    const fail = (error: A2AError, reason: string): Effect.Effect<void, StoreFailed> =>
      Effect.gen(function*() {
        state.settled = true
        const current = Option.getOrUndefined(state.record)
        if (current === undefined) {
          caller.fail(Cause.fail(error))
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

    // An agent made with `produce` (the TaskUpdater helpers) runs in this fiber, any other is pulled as a stream, a
    // step per event; on a store that coalesces saves the agent runs ahead in a fiber of its own and a step takes
    // every event waiting.
    const consume = Effect.suspend(() => {
      const events = executor.execute(context)
      return store.coalesceSaves === true
        // Whatever the agent emitted while the last save was being made is applied and saved at once.
        ? Stream.runForEachWhile(
          Stream.chunks(PushStream.buffered(events, COALESCE_CAPACITY)),
          (batch) => Effect.uninterruptible(step(batch))
        )
        : PushStream.runForEachWhile(events, (event) => Effect.uninterruptible(step([event])))
    })

    const finish = (exit: Exit.Exit<void, unknown>): Effect.Effect<void, StoreFailed> =>
      Exit.isSuccess(exit) && state.settled ? Effect.void : Effect.gen(function*() {
        if (Exit.isSuccess(exit)) {
          if (state.settled) return
          return yield* fail(
            new InvalidAgentResponse({ message: "The agent finished without a response" }),
            "The agent finished without reaching a final state"
          )
        }
        const cause = exit.cause
        if (Cause.hasInterruptsOnly(cause)) {
          // CancelTask (or the agent itself). A shutdown also interrupts, but then the task is left as it is, for
          // recovery: the stores may be closing too.
          const current = Option.getOrUndefined(state.record)
          if (current !== undefined && !isTerminal(current.task.status.state) && serverScope.state._tag !== "Closed") {
            yield* finalStatus("TASK_STATE_CANCELED", undefined)
          }
          state.settled = true
          return
        }
        const error = Option.getOrUndefined(Cause.findErrorOption(cause))
        if (error instanceof StoreFailed) return yield* Effect.fail(error)
        if (error !== undefined && isA2AError(error) && Option.isNone(state.record)) {
          state.settled = true
          caller.fail(Cause.fail(error))
          return
        }
        yield* Effect.logError("Agent execution failed", cause)
        const reason = error !== undefined ? `Agent failed: ${describe(error)}` : "Agent failed: internal error"
        yield* fail(new InternalError({ message: reason }), reason)
      })

    // Only the agent is interruptible: the outcome is always recorded, even when the interruption is a cancel.
    return Effect.uninterruptibleMask((restore) =>
      restore(consume).pipe(
        Effect.exit,
        Effect.flatMap(finish),
        Effect.catch((e) => e.conflict ? endedElsewhere(caller, context.taskId, scope, e) : storageFailed(caller, e))
      )
    )
  }

  /**
   * Runs an execution in its own fiber, in the server's scope; `record` is the continued task, if any, and
   * `pending` the messages already waiting for the turn after this one.
   */
  const launch = (
    options: StartOptions,
    caller: Caller,
    taskId: string,
    contextId: string,
    message: v1.Message,
    record: Option.Option<TaskRecord>,
    pending: Array<Pending> = []
  ): Effect.Effect<void> =>
    Effect.suspend(() => {
      const context: RequestContext = {
        message,
        taskId,
        contextId,
        task: Option.map(record, (r) => r.task),
        principal: options.call.principal,
        tenant: options.tenant,
        metadata: options.metadata,
        configuration: options.configuration,
        extensions: options.call.extensions,
        call: options.call
      }
      const state: RunState = { record, settled: false }
      if (Option.isSome(record)) {
        caller.offer({ event: { task: record.value.task }, task: Option.some(record.value.task) })
      }
      const handle: Running = {
        fiber: Deferred.makeUnsafe<Fiber.Fiber<void>>(),
        task: Option.getOrUndefined(record)?.task,
        pending
      }
      const slot: { current: Running | undefined } = { current: handle }
      running.set(taskId, slot)
      // Under the task's lock: the next waiting message, if any, starts its turn (or hears why it cannot).
      const letGo = (): Effect.Effect<void> => {
        if (running.get(taskId) !== slot) return Effect.void
        running.delete(taskId)
        slot.current = undefined
        const [next, ...rest] = handle.pending
        return next === undefined ? Effect.void : continueQueued(next, rest, taskId)
      }
      // Without a stored task (decided at the end, not now) there is nothing a cancel could race with: no lock
      // needed. Nor with a stored task no one else holds or waits for, when no message waits: letting go is then
      // one synchronous step, which nothing can come between, as it would have run under a lock taken at once
      // (the lock, an RcMap entry, costs a Map of the fiber's services and a fiber per task: ~9 KB, BENCHMARKS.md).
      const release = Effect.suspend(() =>
        Option.isNone(state.record) || (handle.pending.length === 0 && !lockUsers.has(taskId))
          ? letGo()
          : withLock(taskId, Effect.suspend(letGo))
      )
      const scope: TaskScope = { owner: options.owner, tenant: options.tenant }
      const run = (reporter: Caller) => runExecution(context, scope, state, options.pushConfig, reporter, handle)
      const execution = (observed ? Instrumentation.execution(context, caller, run) : run(caller)).pipe(
        Effect.ensuring(
          // The task is let go before the caller hears the end, so its next message finds it free.
          Effect.andThen(release, Effect.sync(() => caller.end()))
        )
      )
      if (serverScope.state._tag === "Closed") {
        // Too late to run: the fiber forkIn gives a closed scope is interrupted before it starts, so the caller
        // hears it here (it would otherwise wait for an execution that never comes).
        return Effect.map(Effect.forkIn(execution, serverScope), (fiber) => {
          if (running.get(taskId) === slot) running.delete(taskId)
          slot.current = undefined
          Deferred.doneUnsafe(handle.fiber, Exit.succeed(fiber))
          caller.fail(Cause.fail(new InternalError({ message: "The server is shutting down; send the request again" })))
        })
      }
      return Effect.map(Effect.forkDetach(execution), (fiber) => {
        const entry = LiveSet.add(executions, fiber)
        fiber.addObserver(() => LiveSet.remove(executions, entry))
        Deferred.doneUnsafe(handle.fiber, Exit.succeed(fiber))
      })
    })

  /**
   * Checks that a task can take a new message, and records it in the task's history (under its lock); queues it
   * when the task's agent is still working.
   */
  const continueTask = (
    options: StartOptions,
    caller: Caller,
    taskId: string,
    pending: Array<Pending> = []
  ): Effect.Effect<void, A2AError> =>
    Effect.gen(function*() {
      const existing = yield* store.get(taskId, { owner: options.owner, tenant: options.tenant }).pipe(
        orInternal
      )
      if (Option.isNone(existing)) {
        return yield* notFound(taskId)
      }
      const task = existing.value.task
      if (isTerminal(task.status.state)) {
        return yield* new UnsupportedOperation({
          message: `Task ${taskId} is ${label(task.status.state)} and accepts no further messages`,
          metadata: { taskId }
        })
      }
      const contextId = task.contextId ?? options.message.contextId ?? (yield* Ids.randomId)
      if (options.message.contextId !== undefined && options.message.contextId !== contextId) {
        return yield* new InvalidParams({
          message: `message.contextId "${options.message.contextId}" does not match the contextId of task ${taskId}`,
          fieldViolations: [{
            field: "message.contextId",
            description: `Must be "${contextId}" (the task's contextId) or omitted`
          }]
        })
      }
      const busy = running.get(taskId)?.current
      if (busy !== undefined) {
        if (busy.pending.length >= MAX_PENDING) {
          return yield* new UnsupportedOperation({
            message: `Task ${taskId} already has ${MAX_PENDING} messages waiting for its agent; try again later`,
            metadata: { taskId }
          })
        }
        busy.pending.push({ options, caller })
        const current = busy.task ?? task
        if (caller.queued !== undefined) caller.queued(current)
        return
      }
      if (!isFinal(task.status.state)) {
        // In flight with no execution here: its agent runs in another server process sharing the store (or ran in
        // one that died, whose task the recovery is about to fail). A second agent must not start on it.
        return yield* new UnsupportedOperation({
          message: `Task ${taskId} is being worked on by another server node; send the message again once it ` +
            `waits for input`,
          metadata: { taskId }
        })
      }
      const message: v1.Message = { ...options.message, taskId, contextId }
      const history = task.history?.some((m) => m.messageId === message.messageId)
        ? task.history
        : TaskReducer.appended(task.history, message)
      const next: TaskRecord = {
        task: { ...task, contextId, history },
        owner: options.owner,
        tenant: options.tenant,
        version: existing.value.version + 1
      }
      yield* Effect.catch(store.save(next), (error): Effect.Effect<never, A2AError> =>
        isConflict(error)
          // Another node saved the task meanwhile (a message or a cancel of its own): this one does not go in.
          ? Effect.fail(
            new UnsupportedOperation({
              message: `Task ${taskId} was changed by another request at the same time; get it and send again`,
              metadata: { taskId }
            })
          )
          : orInternal(Effect.fail(error)))
      yield* launch(options, caller, taskId, contextId, message, Option.some(next), pending)
    })

  /**
   * The turn of a message that waited: continues the task as `continueTask` would, the messages still waiting
   * after it carried over. When the task cannot take it (it ended meanwhile), this message and every other one
   * waiting hear why.
   */
  const continueQueued = (next: Pending, rest: Array<Pending>, taskId: string): Effect.Effect<void> =>
    continueTask(next.options, next.caller, taskId, rest).pipe(
      Effect.catch((error) =>
        Effect.sync(() => {
          for (const { caller } of [next, ...rest]) {
            caller.fail(Cause.fail(error))
            caller.end()
          }
        })
      )
    )

  const start = (options: StartOptions, caller: Caller): Effect.Effect<void, A2AError> => {
    const taskId = options.message.taskId
    if (taskId !== undefined && taskId.length > 0) return withLock(taskId, continueTask(options, caller, taskId))
    const { taskId: _, ...message } = options.message
    const given = message.contextId !== undefined && message.contextId.length > 0 ? message.contextId : undefined
    // Nested, not Effect.zip: no tuple nor zip's continuations on every SendMessage.
    return Effect.flatMap(Ids.taskId, (taskId) => {
      const run = (contextId: string) =>
        launch(options, caller, taskId, contextId, { ...message, contextId }, Option.none())
      return given !== undefined ? run(given) : Effect.flatMap(Ids.randomId, run)
    })
  }

  /**
   * Waits (a bounded time) until the stored task is terminal: another node was asked to cancel its execution and
   * records the outcome; this node hears it on the EventBus.
   */
  const awaitOutcome = (taskId: string, scope: TaskScope): Effect.Effect<void, A2AError> =>
    Effect.scoped(Effect.gen(function*() {
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
    }))

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

  const cancel = (taskId: string, scope: TaskScope): Effect.Effect<v1.Task, A2AError> =>
    Effect.gen(function*() {
      // A few rounds at most: an execution may end (e.g. at input-required) just as we try to cancel it, and
      // another node may save the task between our read and our write.
      for (let round = 0; round < 5; round++) {
        const outcome = yield* withLock(
          taskId,
          Effect.gen(function*() {
            const existing = yield* store.get(taskId, scope).pipe(orInternal)
            if (Option.isNone(existing)) {
              return yield* notFound(taskId)
            }
            const execution = running.get(taskId)?.current
            if (execution !== undefined) return Result.fail(stop(execution))
            const { task, version } = existing.value
            if (isTerminal(task.status.state)) return yield* notCancelable(taskId, task.status.state)
            // In flight with no execution here: it may run on another node, which then cancels it.
            if (!isFinal(task.status.state) && (yield* remote.request(taskId, scope))) {
              return Result.fail(awaitOutcome(taskId, scope))
            }
            const applied = TaskReducer.setStatus(task, { state: "TASK_STATE_CANCELED", timestamp: yield* Ids.now })
            const saved = yield* persist(scope, version, applied).pipe(
              Effect.as(true),
              Effect.catchIf(isConflict, () => Effect.succeed(false)),
              orInternal
            )
            // Lost a race with another node's save: decide again on what it saved.
            return saved ? Result.succeed(applied.task) : Result.fail(Effect.void)
          })
        )
        if (Result.isSuccess(outcome)) return outcome.success
        yield* outcome.failure
        const ended = yield* outcomeOf(taskId, scope)
        if (Option.isSome(ended)) return ended.value
      }
      return yield* new InternalError({ message: `Task ${taskId} could not be canceled; try again` })
    })

  // Other nodes' cancel requests for the executions running here.
  yield* remote.serve((taskId, scope) =>
    cancel(taskId, scope).pipe(
      Effect.catch((error) => Effect.logDebug(`Cancel requested by another node: ${error.message}`)),
      Effect.asVoid
    )
  )

  // Added last, so run first when the server's scope closes, as the executions' own finalizers were when each was
  // forked into it: the executions end before what they use closes.
  yield* Effect.addFinalizer(() =>
    Effect.withFiber((current) => Fiber.interruptAll(LiveSet.takeAll(executions).filter((fiber) => fiber !== current)))
  )

  return { start, cancel } satisfies TaskRunner
})
