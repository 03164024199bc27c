/**
 * One execution: the agent run for one message on its task, in a fiber of its own owned by the server's scope
 * (never by the request, so a client leaving a stream does not stop its task). Every agent event is validated and
 * folded into the task (EventBatch, TaskReducer), saved, published on the EventBus, handed to the PushNotifier
 * (Commit), and offered to the caller. While an execution runs it is the only writer of its task.
 *
 * Cancellation interrupts the execution's fiber while the agent runs (the agent's finalizers run); the execution
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
 * - A failed save ends the execution (logged; InternalError to the caller, or Unavailable when the storage could
 *   not be reached, the task then recorded FAILED once it is back, even before its first save when it was
 *   acknowledged (StartOptions.acknowledged), unless an engine runs the turn again
 *   (StartOptions.rerunOnStorageLoss); a conflict read as another node's outcome),
 *   and what it held was published to no one. A failed save of several events is made again one event at a time
 *   first, so the events before the failing one are stored and published, and the failure is that event's: what
 *   is stored and told is what one save per event gives.
 * - A step (apply, save, publish) is uninterruptible: a cancel lands between steps. Events the agent emitted
 *   but that no step has taken go with the interrupted agent, never published.
 * - On a store whose save is a commit, the agent runs ahead in a fiber of its own by at most COALESCE_CAPACITY
 *   events and each step takes all that wait, at least one: nothing waits for more, so a lone event is saved as
 *   soon as it comes. Elsewhere (the memory store) the agent runs in the execution's fiber and each event is
 *   saved before the agent goes on, with no fiber nor queue added.
 *
 * Each execution keeps its own fiber (a Deferred set when it is forked) and its entry in `running`, rather than
 * living in a FiberMap, because a turn hands its task over from inside its own fiber (its last step, under the
 * task's lock, starts the next waiting message's turn, see Turns), and because what the engine keeps per task
 * lasts from the turn's start until that hand-over, not until the fiber ends. CancelTask interrupts the execution
 * it found under the lock through that fiber.
 *
 * What runs per agent event is written as plain pipelines rather than generators: a generator made per call costs
 * more on a loaded server, on the path every event takes. How an execution ends is recorded by Outcome.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { type A2AError, InternalError, InvalidAgentResponse } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isTerminal } from "../../protocol/TaskStates.ts"
import type { AgentEvent } from "../AgentEvent.ts"
import type { AgentExecutor } from "../AgentExecutor.ts"
import * as Ids from "../internal/Ids.ts"
import * as Instrumentation from "../internal/Instrumentation.ts"
import * as LiveSet from "../internal/LiveSet.ts"
import * as PushStream from "../internal/PushStream.ts"
import type { PushConfig, PushConfigStore } from "../PushConfigStore.ts"
import type { RequestContext } from "../RequestContext.ts"
import type { TaskRecord, TaskScope, TaskStore } from "../TaskStore.ts"
import type { Caller, Pending, ReceiptHooks, StartOptions } from "./Caller.ts"
import type * as Commit from "./Commit.ts"
import * as EventBatch from "./EventBatch.ts"
import * as Outcome from "./Outcome.ts"
import { type StoreFailed, storeFailed } from "./Outcome.ts"
import type * as TaskLocks from "./TaskLocks.ts"
import * as TaskReducer from "./TaskReducer.ts"

/**
 * Events an agent may run ahead of its task's saves on a store that coalesces them (TaskStore.coalesceSaves): the
 * most one save holds. Past it the agent waits at its next event for the save in progress.
 *
 * @since 0.1.0
 * @category constants
 */
export const COALESCE_CAPACITY = 32

export { STORAGE_LOST } from "./Outcome.ts"

/**
 * The executions now running whose task is stored (or whose id the caller gave), by task id, each in a slot emptied
 * when it goes: the Map's old tables keep what they held until the next full GC (see LiveSet), which is then a slot,
 * not an execution. An execution that stores no task (a direct reply) never enters it (`Execution.register`).
 *
 * @since 0.1.0
 * @category models
 */
export type Running = Map<string, { current: Execution | undefined }>

