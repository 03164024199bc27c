/**
 * The sending side of the cluster engine, on any node: a SendMessage becomes a Turn to its task's entity, wherever
 * that entity lives, and its caller hears the turn's events and outcome here as if it ran here.
 *
 * Routing a message: a continued task is read first (a message already in it is answered with the task, a terminal
 * task refuses it); a new task's id and context are chosen here, so that the task a non-blocking send answers is
 * the one that runs. Its events come through the EventBus (LISTEN/NOTIFY between the nodes), subscribed to before
 * the Turn is sent so that none is missed, and caught up from the store when the bus lost its channel; its outcome
 * (a reply, the task, or the A2A error) comes from the Turn's answer. A non-blocking send is acknowledged once its
 * Turn is stored, never sooner, so that a message sent after that acknowledgement runs after it. A new task's
 * message is claimed (see MessageClaims) in the transaction that stores its Turn, so that a non-blocking send is
 * acknowledged after one commit.
 *
 * Used by ClusterTurns as the TurnDispatch's `route`, on every node of the engine.
 *
 * @since 0.2.0
 */
import type { Sharding } from "effect/cluster/Sharding"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as PrimaryKey from "effect/PrimaryKey"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Unavailable, UnsupportedOperation } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isTerminal, label } from "../../protocol/TaskStates.ts"
import { A2A11 } from "../../server/A2A11.ts"
import { EventBus } from "../../server/EventBus.ts"
import * as Ids from "../../server/internal/Ids.ts"
import { isConflict, isTurnCut, orInternal, type TaskRecord, TaskStore } from "../../server/TaskStore.ts"
import { appended, applyEvent, type Caller, type LocalStart, type StartOptions } from "../../server/TurnDispatch.ts"
import { StoredTurns, type WithTurn } from "./ClusterStorage.ts"
import { LocalOutcomes } from "./LocalOutcomes.ts"
import { QUEUED, requestOf, Task, type TurnOutcome, type TurnRequest } from "./TurnMessage.ts"

/**
 * The engine could not take a Turn (its storage lost, its mailbox full, a runner going away): UNAVAILABLE, as the
 * caller may send it again, not an internal error.
 */
const engineFailed = (taskId: string) => (e: { readonly _tag: string; readonly message: string }) =>
  Effect.fail(
    new Unavailable({
      message: `Task ${taskId}: the turn could not be queued (${e.message.length > 0 ? e.message : e._tag}); ` +
        "send the message again",
      retryAfterSeconds: 1
    })
  )

/**
 * Whether the events have brought the task to the status its turn ended with: the same status, not only the same
 * state (a continued task at INPUT_REQUIRED asks again, INPUT_REQUIRED: its snapshot is not the turn's end).
 */
const sameStatus = (told: v1.TaskStatus, final: v1.TaskStatus) =>
  told.state === final.state && told.timestamp === final.timestamp &&
  told.message?.messageId === final.message?.messageId

/**
 * A send reaching a server that has begun to stop (its scope closed): a turn forked there would never start, nor tell
 * its caller anything, so the send is refused, to be sent again (to another node, or once this one is back).
 */
const stopping = Effect.fail(
  new Unavailable({ message: "The server is stopping: send the message again", retryAfterSeconds: 1 })
)

/** Waits this long, at most, for the events of a turn that has answered to arrive through the EventBus. */
const EVENTS_GRACE = Duration.seconds(5)

/** How often the store is read for a turn's end once the EventBus was lost (see `report`). */
const STORE_WATCH = Duration.seconds(1)

/**
 * Whether a stored task shows the end of the turn of `messageId`: the message in its history, and the turn not cut
 * short (the task in a final state, its last save not the one that took the message in).
 */
const turnEnded = (record: TaskRecord, messageId: string) =>
  record.task.history?.some((m) => m.messageId === messageId) === true && !isTurnCut(record, messageId)

