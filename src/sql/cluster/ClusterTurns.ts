/**
 * Turns spread over the nodes sharing one PostgreSQL database, on Effect's cluster engine (`effect/cluster`):
 * every task is an entity, and every SendMessage a persisted `Turn` message to the entity of its task. The engine
 * gives each task's entity to one runner (a node that executes: `serve`, or `worker`) and moves it when that
 * runner goes; its messages are rows of PostgreSQL (SqlMessageStorage) until answered. So:
 * - any node takes any SendMessage (`serve --no-execute` only sends); the turn runs where the task's entity lives,
 *   after the turns sent before it to the same task (an entity takes its messages one at a time, in the order they
 *   were stored): a non-blocking send is acknowledged once its Turn is stored, never sooner (by an event of the
 *   task's turn in progress), so a message sent after that acknowledgement runs after it;
 * - a runner runs at most `maxExecutions` turns at once: turns beyond it wait for a slot, in arrival order, still
 *   stored until answered. Not with the engine's `maxResidentEntities`: an entity keeps its slot until the engine
 *   reaps it idle, which it checks every 5 s at best, so every task being a new entity, a runner ran at most
 *   `maxExecutions` new tasks per 5 s (BENCHMARKS.md, "Cluster engine");
 * - a runner killed mid-turn: its shards go to the others once its shard locks expire (`failover`), and its
 *   unanswered turns are delivered again there. A turn that finds its message in its task, the task still in
 *   flight or its last save the one that took the message (TaskRecord's `turn`: a task waiting for input keeps its
 *   status until its agent reports), was cut short with its runner: a restartable agent (AgentExecutor's
 *   `restartable`) runs it again from the start, any other leaves the task FAILED with NODE_LOST (committed as the
 *   runner commits any change: its subscribers and webhooks are told). Nothing queued is lost; a stopping runner
 *   lets its turns in progress end (until the ShutdownDeadline) and hands the rest over with its shards. Its
 *   executions are interrupted only after that stop: a turn it started as its server began to close
 *   runs to its end (Execution's `stopped`), rather than being refused with its message already in the task, which
 *   the next owner would take as run;
 * - the database lost for a while: a turn that could not start runs once it is back, and so does, again from the
 *   start, a restartable agent's turn that could not save (any other's task is FAILED, see Execution, even one
 *   whose first save failed once its non-blocking send was acknowledged).
 *
 * The node that took the request tells its caller the turn's events through the EventBus (LISTEN/NOTIFY), and
 * its outcome (a reply, the task, or the A2A error) from the Turn's answer. Events the bus missed (its channel
 * lost with the database) are caught up from the store once it is back, and a stream closes with the final Task.
 */
import * as Cause from "effect/Cause"
import { ClusterSchema, Entity } from "effect/cluster"
import type * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PrimaryKey from "effect/PrimaryKey"
import * as Result from "effect/Result"
import { Rpc } from "effect/rpc"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { A2AError, InternalError, UnsupportedOperation } from "../../protocol/A2AError.ts"
import * as v1 from "../../protocol/generated/v1.ts"
import { isFinal, isTerminal, label } from "../../protocol/TaskStates.ts"
import * as CallContext from "../../server/CallContext.ts"
import { EventBus } from "../../server/EventBus.ts"
import * as Ids from "../../server/internal/Ids.ts"
import { receiptKeyString } from "../../server/MessageReceipts.ts"
import {
  isConflict,
  isStorageUnreachable,
  isTurnCut,
  orInternal,
  type TaskRecord,
  TaskStore
} from "../../server/TaskStore.ts"
import {
  appended,
  applyEvent,
  type Caller,
  type Local,
  type Processed,
  type Service as TurnDispatchService,
  setStatus,
  type StartOptions,
  TurnDispatch
} from "../../server/TurnDispatch.ts"

/** The status message of a task whose turn was lost with its node and whose agent is not restartable. */
export const NODE_LOST = "The server node running this task was lost, so its work was interrupted and it was " +
  "marked as failed. Send the request again to start a new task."