/**
 * What an execution uses, given explicitly (one object shared by all executions).
 *
 * @since 0.1.0
 * @category models
 */
export interface Dependencies {
  readonly store: TaskStore["Service"]
  readonly pushConfigs: PushConfigStore["Service"]
  readonly executor: AgentExecutor["Service"]
  readonly commit: Commit.Commit
  readonly locks: TaskLocks.TaskLocks
  readonly running: Running
  /** The executions' fibers, interrupted when the server's scope closes. */
  readonly fibers: LiveSet.LiveSet<Fiber.Fiber<void>>
  /** The server's scope: a shutdown is no cancel. */
  readonly serverScope: Scope.Scope
  /**
   * Whether the executions have been interrupted (the server's scope closing): an execution started from then on
   * does not run. Not as soon as the scope closes: what closes before them (a stopping engine letting the turns it
   * runs end, a server answering its requests in flight) may still start turns, which they interrupt.
   */
  readonly stopped: () => boolean
  /** Whether the server instruments itself (Observability.isEnabled). */
  readonly observed: boolean
  /** Whether the server keeps task generations (the A2A 1.1 draft, A2A11). */
  readonly generations?: boolean | undefined
  /** The turn of the next waiting message, once the execution let go of its task (see Turns). */
  readonly nextTurn: (next: Pending, rest: Array<Pending>, taskId: string) => Effect.Effect<void>
}

/** Attaches a request's push config to the task it is about to create. */
const attachPushConfig = Effect.fnUntraced(
  function*(pushConfigs: PushConfigStore["Service"], context: RequestContext, config: v1.TaskPushNotificationConfig) {
    const id = config.id !== undefined && config.id.length > 0 ? config.id : yield* Ids.randomId
    // Its webhook is sent payloads of the version the request was made in.
    const attached: PushConfig = {
      ...config,
      id,
      taskId: context.taskId,
      protocolVersion: context.call.requestedVersion
    }
    yield* pushConfigs.set(attached).pipe(Effect.mapError(storeFailed))
  }
)

/**
 * One execution: what it keeps in one object and its steps as methods, since an idle execution (an agent that
 * waits) holds it for as long as it waits; as closures over the run's variables it was a dozen closures and
 * their contexts. It is also the task's entry in `running`, from the
 * start of its turn until it lets go of its task (`release`).
 *
 * @since 0.1.0
 * @category models
 */
export class Execution {
  readonly deps: Dependencies
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
  /** Whether its task is left in flight when the storage is lost, for an engine to run the turn again. */
  rerunOnStorageLoss = false
  /** Whether its client knows the task before its first save (StartOptions.acknowledged). */
  acknowledged = false