/**
 * This node's `route` over the engine (Sharding and its storage in context): sends each SendMessage as a Turn and
 * tells its caller the turn's events and outcome. The turns it reports run in the scope it is made in (the
 * server's): a caller that leaves does not stop its turn.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<
  LocalStart,
  never,
  TaskStore | EventBus | Scope.Scope | Sharding | StoredTurns
> = Effect.gen(
  function*() {
    const store = yield* TaskStore
    const bus = yield* EventBus
    // The A2A 1.1 draft: an acknowledged new task is created, generation 1, as its turn will create it.
    const created = (yield* A2A11).enabled ? { generation: 1 } : {}
    const serverScope = yield* Effect.scope
    // Whether the server has begun to stop (read anew each time: the scope closes while a send is on its way).
    const stopped = () => serverScope.state._tag === "Closed"
    const clientFor = yield* Task.client
    const storedTurns = yield* StoredTurns
    const localOutcomes = yield* Effect.serviceOption(LocalOutcomes)

    /**
     * Sends `payload`'s Turn to `taskId` and answers its outcome; `withTurn` is committed with the Turn (see
     * StoredTurns), and `stored` runs (and is waited for) once the Turn is stored, while the engine delivers it: a
     * Turn that fails before it is stored never runs it.
     */
    const acknowledgedOnceStored = <A, E, R>(
      outcome: Effect.Effect<A, E, R>,
      payload: TurnRequest,
      taskId: string,
      withTurn: WithTurn,
      stored: Effect.Effect<void>
    ) =>
      Effect.gen(function*() {
        const key = PrimaryKey.value(payload)
        const saved = storedTurns.expect(taskId, key, withTurn)
        const turn = yield* Effect.forkScoped(outcome)
        yield* Effect.raceFirst(Deferred.await(saved), Fiber.await(turn)).pipe(
          Effect.ensuring(Effect.sync(() => storedTurns.forget(taskId, key, saved)))
        )
        if (Deferred.isDoneUnsafe(saved)) yield* stored
        return yield* Fiber.join(turn)
      })

    /** Tells `caller` the turn's events as the EventBus brings them, then its outcome; ends it. */
    const report = Effect.fnUntraced(function*(
      events: Stream.Stream<{ readonly sequence: number; readonly event: v1.StreamResponse }, unknown>,
      acknowledge:
        | { readonly queued: Effect.Effect<void> | undefined; readonly offer: Effect.Effect<void> }
        | undefined,
      claim: Effect.Effect<boolean, unknown> | undefined,
      snapshot: TaskRecord | undefined,
      payload: TurnRequest,
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
      const messageId = payload.message.messageId
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
      // The turn's end as the store shows it, once the EventBus was lost with the database: the Turn's answer may
      // come long after the database is back (the engine's reply waits for its shard locks to be taken again), while
      // the stored task already tells it. The outcome is then that task, as the Turn would have answered.
      const shown = yield* Deferred.make<TurnOutcome>()
      const watchStore = Effect.gen(function*() {
        for (;;) {
          const stored = yield* Effect.option(store.get(taskId, { owner: payload.owner, tenant: payload.tenant }))
          if (Option.isSome(stored) && Option.isSome(stored.value) && turnEnded(stored.value.value, messageId)) {
            const record = stored.value.value
            apply({ task: record.task }, record.version)
            Deferred.doneUnsafe(shown, Exit.succeed({ _tag: "Task", task: record.task }))
            return
          }
          yield* Effect.sleep(STORE_WATCH)
        }
      })
      // The EventBus ends its subscriptions when it loses the other nodes (the database went away), events being
      // missed meanwhile: subscribed again as soon as it can be, the caller catches up from the store (the task as
      // stored, a Task snapshot, when it is newer than the last event told), then hears the events after it, while
      // the store is watched for the turn's end.
      const caughtUp = Effect.scoped(Effect.gen(function*() {
        const again = yield* bus.subscribe(taskId)
        const stored = yield* store.get(taskId, { owner: payload.owner, tenant: payload.tenant })
        if (Option.isSome(stored)) apply({ task: stored.value.task }, stored.value.version)
        yield* Effect.forkScoped(watchStore)
        yield* forward(again)
      }))
      const forwarding = yield* forward(events).pipe(
        Effect.catch(() => Effect.retry(caughtUp, { schedule: Schedule.spaced("1 second") })),
        Effect.ignore,
        Effect.forkScoped
      )
      const client = clientFor(taskId)
      // The Turn's answer, or the turn's end as the store shows it after an outage, or as this node ran it (told in
      // memory, see LocalOutcomes), whichever comes first.
      const answered = Effect.raceFirst(client.Turn(payload), Deferred.await(shown))
      const outcomeOf = Option.match(localOutcomes, {
        onNone: () => answered,
        onSome: (outcomes) =>
          Effect.suspend(() => {
            const key = PrimaryKey.value(payload)
            const ran = outcomes.expect(key)
            // The engine's answer is left to come in the turn's scope, not interrupted (and waited for) when the turn
            // is told first: the caller is answered before that.
            return Effect.forkScoped(answered).pipe(
              Effect.flatMap((engine) => Effect.raceFirst(Fiber.join(engine), Deferred.await(ran))),
              Effect.ensuring(Effect.sync(() => outcomes.forget(key, ran)))
            )
          })
      })
      // A non-blocking send is answered once its Turn is stored (the engine then runs it after the task's turns
      // stored before it): a message answered before another was sent runs before it. Every send sends its Turn
      // once, and hears its answer as the engine delivers it (in memory, or over the runner's socket).
      // A new task's message is claimed in its Turn's transaction (see MessageClaims), a blocking send's too.
      const sent = acknowledge !== undefined
        ? acknowledgedOnceStored(
          outcomeOf,
          payload,
          taskId,
          { claim, alongside: acknowledge.queued },
          Effect.andThen(
            Effect.sync(() => {
              stored = true
            }),
            acknowledge.offer
          )
        )
        : claim !== undefined
        ? acknowledgedOnceStored(outcomeOf, payload, taskId, { claim }, Effect.void)
        : outcomeOf
      const answer = yield* sent.pipe(
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
        if (stopped()) return yield* stopping
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
        const payload = requestOf({ ...start, message }, fresh ? taskId : undefined)
        // Once the Turn is stored, what a non-blocking send answers while it waits for its turn: the task as it is
        // now, or a new task as its turn will start it.
        let acknowledged: v1.Task | undefined = snapshot?.task
        if (fresh && start.configuration?.returnImmediately === true) {
          const { taskId: _, ...first } = message
          acknowledged = {
            id: taskId,
            contextId: contextId!,
            status: { state: "TASK_STATE_SUBMITTED", timestamp: yield* Ids.now },
            ...created,
            history: [{ ...first, taskId }]
          }
        }
        const offer = () => {
          if (acknowledged !== undefined) {
            caller.offer({ event: { task: acknowledged }, task: Option.some(acknowledged) })
          }
        }
        // A new task acknowledged before its turn starts is saved as such (QUEUED), so that it can be read at once:
        // in the transaction that stores its Turn (one commit before the acknowledgement, and its runner finds it).
        // A second send of the message may find it saved (a conflict): the task is there either way. Should this
        // save fail, the Turn is stored all the same: the send is still acknowledged, and the task appears when its
        // turn starts.
        const queued = acknowledged === undefined || !fresh
          ? undefined
          : store.save({ task: acknowledged, owner: start.owner, tenant: start.tenant, version: QUEUED }).pipe(
            Effect.catch((error) =>
              isConflict(error) ? Effect.void : Effect.logWarning(`Task ${taskId}: not saved as queued`, error)
            )
          )
        const acknowledge = { queued, offer: Effect.sync(offer) }
        // Checked again before anything is told: the server may have begun to stop while the task was read.
        if (stopped()) return yield* stopping
        // A blocking or streaming send hears the task as it is at once, as the runner tells a continued task's.
        const immediate = start.configuration?.returnImmediately === true
        if (!immediate) offer()
        // Subscribed before the Turn is sent, so none of its events is missed; the rest runs in the server's scope
        // (a caller that leaves does not stop its turn).
        const turnScope = yield* Scope.fork(serverScope)
        const events = yield* bus.subscribe(taskId).pipe(Scope.provide(turnScope))
        const claim = fresh ? start.receipt?.claimInTurn : undefined
        const reported = report(
          events,
          immediate ? acknowledge : undefined,
          claim,
          snapshot,
          payload,
          taskId,
          caller,
          start
        )
        yield* reported.pipe(
          Effect.ensuring(Effect.sync(() => caller.end())),
          Scope.provide(turnScope),
          Effect.ensuring(Scope.close(turnScope, Exit.void)),
          Effect.forkIn(serverScope)
        )
        return undefined
      })

    return route
  }
)