export interface Options {
  /** Whether this node runs turns (a runner); false: it only sends them (`serve --no-execute`). */
  readonly execute: boolean
  /** Turns this node runs at once, at most; others wait for a slot (stored until answered). */
  readonly maxExecutions: number
  /** How long a lost runner keeps its shards (its locks' expiry): the bound on taking its turns over. */
  readonly failover: Duration.Duration
}

// --- the Turn message ---

/** What travels of the request's CallContext: its credentials (authorization, cookies, API keys) never do. */
const Call = Schema.Struct({
  principal: Schema.Struct({
    id: Schema.String,
    anonymous: Schema.Boolean,
    scheme: Schema.optional(Schema.String)
  }),
  requestedVersion: Schema.String,
  extensions: Schema.Array(Schema.String),
  headers: Schema.Record(Schema.String, Schema.String),
  interfaces: Schema.optional(Schema.Array(v1.AgentInterface)),
  origin: Schema.optional(Schema.String),
  binding: Schema.optional(Schema.String),
  namesTasks: Schema.optional(Schema.Boolean)
})

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key|api-key)$/i

const TurnOutcome = Schema.Union([
  Schema.TaggedStruct("Reply", { message: v1.Message }),
  Schema.TaggedStruct("Task", { task: v1.Task })
])
type TurnOutcome = typeof TurnOutcome.Type

/**
 * A SendMessage as its turn needs it. Its primary key is the message's (owner, tenant, messageId): the engine
 * stores one Turn per message, and a second send of it waits for the first one's outcome.
 */
export class TurnRequest extends Schema.Class<TurnRequest>("effect-a2a/TurnRequest")({
  message: v1.Message,
  owner: Schema.String,
  tenant: Schema.String,
  call: Call,
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  configuration: Schema.optional(v1.SendMessageConfiguration),
  pushConfig: Schema.optional(v1.TaskPushNotificationConfig),
  newTaskId: Schema.optional(Schema.String)
}) {
  [PrimaryKey.symbol](): string {
    return receiptKeyString({ owner: this.owner, tenant: this.tenant, messageId: this.message.messageId })
  }
}

export const Turn = Rpc.make("Turn", {
  payload: TurnRequest,
  success: TurnOutcome,
  error: A2AError
}).annotate(ClusterSchema.Persisted, true)
  // By the time the engine stops, its runner has let the turns it ran end or cut them short (see `stop`): what is
  // left goes to the task's next owner at once, rather than the engine waiting for it.
  .annotate(ClusterSchema.InterruptOnTermination, true)
  // A caller interrupted while it waits for its Turn (its node stopping, or it left) does not interrupt the Turn: the
  // engine ignores such an interrupt only once its own shutdown has begun, after this node's sending side has closed,
  // and a Turn interrupted before it started would be answered so, never run (its acknowledged message lost).
  .annotate(ClusterSchema.Uninterruptible, "client")

/** A task, as the engine knows it: its turns, one at a time. */
export const Task = Entity.make("effect-a2a/Task", [Turn])

type TurnPayload = TurnRequest

const payloadOf = (options: StartOptions, newTaskId: string | undefined): TurnPayload => {
  const call = options.call
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(call.headers)) if (!SECRET_HEADER.test(name)) headers[name] = value
  return new TurnRequest({
    message: options.message,
    owner: options.owner,
    tenant: options.tenant,
    call: { ...call, headers },
    metadata: options.metadata,
    configuration: options.configuration,
    pushConfig: options.pushConfig,
    newTaskId
  })
}

// --- the runner's side: a Turn runs here ---

const inFlight = (task: v1.Task) => !isFinal(task.status.state)

/**
 * What a Turn's run answers when the storage was lost before its turn started, or during it with a restartable
 * agent (whose execution left the task in flight, see StartOptions.rerunOnStorageLoss): it runs again once the
 * storage is back, and finds its task as a turn lost with its node leaves it (run again from the start).
 */
const AGAIN = "again" as const

/** What the runner's Turns share: whether the node is stopping, and the turns it runs (each done when it ends). */
interface RunnerState {
  stopping: boolean
  readonly turns: Set<Deferred.Deferred<void>>
  /** Done once a stop has waited for the turns it may: those still running are left to the engine. */
  readonly stopped: Deferred.Deferred<void>
}

