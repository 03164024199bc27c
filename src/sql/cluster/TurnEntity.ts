/**
 * The runner's side of the cluster engine: the handler of the `effect-a2a/Task` entity, which runs the Turns the
 * engine gives this node through the node's own task runner (TurnDispatch's `Local`), one at a time per task and at
 * most `maxExecutions` at once, and answers each with its outcome.
 *
 * It is also where a turn lost with its node is told apart and dealt with: a Turn delivered again (its runner died
 * mid-turn, its shards moved here) whose message is already in its task either runs again from the start (a
 * restartable agent) or leaves the task FAILED with NODE_LOST, once the node that ran it, if another and alive
 * (its shards let go while it ran), has ended it or is gone (TurnHolder); a Turn that met a lost database runs again
 * once the database answers. A stopping runner starts no Turn, lets the running ones end until its ShutdownDeadline, and
 * leaves the rest to the task's next owner. Telling them apart takes a read of the task before the turn starts, but
 * for a new task's Turn that the engine's storage says no runner was given before (FirstDeliveries, on
 * PostgreSQL), whose send saved no task: nothing can be there yet.
 *
 * Used by ClusterTurns on a node that executes (`serve`, `worker`); a node that only sends (`serve --no-execute`)
 * has no handler.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as PrimaryKey from "effect/PrimaryKey"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import type { A2AError, Unavailable } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isFinal } from "../../protocol/TaskStates.ts"
import * as CallContext from "../../server/CallContext.ts"
import * as Outcome from "../../server/engine/Outcome.ts"
import * as Ids from "../../server/internal/Ids.ts"
import { isStorageUnreachable, isTurnCut, orInternal, type TaskRecord, TaskStore } from "../../server/TaskStore.ts"
import { type Caller, type Local, type Processed, setStatus, type StartOptions } from "../../server/TurnDispatch.ts"
import { FirstDeliveries } from "./FirstDeliveries.ts"
import { LocalOutcomes } from "./LocalOutcomes.ts"
import { TurnHolder } from "./TurnHolder.ts"
import { QUEUED, Task, type TurnOutcome, type TurnRequest } from "./TurnMessage.ts"

/**
 * The status message of a task whose turn was lost with its node and whose agent is not restartable.
 *
 * @since 0.1.0
 * @category constants
 */
export const NODE_LOST = "The server node running this task was lost, so its work was interrupted and it was " +
  "marked as failed. Send the request again to start a new task."

const inFlight = (task: v1.Task) => !isFinal(task.status.state)

/**
 * What a turn that ended having told nothing answers when no task of it is stored: its execution was interrupted
 * before its first save (the agent interrupted itself, a cancel, the runner's executions interrupted as its server
 * closed), so nothing of it ran that the caller could be told. Retryable: the message was not taken.
 *
 * @since 0.2.0
 * @category errors
 */
export const toldNothing: (taskId: string | undefined) => Unavailable = Outcome.toldNothing

/**
 * What a Turn's run answers when the storage was lost before its turn started, or during it with a restartable
 * agent (whose execution left the task in flight, see StartOptions.rerunOnStorageLoss): it runs again once the
 * storage is back, and finds its task as a turn lost with its node leaves it (run again from the start).
 */
const AGAIN = "again" as const

/**
 * What a Turn's run answers once it has waited for its turn, found cut, to end on the node that ran it (see
 * TurnHolder): its end is saved, the task is read again (READ_AGAIN); or that node is gone, and the turn is lost with
 * it (JUDGED_LOST: read again, and dealt with as lost without another wait).
 */
const READ_AGAIN = "read again" as const
const JUDGED_LOST = "judged lost" as const

/**
 * What the runner's Turns share: whether the node is stopping, and the turns it runs (each done when it ends).
 *
 * @since 0.2.0
 * @category models
 */
export interface RunnerState {
  stopping: boolean
  readonly turns: Set<Deferred.Deferred<void>>
  /** Done once a stop has waited for the turns it may: those still running are left to the engine. */
  readonly stopped: Deferred.Deferred<void>
  /**
   * The Turns being run here, by their primary key, each with its run's end: a Turn delivered again while it runs
   * here waits for that end rather than running anything (see `once`).
   */
  readonly delivered: Map<string, Deferred.Deferred<Exit.Exit<TurnOutcome, A2AError>>>
}

