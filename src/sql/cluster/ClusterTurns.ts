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
 *   reaps it idle, which it checks every 5 s at best: every task being a new entity, a runner would start at most
 *   `maxExecutions` new tasks per 5 s;
 * - a runner killed mid-turn: its shards go to the others once its shard locks expire (`failover`), and its
 *   unanswered turns are delivered again there. A turn that finds its message in its task, the task still in
 *   flight or its last save the one that took the message (TaskRecord's `turn`: a task waiting for input keeps its
 *   status until its agent reports), was cut short with its runner: a restartable agent (AgentExecutor's
 *   `restartable`) runs it again from the start, any other leaves the task FAILED with NODE_LOST (committed as the
 *   runner commits any change: its subscribers and webhooks are told); unless the node that ran it lives on (its
 *   shards let go as their locks could not be refreshed in time), whose turn's end is waited for and answered
 *   (TurnHolder). Nothing queued is lost; a stopping runner
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
 *
 * The engine is in four parts, one module each: TurnMessage (the persisted Turn and the Task entity), TurnEntity
 * (the runner's side: the entity's handler), TurnRouting (the sending side) and this module, which puts them
 * together as this node's TurnDispatch; ClusterSocket gives them the engine itself (Sharding, its transport and its
 * storage), and ClusterEngine builds the lot from the SQL stores' options.
 *
 * @since 0.1.0
 */
import type * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Local, type Service, TurnDispatch } from "../../server/TurnDispatch.ts"
import * as LocalOutcomes from "./LocalOutcomes.ts"
import * as TurnEntity from "./TurnEntity.ts"
import * as TurnRouting from "./TurnRouting.ts"

/**
 * This node's part in the engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Whether this node runs turns (a runner); false: it only sends them (`serve --no-execute`). */
  readonly execute: boolean
  /** Turns this node runs at once, at most; others wait for a slot (stored until answered). */
  readonly maxExecutions: number
  /** How long a lost runner keeps its shards (its locks' expiry): the bound on taking its turns over. */
  readonly failover: Duration.Duration
}

/**
 * The TurnDispatch of this node over the engine (Sharding, MessageStorage and the runner in context): sends each
 * SendMessage as a Turn, tells the caller its events and outcome; and, on a runner, runs the Turns it is given.
 */
const make = (options: Options) =>
  Effect.gen(function*() {
    const serverScope = yield* Effect.scope
    const ready = yield* Deferred.make<Local>()
    const state = TurnEntity.makeState()
    // The outcome of a Turn both sent and run here, told in memory as the turn ends (see LocalOutcomes).
    const outcomes = LocalOutcomes.make()
    if (options.execute) {
      yield* Layer.buildWithScope(
        TurnEntity.layer(ready, state, options.maxExecutions).pipe(
          Layer.provide(Layer.succeed(LocalOutcomes.LocalOutcomes, outcomes))
        ),
        serverScope
      )
    }
    const route = yield* Effect.provideService(TurnRouting.make, LocalOutcomes.LocalOutcomes, outcomes)
    const service: Service = {
      route,
      serve: (local) =>
        Deferred.succeed(ready, local).pipe(
          Effect.andThen(Effect.addFinalizer(() => TurnEntity.stop(state, local.deadline)))
        )
    }
    return service
  })

/**
 * How often the engine reads its stored messages while the runners change (ClusterStorage's `layerReads`): every
 * fifth of the failover, between 1 and 2 seconds, for a failover after the last change heard (the time a shard
 * takes to change hands). Otherwise only the engine's own poll reads them, a safety net: every failover, at most
 * 10 seconds.
 *
 * @since 0.2.0
 * @category constructors
 */
export const storageReads = (
  options: Options
): { readonly every: Duration.Duration; readonly during: Duration.Duration } => ({
  every: Duration.max(
    Duration.seconds(1),
    Duration.min(Duration.divideUnsafe(options.failover, 5), Duration.seconds(2))
  ),
  during: options.failover
})

/** The engine's own storage poll, a safety net (see `storageReads`). */
const pollInterval = (options: Options) =>
  Duration.max(storageReads(options).every, Duration.min(options.failover, Duration.seconds(10)))

/**
 * How old this node's list of runners may get, no change told (ClusterStorage): a runner lost without anyone
 * telling (its heartbeat expired) leaves it within this much after its shard locks expire.
 *
 * @since 0.2.0
 * @category constructors
 */
export const runnersMaxAge = (options: Options): Duration.Duration =>
  Duration.max(Duration.seconds(1), Duration.min(Duration.divideUnsafe(options.failover, 2), Duration.seconds(5)))

/**
 * The engine's settings for this node (its runner's address aside: see ClusterSocket).
 *
 * @since 0.1.0
 * @category constructors
 */
export const shardingConfig = (options: Options): Partial<ShardingConfig.ShardingConfig["Service"]> => ({
  shardLockExpiration: options.failover,
  shardLockRefreshInterval: Duration.divideUnsafe(options.failover, 3),
  // The engine asks for the runners this often, but reads them again only when told of a change, or when the last
  // read differed from the one before (ClusterStorage): a new or lost runner is seen within a second of being told.
  refreshAssignmentsInterval: Duration.seconds(1),
  // The pings of the other runners' sockets: not the database.
  runnerHealthCheckInterval: Duration.seconds(1),
  // A stored Turn reaches its runner at once (in memory, or over the runner's socket); what stays unread (a runner
  // that could not be told, an entity that had no slot) is read when its shard is taken, by the reads made while
  // the runners change or once the database is back (see `storageReads`), or by this poll.
  entityMessagePollInterval: pollInterval(options),
  // Only a retried send (the same message sent again while its Turn waits) reads its reply back from storage.
  entityReplyPollInterval: Duration.millis(100),
  entityTerminationTimeout: Duration.seconds(10),
  // A Turn for an entity of this runner is handed over in memory (it is stored all the same), not encoded and
  // decoded again to check that it would survive the trip to another runner: it does (the same Schemas).
  simulateRemoteSerialization: false
})

/**
 * The TurnDispatch over the engine; the engine's layer (Sharding and its storage) is given by the caller.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) => Layer.effect(TurnDispatch, make(options))