/**
 * A graceful stop (the runner's scope closing): no turn starts from now on (the engine hands those over when it
 * stops), and the turns running here may end, until `deadline`; the runner then interrupts what is left, whose
 * turns the task's next owner runs again or fails as lost.
 */
const stop = (state: RunnerState, deadline: Deferred.Deferred<void>) =>
  Effect.suspend(() => {
    state.stopping = true
    const running = [...state.turns]
    const stopped = Effect.sync(() => void Deferred.doneUnsafe(state.stopped, Exit.void))
    if (running.length === 0) return stopped
    return Effect.logInfo(`Stopping: waiting for the ${running.length} turn(s) running here to end`).pipe(
      Effect.andThen(Effect.raceFirst(
        Effect.forEach(running, Deferred.await, { discard: true }),
        Deferred.await(deadline)
      )),
      Effect.ensuring(stopped)
    )
  })

/** The entity's handler: runs each Turn through the local runner once it is ready, and answers its outcome. */
const handler = (
  ready: Deferred.Deferred<Local>,
  state: RunnerState,
  slots: Semaphore.Semaphore
) =>
  Effect.gen(function*() {
    const store = yield* TaskStore

    /**
     * Records a task whose turn was lost with its node FAILED (NODE_LOST) as the runner commits any change: saved,
     * then told to its subscribers and its webhooks.
     */
    const failLost = Effect.fnUntraced(function*(commit: Local["commit"], record: TaskRecord) {
      const timestamp = yield* Ids.now
      const messageId = yield* Ids.randomId
      const task = record.task
      const message: v1.Message = {
        messageId,
        role: "ROLE_AGENT",
        parts: [{ text: NODE_LOST }],
        taskId: task.id,
        ...(task.contextId !== undefined ? { contextId: task.contextId } : {})
      }
      const applied = setStatus(
        { ...task, history: [...(task.history ?? []), message] },
        { state: "TASK_STATE_FAILED", timestamp, message }
      )
      const saved = yield* commit({ owner: record.owner, tenant: record.tenant }, record.version, applied).pipe(
        orInternal
      )
      yield* Effect.logWarning(`Task ${task.id}: its turn was lost with its node; marked failed`)
      return saved.task
    })

    const run = Effect.fnUntraced(function*(payload: TurnPayload) {
      const local = yield* Deferred.await(ready)
      // A stopping node starts no turn: it leaves it to the task's next owner (see below).
      if (state.stopping) return yield* Effect.never
      const scope = { owner: payload.owner, tenant: payload.tenant }
      const given = payload.message.taskId
      const taskId = given !== undefined && given.length > 0 ? given : payload.newTaskId
      let options: StartOptions = {
        message: payload.message,
        owner: payload.owner,
        tenant: payload.tenant,
        call: CallContext.make(payload.call),
        metadata: payload.metadata,
        configuration: payload.configuration,
        pushConfig: payload.pushConfig,
        newTaskId: payload.newTaskId,
        rerunOnStorageLoss: local.restartable,
        // A new task's non-blocking send is acknowledged once its Turn is stored (see `report`).
        acknowledged: payload.newTaskId !== undefined && payload.configuration?.returnImmediately === true
      }
      if (taskId !== undefined) {
        const stored = yield* store.get(taskId, scope).pipe(
          orInternal,
          Effect.map(Option.getOrUndefined),
          // The storage is lost before the turn starts: it starts once the storage is back.
          Effect.catchIf(isStorageUnreachable, () => Effect.succeed(AGAIN))
        )
        if (stored === AGAIN) return AGAIN
        const holds = stored?.task.history?.some((m) => m.messageId === payload.message.messageId) === true
        // Saved at version 0 when its send was acknowledged (see QUEUED): never started, it starts now as a new
        // task, whose first save replaces that one.
        if (stored !== undefined && holds && stored.version !== QUEUED) {
          // This message is in its task already: its turn ran, or was cut short with the node running it (no other
          // turn of the task runs meanwhile: they come one at a time): the task is still in flight, or its last save
          // is the one that took the message (its `turn`), made before the agent reported anything.
          const lost = isTurnCut(stored, payload.message.messageId)
          if (lost && !local.restartable) {
            return { _tag: "Task", task: yield* failLost(local.commit, stored) } satisfies TurnOutcome
          }
          options = { ...options, message: { ...payload.message, taskId }, rerun: lost }
        }
      }
      let last: Processed | undefined
      let failure: Cause.Cause<A2AError> | undefined
      const ended = Deferred.makeUnsafe<void>()
      const caller: Caller = {
        offer: (processed) => {
          last = processed
        },
        fail: (cause) => {
          failure = cause
        },
        end: () => {
          state.turns.delete(ended)
          Deferred.doneUnsafe(ended, Exit.void)
        }
      }
      // Checked again once the task is read, and the turn counted in the same step, for a stop to wait for it.
      if (state.stopping) return yield* Effect.never
      state.turns.add(ended)
      // Uninterruptible until the turn ends: the engine interrupts the Turn when the task's shard moves to another
      // runner (one joined), and the turn, running on here, must not be handed over meanwhile (it would be found in
      // flight there, and failed or run twice): the shard moves once it ends. A stopping node ends its turns
      // itself (see `stop`), or, past its deadline, leaves them.
      const taken = yield* local.start(options, caller).pipe(
        // Not started (already in the task, or refused): nothing to wait for.
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) && exit.value === undefined ? Effect.void : Effect.sync(caller.end)
        ),
        Effect.tap((taken) =>
          taken === undefined ? Effect.raceFirst(Deferred.await(ended), Deferred.await(state.stopped)) : Effect.void
        ),
        Effect.uninterruptible,
        // Refused as this node's runner closes (it took nothing into the task): left to the task's next owner;
        // refused as the storage is lost (its message not taken): see AGAIN.
        Effect.catch((error) =>
          state.stopping ? Effect.never : isStorageUnreachable(error) ? Effect.succeed(AGAIN) : Effect.fail(error)
        )
      )
      if (taken === AGAIN) return AGAIN
      if (taken !== undefined) return { _tag: "Task", task: taken.task } satisfies TurnOutcome
      // Left by a stopping node: see below.
      if (!Deferred.isDoneUnsafe(ended)) return yield* Effect.never
      if (failure !== undefined) {
        // Refused as this node stops (its runner closed): left to the task's next owner, as below.
        if (state.stopping) return yield* Effect.never
        const error = Cause.findErrorOption(failure)
        // The storage lost mid-turn: a restartable agent's turn runs again (see AGAIN); any other's task is recorded
        // FAILED by its execution once the storage is back.
        if (local.restartable && Option.isSome(error) && isStorageUnreachable(error.value)) return AGAIN
        return yield* Option.isSome(error) ? Effect.fail(error.value) : Effect.die(Cause.squash(failure))
      }
      if (last === undefined) return yield* new InternalError({ message: "The task ended without a response" })
      if (Option.isSome(last.task)) {
        // Still in flight: this node is stopping and interrupted it (past the stop's deadline). The Turn stays
        // unanswered until the engine, stopping too, interrupts it (InterruptOnTermination) and leaves it to the
        // task's next owner, which runs it again or fails it (see above).
        if (inFlight(last.task.value)) return yield* Effect.never
        return { _tag: "Task", task: last.task.value } satisfies TurnOutcome
      }
      if ("message" in last.event) return { _tag: "Reply", message: last.event.message } satisfies TurnOutcome
      return yield* new InternalError({ message: "The task ended without a response" })
    })

    /**
     * Done once the storage answers again: any read tells, so the turn's task is read (found or not; a new task's
     * id may not be known yet), until the store's error is no longer "unreachable".
     */
    const storageBack = (payload: TurnPayload) =>
      store.get(payload.message.taskId ?? payload.newTaskId ?? "", { owner: payload.owner, tenant: payload.tenant })
        .pipe(
          Effect.retry({ schedule: Schedule.spaced("1 second"), while: (error) => error.unavailable === true }),
          Effect.ignore
        )

    /** A Turn's run, again (once the storage answers) for as long as it says so. */
    const turn = (payload: TurnPayload): Effect.Effect<TurnOutcome, A2AError> =>
      Effect.flatMap(run(payload), (outcome) =>
        outcome !== AGAIN ? Effect.succeed(outcome) : Effect.logWarning(
          `The storage was lost before or during the turn of message ${payload.message.messageId}; ` +
            "running it again once the storage is back"
        ).pipe(
          Effect.andThen(storageBack(payload)),
          Effect.andThen(Effect.suspend(() => turn(payload)))
        ))

    return Task.of({ Turn: ({ payload }) => slots.withPermit(turn(payload)) })
  })