/**
 * A runner's state before its first Turn: not stopping, no turn running.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeState = (): RunnerState => ({
  stopping: false,
  turns: new Set(),
  stopped: Deferred.makeUnsafe(),
  delivered: new Map()
})

/**
 * A graceful stop (the runner's scope closing): no turn starts from now on (the engine hands those over when it
 * stops), and the turns running here may end, until `deadline`; the runner then interrupts what is left, whose
 * turns the task's next owner runs again or fails as lost.
 *
 * @since 0.2.0
 * @category combinators
 */
export const stop = (state: RunnerState, deadline: Deferred.Deferred<void>) =>
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
    // On PostgreSQL: whether a turn found cut still runs on another node (see TurnHolder).
    const holder = yield* Effect.serviceOption(TurnHolder)
    // A sender of this node waiting for a Turn's outcome hears it as the turn ends (see LocalOutcomes).
    const outcomes = yield* Effect.serviceOption(LocalOutcomes)
    // On PostgreSQL: whether a Turn delivered now is delivered for the first time ever (see FirstDeliveries).
    const firsts = yield* Effect.serviceOption(FirstDeliveries)

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

    /** The answer of a turn that ended having told nothing: its task as stored, if any; else `toldNothing`. */
    const endedUntold = (taskId: string | undefined, scope: { readonly owner: string; readonly tenant: string }) =>
      taskId === undefined ? Effect.fail(toldNothing(taskId)) : store.get(taskId, scope).pipe(
        orInternal,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(toldNothing(taskId)),
          onSome: (stored) => Effect.succeed({ _tag: "Task", task: stored.task } satisfies TurnOutcome)
        }))
      )

    // `judged`: its turn, found cut, was judged lost with the node that held it (see TurnHolder): not waited for again.
    // `first`: this is the Turn's first delivery ever, and its first run (see FirstDeliveries).
    const run = Effect.fnUntraced(function*(payload: TurnRequest, judged: boolean, first: boolean) {
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
      // A new task's Turn given to no runner before, whose send saved nothing (not acknowledged before its turn: no
      // queued task, which a cancel could have ended meanwhile), finds no task: none is read. Its id, chosen by its
      // sender, is told to nobody before its turn saves it.
      const unread = first && (given === undefined || given.length === 0) && payload.newTaskId !== undefined &&
        payload.configuration?.returnImmediately !== true
      // Its first save is then written as a new task's, as after a read that found nothing.
      if (taskId !== undefined && unread) store.absent?.(taskId)
      if (taskId !== undefined && !unread) {
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
          // Delivered here while another node, alive, may still run it (its shards let go as their locks could not
          // be refreshed in time): its end is waited for, then the task read again (see READ_AGAIN).
          if (lost && !judged && Option.isSome(holder)) {
            const verdict = yield* holder.value.await(taskId, payload.message.messageId).pipe(
              orInternal,
              Effect.catchIf(isStorageUnreachable, () => Effect.succeed(AGAIN))
            )
            if (verdict === AGAIN) return AGAIN
            if (verdict === "ended") return READ_AGAIN
            if (verdict === "lost") return JUDGED_LOST
          }
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
      // Its execution ended having told nothing (interrupted before its task's first save): the task as stored,
      // if there is one, else a retryable error; never a bare internal error.
      if (last === undefined) return yield* endedUntold(taskId, scope)
      if (Option.isSome(last.task)) {
        // Still in flight: this node is stopping and interrupted it (past the stop's deadline). The Turn stays
        // unanswered until the engine, stopping too, interrupts it (InterruptOnTermination) and leaves it to the
        // task's next owner, which runs it again or fails it (see above).
        if (inFlight(last.task.value)) return yield* Effect.never
        return { _tag: "Task", task: last.task.value } satisfies TurnOutcome
      }
      if ("message" in last.event) return { _tag: "Reply", message: last.event.message } satisfies TurnOutcome
      return yield* endedUntold(taskId, scope)
    })

    /**
     * Done once the storage answers again: any read tells, so the turn's task is read (found or not; a new task's
     * id may not be known yet), until the store's error is no longer "unreachable".
     */
    const storageBack = (payload: TurnRequest) =>
      store.get(payload.message.taskId ?? payload.newTaskId ?? "", { owner: payload.owner, tenant: payload.tenant })
        .pipe(
          Effect.retry({ schedule: Schedule.spaced("1 second"), while: (error) => error.unavailable === true }),
          Effect.ignore
        )

    /** A Turn's run, its task read again after a wait for its turn's end on another node (see READ_AGAIN). */
    const settled = (
      payload: TurnRequest,
      first: boolean,
      judged = false
    ): Effect.Effect<TurnOutcome | typeof AGAIN, A2AError> =>
      Effect.flatMap(
        run(payload, judged, first),
        (outcome) =>
          outcome === READ_AGAIN || outcome === JUDGED_LOST ?
            settled(payload, false, outcome === JUDGED_LOST) :
            Effect.succeed(outcome)
      )

    /**
     * A Turn's run, again (once the storage answers) for as long as it says so: a run again is not a first one (the
     * one before may have taken the message into its task).
     */
    const turn = (payload: TurnRequest, first: boolean): Effect.Effect<TurnOutcome, A2AError> =>
      Effect.flatMap(settled(payload, first), (outcome) =>
        outcome !== AGAIN ? Effect.succeed(outcome) : Effect.logWarning(
          `The storage was lost before or during the turn of message ${payload.message.messageId}; ` +
            "running it again once the storage is back"
        ).pipe(
          Effect.andThen(storageBack(payload)),
          Effect.andThen(Effect.suspend(() => turn(payload, false)))
        ))

    /**
     * A Turn's run, once per runner at a time. The engine may deliver a Turn again while its first delivery still
     * runs here: when the runner's shard locks could not be refreshed in time (a loaded machine or database), it
     * takes them as lost, lets go of every shard at once without waiting for the entities on them, takes them back,
     * and hands the Turns still unanswered to new entities. Run again, such a Turn found its task as its first
     * delivery was leaving it: before its first save it started the task a second time (two agents, one of them
     * ending having told nothing), after it it took the turn as lost with its node (FAILED) or answered the task in
     * flight. It now waits for the first delivery's end and answers the same; should that one have been interrupted
     * (left to the shard's next owner), it runs the turn itself.
     */
    const once = (payload: TurnRequest, requestId: string): Effect.Effect<TurnOutcome, A2AError> =>
      Effect.suspend(() => {
        const key = PrimaryKey.value(payload)
        const running = state.delivered.get(key)
        if (running !== undefined) {
          return Effect.logInfo(
            `The turn of message ${payload.message.messageId} is delivered again as it runs here; ` +
              "answering its run's outcome"
          ).pipe(
            Effect.andThen(Deferred.await(running)),
            Effect.flatMap((exit) =>
              Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? once(payload, requestId) : exit
            )
          )
        }
        const ended = Deferred.makeUnsafe<Exit.Exit<TurnOutcome, A2AError>>()
        state.delivered.set(key, ended)
        // Asked as the delivery arrives, once: a later delivery of the same request (a defect's restart of the
        // entity, one after this one was interrupted) is not a first one.
        const first = Option.isSome(firsts) && firsts.value.take(requestId)
        return slots.withPermit(turn(payload, first)).pipe(
          // Answered with an error, its message was not taken into its task: said, as a non-blocking send's client,
          // acknowledged once the Turn was stored, is told nothing of it.
          Effect.tapError((error) =>
            Effect.logInfo(
              `The turn of message ${payload.message.messageId} (task ${
                payload.message.taskId ?? payload.newTaskId ?? "new"
              }) was refused: ${error._tag}: ${error.message}`
            )
          ),
          Effect.onExit((exit) =>
            Effect.sync(() => {
              if (state.delivered.get(key) === ended) state.delivered.delete(key)
              Deferred.doneUnsafe(ended, Exit.succeed(exit))
              if (Exit.isSuccess(exit) && Option.isSome(outcomes)) {
                outcomes.value.tell(key, exit.value)
              }
            })
          )
        )
      })

    return Task.of({
      Turn: (request) =>
        once(request.payload, String(request.requestId))
    })
  })

/**
 * The entity's layer on a runner: Turns run through the local runner given to `ready` (TurnDispatch's `serve`), at
 * most `maxExecutions` at once; an entity idle for 200 ms is let go.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (ready: Deferred.Deferred<Local>, state: RunnerState, maxExecutions: number) =>
  Task.toLayer(handler(ready, state, Semaphore.makeUnsafe(maxExecutions)), { maxIdleTime: Duration.millis(200) })