  constructor(
    deps: Dependencies,
    context: RequestContext,
    scope: TaskScope,
    caller: Caller,
    record: TaskRecord | undefined,
    pushConfig: v1.TaskPushNotificationConfig | undefined,
    pending: Array<Pending> | undefined,
    receipt: ReceiptHooks | undefined
  ) {
    this.deps = deps
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
      now,
      namedTask: this.context.call.namesTasks,
      generations: this.deps.generations
    }
  }

  /**
   * Applies events in order (EventBatch), the task saved once for all of them, then published; false when the
   * execution is over (final state, message reply, misbehaviour).
   */
  step(events: ReadonlyArray<AgentEvent>): Effect.Effect<boolean, StoreFailed> {
    return Effect.flatMap(Ids.now, (now) => {
      const task = this.record?.task
      const context = this.reducerContext(now)
      const { applied, count, ending, final } = EventBatch.reduce(task, events, context)
      const then = ending === undefined ? undefined : this.end(ending)
      if (applied === undefined) return then ?? Effect.succeed(!this.settled)
      // A batch whose save fails is saved again one event at a time: the events before the failing one are
      // then stored and published, and the failure is that event's, as with one save per event.
      const committed = count === 1 ? this.commit(applied) : Effect.catch(
        this.commit(applied),
        (e) =>
          Effect.logDebug(`Saving ${count} events at once failed (${e.message}); saving them one by one`).pipe(
            Effect.andThen(Effect.suspend(() =>
              Effect.forEach(EventBatch.steps(task, events.slice(0, count), context), (step) => this.commit(step), {
                discard: true
              })
            ))
          )
      )
      return then !== undefined ? Effect.andThen(committed, then) : Effect.map(committed, () => {
        if (final) this.settled = true
        return !this.settled
      })
    })
  }

  /** What ends the turn without a task change: the direct reply told, or the misbehaviour recorded. */
  end(ending: EventBatch.Ending): Effect.Effect<boolean, StoreFailed> {
    if (ending._tag === "Invalid") {
      return Effect.logWarning(`Invalid agent response: ${ending.reason}`).pipe(
        Effect.andThen(this.fail(new InvalidAgentResponse({ message: ending.reason }), ending.reason)),
        Effect.as(false)
      )
    }
    const message = ending.message
    const answer = Effect.sync(() => {
      this.reporter.offer({ event: { message }, task: Option.none() })
      this.settled = true
      return false
    })
    const receipt = this.receipt
    this.receipt = undefined
    return receipt === undefined ? answer : Effect.andThen(receipt.replied(message), answer)
  }

  /** Saves a step and publishes its events, then tells the caller. */
  commit(applied: TaskReducer.Applied): Effect.Effect<void, StoreFailed> {
    const current = this.record
    const saved = Effect.mapError(
      current === undefined
        ? Effect.andThen(Effect.sync(() => this.register()), this.deps.commit(this.scope, 0, applied))
        : this.deps.commit(this.scope, current.version, applied),
      storeFailed
    )
    const config = current === undefined ? this.pushConfig : undefined
    return Effect.map(
      config === undefined ? saved : Effect.andThen(
        attachPushConfig(this.deps.pushConfigs, this.context, config),
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
  // takes every event waiting (for a `produce` agent from a plain array, with no Stream channel nor queue).
  consume(): Effect.Effect<void, unknown> {
    return Effect.suspend(() => {
      const events = this.deps.executor.execute(this.context)
      return this.deps.store.coalesceSaves === true
        // Whatever the agent emitted while the last save was being made is applied and saved at once.
        ? PushStream.runBatchesWhile(events, COALESCE_CAPACITY, (batch) => Effect.uninterruptible(this.step(batch)))
        : PushStream.runForEachWhile(events, (event) => Effect.uninterruptible(this.step([event])))
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

  /**
   * Enters `running` before the task's first save, so that whoever finds the task stored finds its execution too.
   * Not before: an entry added and deleted per SendMessage answered by a message made the Map reallocate its
   * table on most deletes, in the old generation where its tables are, and each table left there kept the keys and
   * slots it held alive across every scavenge until the next full GC.
   */
  register(): void {
    if (this.slot.current === this) this.deps.running.set(this.context.taskId, this.slot)
  }

  /** Under the task's lock: the next waiting message, if any, starts its turn (or hears why it cannot). */
  letGo(): Effect.Effect<void> {
    const taskId = this.context.taskId
    const running = this.deps.running
    if (running.get(taskId) !== this.slot) return Effect.void
    running.delete(taskId)
    this.slot.current = undefined
    const pending = this.pending
    if (pending === undefined || pending.length === 0) return Effect.void
    const [next, ...rest] = pending
    return this.deps.nextTurn(next!, rest, taskId)
  }

  /**
   * Lets go of the task, then tells the caller the end (the task is let go first, so that its next message
   * finds it free).
   *
   * Without a stored task (decided at the end, not now) there is nothing a cancel could race with: no lock
   * needed. Nor with a stored task no one else holds or waits for, when no message waits: letting go is then
   * one synchronous step, which nothing can come between, as it would have run under a lock taken at once (the
   * lock, an RcMap entry, costs a Map of the fiber's services and a fiber per task).
   */
  release(): Effect.Effect<void> {
    const receipt = this.receipt
    this.receipt = undefined
    const released = Effect.andThen(
      Effect.suspend(() =>
        this.record === undefined ||
          ((this.pending === undefined || this.pending.length === 0) && !this.deps.locks.isHeld(this.context.taskId))
          ? this.letGo()
          : this.deps.locks.withLock(this.context.taskId, Effect.suspend(() => this.letGo()))
      ),
      Effect.sync(() => this.caller.end())
    )
    // Neither a task nor a reply: the message was not accepted, and sending it again runs it anew.
    return receipt === undefined ? released : Effect.andThen(receipt.unaccepted(), released)
  }

  /** The whole execution, as its fiber runs it. */
  run(): Effect.Effect<void> {
    if (!this.deps.observed) return this.work((exit) => Effect.ensuring(Outcome.record(this, exit), this.release()))
    return Effect.ensuring(
      Instrumentation.execution(this.context, this.caller, (reporter) => {
        this.reporter = reporter
        return this.work((exit) => Outcome.record(this, exit))
      }),
      this.release()
    )
  }
}

/**
 * What a send hears when the server stops before it could be answered: its turn did not start, or (a blocking send
 * at the shutdown deadline) its agent said nothing yet.
 *
 * @since 0.1.0
 * @category errors
 */
export const shuttingDownError = new InternalError({ message: "The server is shutting down; send the request again" })

/**
 * What a turn hears once the executions have been interrupted (`stopped`), before its agent could start: it did not
 * run, and its message was not taken into its task.
 *
 * @since 0.1.0
 * @category errors
 */
export const shuttingDown: Effect.Effect<never, InternalError> = Effect.fail(shuttingDownError)

/**
 * Runs an execution in its own fiber, in the server's scope; `record` is the continued task, if any, and
 * `pending` the messages already waiting for the turn after this one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const launch = (
  deps: Dependencies,
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
      deps,
      context,
      { owner: options.owner, tenant: options.tenant },
      caller,
      record,
      options.pushConfig,
      pending,
      options.receipt
    )
    execution.rerunOnStorageLoss = options.rerunOnStorageLoss === true
    execution.acknowledged = options.acknowledged === true
    const running = deps.running
    // Found by id only once its task is stored (or its id is the caller's): an execution that answers with a
    // message and stores no task never enters the Map, whose old tables would keep its entry (see `register`).
    if (record !== undefined || call.namesTasks === true) running.set(taskId, execution.slot)
    const serverScope = deps.serverScope
    if (deps.stopped()) {
      // Too late to run: the fiber forkIn gives a closed scope is interrupted before it starts, so the caller
      // hears it here (it would otherwise wait for an execution that never comes).
      return Effect.flatMap(Effect.forkIn(execution.run(), serverScope), (fiber) => {
        if (running.get(taskId) === execution.slot) running.delete(taskId)
        execution.slot.current = undefined
        Deferred.doneUnsafe(execution.fiber, Exit.succeed(fiber))
        caller.fail(Cause.fail(shuttingDownError))
        caller.end()
        return execution.receipt?.unaccepted() ?? Effect.void
      })
    }
    return Effect.map(Effect.forkDetach(execution.run()), (fiber) => track(execution, fiber))
  })

/**
 * Keeps a forked execution's fiber in `fibers` until it ends. Outside `launch`: an observer made there would
 * close over launch's variables (the request's options and message) and keep them for as long as the agent waits.
 * Not `forkIn(serverScope)`: that adds and removes an entry of the scope's Map per execution, which V8 keeps
 * reachable from the Map's old tables (see LiveSet).
 */
const track = (execution: Execution, fiber: Fiber.Fiber<void>): void => {
  const fibers = execution.deps.fibers
  const entry = LiveSet.add(fibers, fiber)
  fiber.addObserver(() => LiveSet.remove(fibers, entry))
  Deferred.doneUnsafe(execution.fiber, Exit.succeed(fiber))
}

/**
 * Cancels an execution: interrupts its fiber and waits until it has recorded the outcome and let go of its task.
 *
 * @since 0.1.0
 * @category cancellation
 */
export const stop = (execution: Execution): Effect.Effect<void> =>
  Effect.flatMap(Deferred.await(execution.fiber), Fiber.interrupt)