// --- the sending side: any node ---

/**
 * The version of a new task saved SUBMITTED as its non-blocking send is acknowledged, before its turn starts (so
 * that clients see it): below every version a turn saves (a new task's first save is version 1 or more), which
 * tells a task whose turn waits from one whose turn was lost with its node.
 */
const QUEUED = 0

/** The engine could not take a Turn (its storage, or a runner going away): the caller may send it again. */
const engineFailed = (taskId: string) => (e: { readonly message: string }) =>
  Effect.fail(new InternalError({ message: `Task ${taskId}: the turn could not be queued (${e.message}); try again` }))

/**
 * Whether the events have brought the task to the status its turn ended with: the same status, not only the same
 * state (a continued task at INPUT_REQUIRED asks again, INPUT_REQUIRED: its snapshot is not the turn's end).
 */
const sameStatus = (told: v1.TaskStatus, final: v1.TaskStatus) =>
  told.state === final.state && told.timestamp === final.timestamp &&
  told.message?.messageId === final.message?.messageId

/** Waits this long, at most, for the events of a turn that has answered to arrive through the EventBus. */
const EVENTS_GRACE = Duration.seconds(5)

/**
 * The TurnDispatch of this node over the engine (Sharding, MessageStorage and the runner in context): sends each
 * SendMessage as a Turn, tells the caller its events and outcome; and, on a runner, runs the Turns it is given.
 */
