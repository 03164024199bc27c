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
 * - A failed save ends the execution as it always has (logged; InternalError to the caller, or Unavailable when the
 *   storage could not be reached, the task then recorded FAILED once it is back; a conflict read as another
 *   node's outcome), and what it held was published to no one. A failed save of several events is made
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
import * as Schedule from "effect/Schedule"
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
import { differentBody, fingerprint } from "../MessageReceipts.ts"
import * as Observability from "../Observability.ts"
import { type PushConfig, PushConfigStore } from "../PushConfigStore.ts"
import { PushNotifier } from "../PushNotifier.ts"
import { RemoteCancel } from "../RemoteCancel.ts"
import {
  clientErrorOf,
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
import { TurnDispatch } from "./TurnDispatch.ts"

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
  /** The id of the task a message without `taskId` creates, when chosen before (a receipt names it); else new. */
  readonly newTaskId?: string | undefined
  /** The receipt the send claimed for its message, if any (see MessageReceipts). */
  readonly receipt?: ReceiptHooks | undefined
  /**
   * The turn of this message was lost with the node that ran it (see TurnDispatch): its task, still in flight,
   * already holds the message, and the agent runs the turn again from the start on the task as it is.
   */
  readonly rerun?: boolean | undefined
}

/** What an execution tells the receipt of its message (see MessageReceipts). */
export interface ReceiptHooks {
  /** The agent answered with a message and made no task: recorded before the caller hears it. */
  readonly replied: (message: v1.Message) => Effect.Effect<void>
  /** The execution ended with neither a task nor a reply: the message was not accepted. */
  readonly unaccepted: () => Effect.Effect<void>
}

export interface TaskRunner {
  /**
   * Starts an execution that reports to `caller`: continues `message.taskId` when set (TaskNotFound,
   * UnsupportedOperation for a terminal task, InvalidParams for a contextId mismatch), else works on a new task.
   * Succeeds once the execution runs, or, for a task whose agent is still working on an earlier message (spec 3.7
   * "Task Interaction": agents MAY accept messages for non-terminal tasks), once the message is queued: it gets
   * the next turn when the one in progress ends in an interrupted state (input or auth required), and the
   * UnsupportedOperation of a terminal task when it ends there. Its events and outcome go to `caller` only.
   *
   * A message already in the task's history (its messageId) is not run again: `start` answers the task as it is
   * and `caller` hears nothing (InvalidParams when the earlier message had another body).
   */
  readonly start: (options: StartOptions, caller: Caller) => Effect.Effect<TaskRecord | undefined, A2AError>
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

/** Cancels an execution: interrupts its fiber and waits until it has recorded the outcome and let go of its task. */
const stop = (execution: { readonly fiber: Deferred.Deferred<Fiber.Fiber<void>> }): Effect.Effect<void> =>
  Effect.flatMap(Deferred.await(execution.fiber), Fiber.interrupt)

/** A store failure inside the runner, kept apart from the agent's own failures. */
class StoreFailed extends Schema.TaggedError<StoreFailed>()("StoreFailed", {
  message: Schema.String,
  /** Another writer (another node) saved the task meanwhile; see TaskStoreError.conflict. */
  conflict: Schema.Boolean,
  /** The storage could not be reached; see TaskStoreError.unavailable. */
  unavailable: Schema.Boolean
}) {}

/** The status message of a task whose execution lost its storage. */
export const STORAGE_LOST = "The task store was unreachable while this task was being worked on, so its work was " +
  "lost and it was marked as failed. Send the request again to start a new task."

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
// server each generator on that path measurably costs µs. The rare paths are Effect.fnUntraced, whose generator
// function is made once (one made per call keeps the call's objects alive through V8's young-generation
// collections: BENCHMARKS.md, "Generator functions made per call").
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
   * The executions now running, by task id (see Execution), each in a slot emptied when it goes: the Map's old
   * tables keep what they held until the next full GC (see LiveSet), which is then a slot, not an execution.
   */
  const running = new Map<string, { current: Execution | undefined }>()
  // Their fibers, interrupted when the server's scope closes. Not `forkIn(serverScope)`: that adds and removes an
  // entry of the scope's Map per execution, which V8 keeps reachable from the Map's old tables (see LiveSet).
  const executions = LiveSet.make<Fiber.Fiber<void>>()

  const remote = yield* RemoteCancel
  const observed = yield* Observability.isEnabled
  const storeFailed = (e: TaskStoreError) =>
    new StoreFailed({ message: e.message, conflict: isConflict(e), unavailable: e.unavailable === true })

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
      Effect.andThen(Effect.sync(() => caller.fail(Cause.fail(clientErrorOf(e)))))
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

  /** Attaches a request's push config to the task it is about to create. */
  const attachPushConfig = Effect.fnUntraced(function*(context: RequestContext, config: v1.TaskPushNotificationConfig) {
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

  /**
   * One execution: what it keeps in one object and its steps as methods, since an idle execution (an agent that
   * waits) holds it for as long as it waits; as closures over the run's variables it was a dozen closures and
   * their contexts (BENCHMARKS.md, "Idle streams, both ways"). It is also the task's entry in `running`, from the
   * start of its turn until it lets go of its task (`release`).
   */
  class Execution {
    readonly context: RequestContext
    readonly scope: TaskScope
    /** Who started it: hears the end once the task is let go. */
    readonly caller: Caller
    /** Where its events go: the caller, or the caller as Instrumentation observes it. */
    reporter: Caller
    /** The task as last saved; undefined until there is one (a new task before its first save). */
    record: TaskRecord | undefined
    /** Set once the execution has its answer (a final state, a message, or a recorded failure). */
    settled = false
    /** The push config to attach to the new task; undefined once attached (once only, see `step`). */
    pushConfig: v1.TaskPushNotificationConfig | undefined
    /** Messages sent to the task meanwhile, in arrival order; undefined while there are none. */
    pending: Array<Pending> | undefined
    /** The receipt of its message, until the execution has a task or a reply to show for it. */
    receipt: ReceiptHooks | undefined
    /** Its fiber, once forked (the execution is visible in `running` from the instant before). */
    readonly fiber = Deferred.makeUnsafe<Fiber.Fiber<void>>()
    /** Its entry in `running`, emptied when it lets go of its task. */
    readonly slot: { current: Execution | undefined } = { current: this }

    constructor(
      context: RequestContext,
      scope: TaskScope,
      caller: Caller,
      record: TaskRecord | undefined,
      pushConfig: v1.TaskPushNotificationConfig | undefined,
      pending: Array<Pending> | undefined,
      receipt: ReceiptHooks | undefined
    ) {
      this.context = context
      this.scope = scope
      this.caller = caller
      this.reporter = caller
      this.record = record
      this.pushConfig = pushConfig
      this.pending = pending
      this.receipt = record === undefined ? receipt : undefined
    }

    reducerContext(now: string): TaskReducer.ReducerContext {
      return {
        taskId: this.context.taskId,
        contextId: this.context.contextId,
        userMessage: this.context.message,
        now
      }
    }

    /**
     * Applies events in order, the task saved once for all of them, then published; false when the execution is
     * over (final state, message reply, misbehaviour). Nothing after the event that ends the turn is applied.
     */
    step(events: ReadonlyArray<AgentEvent>): Effect.Effect<boolean, StoreFailed> {
      return Effect.flatMap(Ids.now, (now) => {
        const context = this.context
        // The task as the events so far leave it (saved only below): an event sees those before it in the batch.
        let task = this.record?.task
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
              const answer = Effect.sync(() => {
                this.reporter.offer({ event: { message }, task: Option.none() })
                this.settled = true
                return false
              })
              const receipt = this.receipt
              this.receipt = undefined
              then = receipt === undefined ? answer : Effect.andThen(receipt.replied(message), answer)
              break
            }
            // Once the task exists its stream may only carry updates (spec: a Task, then status or artifact
            // updates until a terminal or interrupted state). The agent speaking to the client ends its turn
            // waiting for the answer: the message becomes the status message of an INPUT_REQUIRED update, and
            // joins the history.
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
          const applied = TaskReducer.apply(task, taskEvent, this.reducerContext(now))
          if (Result.isFailure(applied)) {
            then = Effect.logWarning(`Invalid agent response: ${applied.failure}`).pipe(
              Effect.andThen(this.fail(new InvalidAgentResponse({ message: applied.failure }), applied.failure)),
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
        if (published === undefined || task === undefined) return then ?? Effect.succeed(!this.settled)
        // A batch whose save fails is saved again one event at a time: the events before the failing one are
        // then stored and published, and the failure is that event's, as with one save per event.
        const committed = steps === undefined ? this.commit({ task, published }) : Effect.catch(
          this.commit({ task, published }),
          (e) =>
            Effect.logDebug(`Saving ${steps!.length} events at once failed (${e.message}); saving them one by one`)
              .pipe(Effect.andThen(Effect.forEach(steps!, (applied) => this.commit(applied), { discard: true })))
        )
        return then !== undefined ? Effect.andThen(committed, then) : Effect.map(committed, () => {
          if (final) this.settled = true
          return !this.settled
        })
      })
    }

    /** Attaches the request's push config to the task it is about to create. */
    attachPushConfig(config: v1.TaskPushNotificationConfig): Effect.Effect<void, StoreFailed> {
      return attachPushConfig(this.context, config)
    }

    /** Saves a step and publishes its events, then tells the caller. */
    commit(applied: TaskReducer.Applied): Effect.Effect<void, StoreFailed> {
      const current = this.record
      const saved = Effect.mapError(persist(this.scope, current?.version ?? 0, applied), storeFailed)
      const config = current === undefined ? this.pushConfig : undefined
      return Effect.map(
        config === undefined ? saved : Effect.andThen(
          this.attachPushConfig(config),
          Effect.suspend(() => {
            // Once only, even when the save after it fails and is made again (see `step`).
            this.pushConfig = undefined
            return saved
          })
        ),
        (record) => {
          this.record = record
          this.receipt = undefined
          for (const p of applied.published) this.reporter.offer({ event: p.event, task: Option.some(p.task) })
        }
      )
    }

    /**
     * Ends the execution on a failure: before the task exists the caller gets `error`; after, the task is
     * recorded FAILED with `reason` as the agent's status message.
     */
    fail(error: A2AError, reason: string): Effect.Effect<void, StoreFailed> {
      return Effect.suspend(() => {
        this.settled = true
        const current = this.record
        if (current === undefined) {
          this.reporter.fail(Cause.fail(error))
          return Effect.void
        }
        if (isTerminal(current.task.status.state)) return Effect.void
        return this.finalStatus("TASK_STATE_FAILED", reason)
      })
    }

    finalStatus(target: v1.TaskState, reason: string | undefined): Effect.Effect<void, StoreFailed> {
      return Effect.gen({ self: this }, function*() {
        const now = yield* Ids.now
        const message = reason === undefined ? undefined : yield* Effect.map(Ids.randomId, (messageId) => ({
          messageId,
          role: "ROLE_AGENT" as const,
          parts: [{ text: reason }]
        }))
        const applied = TaskReducer.apply(this.record?.task, {
          statusUpdate: {
            taskId: this.context.taskId,
            contextId: this.context.contextId,
            status: { state: target, timestamp: now, ...(message !== undefined ? { message } : {}) }
          }
        }, this.reducerContext(now))
        if (Result.isSuccess(applied)) yield* this.commit(applied.success)
      })
    }

    // An agent made with `produce` (the TaskUpdater helpers) runs in this fiber, any other is pulled as a stream,
    // a step per event; on a store that coalesces saves the agent runs ahead in a fiber of its own and a step
    // takes every event waiting.
    consume(): Effect.Effect<void, unknown> {
      return Effect.suspend(() => {
        const events = executor.execute(this.context)
        return store.coalesceSaves === true
          // Whatever the agent emitted while the last save was being made is applied and saved at once.
          ? Stream.runForEachWhile(
            Stream.chunks(PushStream.buffered(events, COALESCE_CAPACITY)),
            (batch) => Effect.uninterruptible(this.step(batch))
          )
          : PushStream.runForEachWhile(events, (event) => Effect.uninterruptible(this.step([event])))
      })
    }

    /** Records the outcome of the agent's work. */
    finish(exit: Exit.Exit<void, unknown>): Effect.Effect<void, StoreFailed> {
      if (Exit.isSuccess(exit) && this.settled) return Effect.void
      return Effect.gen({ self: this }, function*() {
        if (Exit.isSuccess(exit)) {
          if (this.settled) return
          return yield* this.fail(
            new InvalidAgentResponse({ message: "The agent finished without a response" }),
            "The agent finished without reaching a final state"
          )
        }
        const cause = exit.cause
        if (Cause.hasInterruptsOnly(cause)) {
          // CancelTask (or the agent itself). A shutdown also interrupts, but then the task is left as it is, for
          // recovery: the stores may be closing too.
          const current = this.record
          if (current !== undefined && !isTerminal(current.task.status.state) && serverScope.state._tag !== "Closed") {
            yield* this.finalStatus("TASK_STATE_CANCELED", undefined)
          }
          this.settled = true
          return
        }
        const error = Option.getOrUndefined(Cause.findErrorOption(cause))
        if (error instanceof StoreFailed) return yield* Effect.fail(error)
        if (error !== undefined && isA2AError(error) && this.record === undefined) {
          this.settled = true
          this.reporter.fail(Cause.fail(error))
          return
        }
        yield* Effect.logError("Agent execution failed", cause)
        const reason = error !== undefined ? `Agent failed: ${describe(error)}` : "Agent failed: internal error"
        yield* this.fail(new InternalError({ message: reason }), reason)
      })
    }

    /** The outcome recorded, a store failure included. */
    outcome(exit: Exit.Exit<void, unknown>): Effect.Effect<void> {
      return Effect.catch(this.finish(exit), (e) =>
        e.conflict
          ? endedElsewhere(this.reporter, this.context.taskId, this.scope, e)
          : Effect.andThen(storageFailed(this.reporter, e), e.unavailable ? this.failOnceReachable() : Effect.void))
    }

    /**
     * After the storage was unreachable during the execution, its task would stay stored in flight with no agent
     * behind it, on a node that lives on (so no recovery ends it): it is recorded FAILED once the storage is back.
     * Interruptible, unlike the rest of the outcome: a cancel or the server's stop ends the wait.
     */
    failOnceReachable(): Effect.Effect<void> {
      return Effect.suspend(() => {
        const current = this.record
        if (current === undefined || isTerminal(current.task.status.state)) return Effect.void
        return this.finalStatus("TASK_STATE_FAILED", STORAGE_LOST).pipe(
          Effect.retry({ while: (e) => e.unavailable, schedule: Schedule.spaced("1 second") }),
          // A conflict: the task was saved since (by another node), which decided its end.
          Effect.catch((e) => e.conflict ? Effect.void : Effect.logError("Cannot record a task as failed", e)),
          Effect.interruptible
        )
      })
    }

    /**
     * The agent's work and its recorded outcome. Only the agent is interruptible: the outcome is always recorded,
     * even when the interruption is a cancel. While the agent waits, its fiber's stack holds the steps of this
     * (the work, the exit, one continuation), not one frame per combinator.
     */
    work(then: (exit: Exit.Exit<void, unknown>) => Effect.Effect<void>): Effect.Effect<void> {
      return Effect.uninterruptible(Effect.flatMap(Effect.exit(Effect.interruptible(this.consume())), then))
    }

    /** Under the task's lock: the next waiting message, if any, starts its turn (or hears why it cannot). */
    letGo(): Effect.Effect<void> {
      const taskId = this.context.taskId
      if (running.get(taskId) !== this.slot) return Effect.void
      running.delete(taskId)
      this.slot.current = undefined
      const pending = this.pending
      if (pending === undefined || pending.length === 0) return Effect.void
      const [next, ...rest] = pending
      return continueQueued(next!, rest, taskId)
    }

    /**
     * Lets go of the task, then tells the caller the end (the task is let go first, so that its next message
     * finds it free).
     *
     * Without a stored task (decided at the end, not now) there is nothing a cancel could race with: no lock
     * needed. Nor with a stored task no one else holds or waits for, when no message waits: letting go is then
     * one synchronous step, which nothing can come between, as it would have run under a lock taken at once (the
     * lock, an RcMap entry, costs a Map of the fiber's services and a fiber per task: ~9 KB, BENCHMARKS.md).
     */
    release(): Effect.Effect<void> {
      const receipt = this.receipt
      this.receipt = undefined
      const released = Effect.andThen(
        Effect.suspend(() =>
          this.record === undefined ||
            ((this.pending === undefined || this.pending.length === 0) && !lockUsers.has(this.context.taskId))
            ? this.letGo()
            : withLock(this.context.taskId, Effect.suspend(() => this.letGo()))
        ),
        Effect.sync(() => this.caller.end())
      )
      // Neither a task nor a reply: the message was not accepted, and sending it again runs it anew.
      return receipt === undefined ? released : Effect.andThen(receipt.unaccepted(), released)
    }

    /** The whole execution, as its fiber runs it. */
    run(): Effect.Effect<void> {
      if (!observed) return this.work((exit) => Effect.ensuring(this.outcome(exit), this.release()))
      return Effect.ensuring(
        Instrumentation.execution(this.context, this.caller, (reporter) => {
          this.reporter = reporter
          return this.work((exit) => this.outcome(exit))
        }),
        this.release()
      )
    }
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
    record: TaskRecord | undefined,
    pending?: Array<Pending>
  ): Effect.Effect<void> =>
    Effect.suspend(() => {
      const call = options.call
      const context: RequestContext = {
        message,
        taskId,
        contextId,
        task: record === undefined ? Option.none() : Option.some(record.task),
        principal: call.principal,
        tenant: options.tenant,
        metadata: options.metadata,
        configuration: options.configuration,
        extensions: call.extensions,
        call
      }
      if (record !== undefined) caller.offer({ event: { task: record.task }, task: Option.some(record.task) })
      // Only what the execution needs of the request is kept: not `options` itself.
      const execution = new Execution(
        context,
        { owner: options.owner, tenant: options.tenant },
        caller,
        record,
        options.pushConfig,
        pending,
        options.receipt
      )
      running.set(taskId, execution.slot)
      if (serverScope.state._tag === "Closed") {
        // Too late to run: the fiber forkIn gives a closed scope is interrupted before it starts, so the caller
        // hears it here (it would otherwise wait for an execution that never comes).
        return Effect.flatMap(Effect.forkIn(execution.run(), serverScope), (fiber) => {
          if (running.get(taskId) === execution.slot) running.delete(taskId)
          execution.slot.current = undefined
          Deferred.doneUnsafe(execution.fiber, Exit.succeed(fiber))
          caller.fail(Cause.fail(new InternalError({ message: "The server is shutting down; send the request again" })))
          return execution.receipt?.unaccepted() ?? Effect.void
        })
      }
      return Effect.map(Effect.forkDetach(execution.run()), (fiber) => track(execution, fiber))
    })

  /**
   * Keeps a forked execution's fiber in `executions` until it ends. Outside `launch`: an observer made there would
   * close over launch's variables (the request's options and message) and keep them for as long as the agent waits.
   */
  const track = (execution: Execution, fiber: Fiber.Fiber<void>): void => {
    const entry = LiveSet.add(executions, fiber)
    fiber.addObserver(() => LiveSet.remove(executions, entry))
    Deferred.doneUnsafe(execution.fiber, Exit.succeed(fiber))
  }

  /**
   * Checks that a task can take a new message, and records it in the task's history (under its lock); queues it
   * when the task's agent is still working.
   */
  const continueTask: (
    options: StartOptions,
    caller: Caller,
    taskId: string,
    pending?: Array<Pending>
  ) => Effect.Effect<TaskRecord | undefined, A2AError> = Effect.fnUntraced(
    function*(options: StartOptions, caller: Caller, taskId: string, pending?: Array<Pending>) {
      const existing = yield* store.get(taskId, { owner: options.owner, tenant: options.tenant }).pipe(
        orInternal
      )
      if (Option.isNone(existing)) {
        if (options.call.namesTasks !== true) return yield* notFound(taskId)
        // A task the caller names (CallContext.namesTasks): started under its id, under the lock of that id; one
        // started by a message just before this one may not be saved yet.
        if (running.get(taskId)?.current !== undefined) {
          return yield* new UnsupportedOperation({
            message: `Task ${taskId} is being started by another message; send this one again once it waits for input`,
            metadata: { taskId }
          })
        }
        return yield* startNew(options, caller, taskId)
      }
      const task = existing.value.task
      const messageId = options.message.messageId
      const earlier = task.history?.find((m) => m.messageId === messageId)
      if (earlier !== undefined) {
        // Sent before (its receipt gone, or never kept): the task already took it, and its agent does not run again.
        const given = options.message.contextId
        const contextId = given !== undefined && given.length > 0 ? given : earlier.contextId
        const again: v1.Message = contextId === undefined
          ? { ...options.message, taskId }
          : { ...options.message, taskId, contextId }
        if (fingerprint(again) !== fingerprint(earlier)) return yield* differentBody(messageId)
        if (options.rerun === true && !isFinal(task.status.state) && running.get(taskId)?.current === undefined) {
          yield* launch(options, caller, taskId, task.contextId ?? earlier.contextId ?? taskId, earlier, existing.value)
          return undefined
        }
        return existing.value
      }
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
        if (busy.pending !== undefined && busy.pending.length >= MAX_PENDING) {
          return yield* new UnsupportedOperation({
            message: `Task ${taskId} already has ${MAX_PENDING} messages waiting for its agent; try again later`,
            metadata: { taskId }
          })
        }
        ;(busy.pending ??= []).push({ options, caller })
        // The task as its execution last saved it.
        const current = busy.record?.task ?? task
        if (caller.queued !== undefined) caller.queued(current)
        return undefined
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
      const history = TaskReducer.appended(task.history, message)
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
      yield* launch(options, caller, taskId, contextId, message, next, pending)
      return undefined
    }
  )

  /**
   * The turn of a message that waited: continues the task as `continueTask` would, the messages still waiting
   * after it carried over. When the task cannot take it (it ended meanwhile), this message and every other one
   * waiting hear why.
   */
  const continueQueued = (next: Pending, rest: Array<Pending>, taskId: string): Effect.Effect<void> =>
    continueTask(next.options, next.caller, taskId, rest).pipe(
      Effect.flatMap((taken) => {
        if (taken === undefined) return Effect.void
        // Already in the task: its caller hears the task as it is, and the next waiting message takes the turn.
        next.caller.offer({ event: { task: taken.task }, task: Option.some(taken.task) })
        next.caller.end()
        return rest.length === 0 ? Effect.void : continueQueued(rest[0]!, rest.slice(1), taskId)
      }),
      Effect.catch((error) =>
        Effect.sync(() => {
          for (const { caller } of [next, ...rest]) {
            caller.fail(Cause.fail(error))
            caller.end()
          }
        })
      )
    )

  /** Starts a new task with the given id: the message's contextId, or a new one. */
  const startNew = (options: StartOptions, caller: Caller, taskId: string): Effect.Effect<undefined> => {
    const { taskId: _, ...message } = options.message
    const given = message.contextId !== undefined && message.contextId.length > 0 ? message.contextId : undefined
    const run = (contextId: string) =>
      Effect.as(launch(options, caller, taskId, contextId, { ...message, contextId }, undefined), undefined)
    return given !== undefined ? run(given) : Effect.flatMap(Ids.randomId, run)
  }

  const start = (options: StartOptions, caller: Caller): Effect.Effect<TaskRecord | undefined, A2AError> => {
    const taskId = options.message.taskId
    if (taskId !== undefined && taskId.length > 0) return withLock(taskId, continueTask(options, caller, taskId))
    if (options.newTaskId !== undefined) return startNew(options, caller, options.newTaskId)
    // Nested, not Effect.zip: no tuple nor zip's continuations on every SendMessage.
    return Effect.flatMap(Ids.taskId, (taskId) => startNew(options, caller, taskId))
  }

  /**
   * Waits (a bounded time) until the stored task is terminal: another node was asked to cancel its execution and
   * records the outcome; this node hears it on the EventBus.
   */
  const awaitOutcome: (taskId: string, scope: TaskScope) => Effect.Effect<void, A2AError> = Effect.fnUntraced(
    function*(taskId: string, scope: TaskScope) {
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
    },
    Effect.scoped
  )

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

  /** One round of a cancel, under the task's lock: its outcome, or what to wait for before deciding again. */
  const cancelUnderLock = Effect.fnUntraced(function*(taskId: string, scope: TaskScope) {
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

  const cancel: (taskId: string, scope: TaskScope) => Effect.Effect<v1.Task, A2AError> = Effect.fnUntraced(
    function*(taskId: string, scope: TaskScope) {
      // A few rounds at most: an execution may end (e.g. at input-required) just as we try to cancel it, and
      // another node may save the task between our read and our write.
      for (let round = 0; round < 5; round++) {
        const outcome = yield* withLock(taskId, cancelUnderLock(taskId, scope))
        if (Result.isSuccess(outcome)) return outcome.success
        yield* outcome.failure
        const ended = yield* outcomeOf(taskId, scope)
        if (Option.isSome(ended)) return ended.value
      }
      return yield* new InternalError({ message: `Task ${taskId} could not be canceled; try again` })
    }
  )

  // Other nodes' cancel requests for the executions running here.
  yield* remote.serve((taskId, scope) =>
    cancel(taskId, scope).pipe(
      Effect.catch((error) => Effect.logDebug(`Cancel requested by another node: ${error.message}`)),
      Effect.asVoid
    )
  )

  // With an engine (several nodes), turns are queued there and run on the node it picks, through this runner.
  const dispatch = yield* TurnDispatch
  yield* dispatch.serve({ start, restartable: executor.restartable === true })

  // Added last, so run first when the server's scope closes, as the executions' own finalizers were when each was
  // forked into it: the executions end before what they use closes.
  yield* Effect.addFinalizer(() =>
    Effect.withFiber((current) => Fiber.interruptAll(LiveSet.takeAll(executions).filter((fiber) => fiber !== current)))
  )

  return { start: dispatch.route ?? start, cancel } satisfies TaskRunner
})