const make = (options: Options) =>
  Effect.gen(function*() {
    const store = yield* TaskStore
    const bus = yield* EventBus
    const serverScope = yield* Effect.scope
    const ready = yield* Deferred.make<Local>()
    const state: RunnerState = { stopping: false, turns: new Set(), stopped: Deferred.makeUnsafe() }
    if (options.execute) {
      yield* Layer.buildWithScope(
        Task.toLayer(handler(ready, state, Semaphore.makeUnsafe(options.maxExecutions)), {
          maxIdleTime: Duration.millis(200)
        }),
        serverScope
      )
    }
    const clientFor = yield* Task.client

    /** Tells `caller` the turn's events as the EventBus brings them, then its outcome; ends it. */
    const report = Effect.fnUntraced(function*(
      events: Stream.Stream<{ readonly sequence: number; readonly event: v1.StreamResponse }, unknown>,
      acknowledge: Effect.Effect<void> | undefined,
      snapshot: TaskRecord | undefined,
      payload: TurnPayload,
      taskId: string,
      caller: Caller,
      options: StartOptions
    ) {
      // The task as the events leave it, so that each event goes with the task after it (a blocking send answers
      // the last one's).
      let task = snapshot?.task
      let version = snapshot?.version ?? 0
      const seen = yield* Deferred.make<void>()
      // The outcome, once the Turn has answered with its task.
      const outcome: { task?: v1.Task } = {}
      // A continued task takes the message into its history as its turn starts (as the runner's Turns do).
      let taken = snapshot === undefined
      // A non-blocking send is answered once its Turn is stored, and not sooner by the events of the task's turn
      // still running: its client, answered, may send the task's next message, which must be stored after this one.
      let stored = acknowledge === undefined
      const apply = (event: v1.StreamResponse, sequence: number): void => {
        if (!stored || sequence <= version) return
        version = sequence
        if (!taken && task !== undefined) {
          taken = true
          const contextId = task.contextId
          const message = contextId === undefined
            ? { ...payload.message, taskId }
            : { ...payload.message, taskId, contextId }
          task = { ...task, history: appended(task.history, message) }
        }
        const now = new Date().toISOString()
        const applied = "task" in event ? Result.succeed({ task: event.task }) : applyEvent(task, event, {
          taskId,
          contextId: task?.contextId ?? "",
          userMessage: payload.message,
          now
        })
        if (Result.isSuccess(applied)) task = applied.success.task
        caller.offer({ event, task: task === undefined ? Option.none() : Option.some(task) })
        if (outcome.task !== undefined && task !== undefined && sameStatus(task.status, outcome.task.status)) {
          Deferred.doneUnsafe(seen, Exit.void)
        }
      }
      const forward = (
        events: Stream.Stream<{ readonly sequence: number; readonly event: v1.StreamResponse }, unknown>
      ) => Stream.runForEach(events, ({ event, sequence }) => Effect.sync(() => apply(event, sequence)))
      // The EventBus ends its subscriptions when it loses the other nodes (the database went away), events being
      // missed meanwhile: subscribed again as soon as it can be, the caller catches up from the store (the task as
      // stored, a Task snapshot, when it is newer than the last event told), then hears the events after it.
      const caughtUp = Effect.scoped(Effect.gen(function*() {
        const again = yield* bus.subscribe(taskId)
        const stored = yield* store.get(taskId, { owner: payload.owner, tenant: payload.tenant })
        if (Option.isSome(stored)) apply({ task: stored.value.task }, stored.value.version)
        yield* forward(again)
      }))
      const forwarding = yield* forward(events).pipe(
        Effect.catch(() => Effect.retry(caughtUp, { schedule: Schedule.spaced("1 second") })),
        Effect.ignore,
        Effect.forkScoped
      )
      const client = clientFor(taskId)
      // A non-blocking send is answered once its Turn is stored (the engine then runs it after the task's turns
      // stored before it): a message answered before another was sent runs before it. The same Turn sent again
      // (its primary key) then waits for the first one's outcome. A blocking or streaming send sends it once.
      const answer =
        yield* (acknowledge === undefined ? client.Turn(payload) : client.Turn(payload, { discard: true }).pipe(
          Effect.andThen(Effect.sync(() => {
            stored = true
          })),
          Effect.andThen(acknowledge),
          Effect.andThen(client.Turn(payload))
        )).pipe(
          Effect.catchTags({
            MailboxFull: engineFailed(taskId),
            AlreadyProcessingMessage: engineFailed(taskId),
            PersistenceError: engineFailed(taskId),
            EntityNotAssignedToRunner: engineFailed(taskId)
          }),
          Effect.exit
        )
      if (Exit.isFailure(answer)) {
        yield* Fiber.interrupt(forwarding)
        if (task === undefined) yield* options.receipt?.unaccepted() ?? Effect.void
        caller.fail(answer.cause)
        return
      }
      const value = answer.value
      if (value._tag === "Reply") {
        yield* Fiber.interrupt(forwarding)
        yield* options.receipt?.replied(value.message) ?? Effect.void
        caller.offer({ event: { message: value.message }, task: Option.none() })
        return
      }
      const final = value.task
      outcome.task = final
      if (task !== undefined && sameStatus(task.status, final.status)) Deferred.doneUnsafe(seen, Exit.void)
      // The events reach this node on their own way: wait for the last, a bounded time; if it does not come, the
      // caller hears the outcome as the final Task (which holds what any missed event changed; spec: a stream may
      // close with a final Task snapshot).
      const arrived = yield* Deferred.await(seen).pipe(Effect.timeoutOption(EVENTS_GRACE))
      yield* Fiber.interrupt(forwarding)
      if (Option.isNone(arrived)) caller.offer({ event: { task: final }, task: Option.some(final) })
    })

    const route = (start: StartOptions, caller: Caller) =>
      Effect.gen(function*() {
        const given = start.message.taskId
        const scope = { owner: start.owner, tenant: start.tenant }
        let snapshot: TaskRecord | undefined
        let taskId: string
        if (given !== undefined && given.length > 0) {
          taskId = given
          // Not stored yet, the task may still be waiting for the turn that starts it: this message waits behind it,
          // and hears TaskNotFound there if no turn started it.
          const stored = Option.getOrUndefined(yield* store.get(given, scope).pipe(orInternal))
          if (stored !== undefined) {
            const task = stored.task
            if (task.history?.some((m) => m.messageId === start.message.messageId) === true) return stored
            if (isTerminal(task.status.state)) {
              return yield* new UnsupportedOperation({
                message: `Task ${given} is ${label(task.status.state)} and accepts no further messages`,
                metadata: { taskId: given }
              })
            }
            snapshot = stored
          }
        } else {
          taskId = start.newTaskId ?? (yield* Ids.taskId)
        }
        const fresh = given === undefined || given.length === 0
        const contextId = start.message.contextId !== undefined && start.message.contextId.length > 0
          ? start.message.contextId
          : fresh
          ? yield* Ids.randomId
          : undefined
        // A new task's context is chosen here, so that the task a non-blocking send answers is the one that runs.
        const message = contextId === undefined ? start.message : { ...start.message, contextId }
        const payload = payloadOf({ ...start, message }, fresh ? taskId : undefined)
        // Once the Turn is stored, what a non-blocking send answers while it waits for its turn: the task as it is
        // now, or a new task as its turn will start it.
        let acknowledged: v1.Task | undefined = snapshot?.task
        if (fresh && start.configuration?.returnImmediately === true) {
          const { taskId: _, ...first } = message
          acknowledged = {
            id: taskId,
            contextId: contextId!,
            status: { state: "TASK_STATE_SUBMITTED", timestamp: yield* Ids.now },
            history: [{ ...first, taskId }]
          }
        }
        const offer = () => {
          if (acknowledged !== undefined) {
            caller.offer({ event: { task: acknowledged }, task: Option.some(acknowledged) })
          }
        }
        // A new task acknowledged before its turn starts is saved as such (QUEUED), so that it can be read at once.
        // Its turn may have saved it first (a conflict): the task is there either way. Its Turn is stored: should
        // this save fail, the send is still acknowledged, and the task appears when its turn starts.
        const acknowledge = acknowledged === undefined || !fresh
          ? Effect.sync(offer)
          : store.save({ task: acknowledged, owner: start.owner, tenant: start.tenant, version: QUEUED }).pipe(
            Effect.catch((error) =>
              isConflict(error) ? Effect.void : Effect.logWarning(`Task ${taskId}: not saved as queued`, error)
            ),
            Effect.andThen(Effect.sync(offer))
          )
        // A blocking or streaming send hears the task as it is at once, as the runner tells a continued task's.
        const immediate = start.configuration?.returnImmediately === true
        if (!immediate) offer()
        // Subscribed before the Turn is sent, so none of its events is missed; the rest runs in the server's scope
        // (a caller that leaves does not stop its turn).
        const turnScope = yield* Scope.fork(serverScope)
        const events = yield* bus.subscribe(taskId).pipe(Scope.provide(turnScope))
        yield* report(events, immediate ? acknowledge : undefined, snapshot, payload, taskId, caller, start).pipe(
          Effect.ensuring(Effect.sync(() => caller.end())),
          Scope.provide(turnScope),
          Effect.ensuring(Scope.close(turnScope, Exit.void)),
          Effect.forkIn(serverScope)
        )
        return undefined
      })

    const service: TurnDispatchService = {
      route,
      serve: (local) =>
        Deferred.succeed(ready, local).pipe(
          Effect.andThen(Effect.addFinalizer(() => stop(state, local.deadline)))
        )
    }
    return service
  })

/** The engine's settings for this node (its runner's address aside: see ClusterSocket). */
export const shardingConfig = (options: Options): Partial<ShardingConfig.ShardingConfig["Service"]> => ({
  shardLockExpiration: options.failover,
  shardLockRefreshInterval: Duration.divideUnsafe(options.failover, 3),
  refreshAssignmentsInterval: Duration.seconds(1),
  runnerHealthCheckInterval: Duration.seconds(1),
  entityMessagePollInterval: Duration.seconds(1),
  entityReplyPollInterval: Duration.millis(100),
  entityTerminationTimeout: Duration.seconds(10),
  // A Turn for an entity of this runner is handed over in memory (it is stored all the same), not encoded and
  // decoded again to check that it would survive the trip to another runner: it does (the same Schemas).
  simulateRemoteSerialization: false
})

export { TurnDispatch }

/** The TurnDispatch over the engine; the engine's layer (Sharding and its storage) is given by the caller. */
export const layer = (options: Options) => Layer.effect(TurnDispatch, make(options))
