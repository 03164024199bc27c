/**
 * Keyed lanes, from Effect's Queue and FiberMap: the jobs offered under one key run one at a time, in the order they
 * were offered, in that key's fiber; different keys run concurrently. The webhook notifier's lanes, one per task
 * and webhook: each delivery waits for the one before.
 *
 * A lane is a bounded Queue and the fiber reading it, run in a FiberMap under its key. Once its Queue is empty (at
 * once, or after `idleTimeToLive` without a job), the lane is dropped and its fiber ends, so an idle lane holds
 * nothing. A fork shares the Context it is given: no lookup fiber, copy of services or scope per lane or job, as an
 * RcMap entry had. Closing the lanes' scope interrupts them all and drops what they still held. `Activity` counts
 * the jobs queued or running, and may count other work too: its `idle` then waits for all of it.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Latch from "effect/Latch"
import * as Queue from "effect/Queue"

/**
 * Counts the jobs queued or running; `idle` completes when there are none.
 *
 * @since 0.1.0
 * @category models
 */
export interface Activity {
  readonly add: () => void
  readonly done: (count: number) => void
  readonly idle: Effect.Effect<void>
}

/**
 * A new Activity, with no job running.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeActivity = (): Activity => {
  let pending = 0
  const latch = Latch.makeUnsafe(true)
  return {
    add: () => {
      if (pending++ === 0) latch.closeUnsafe()
    },
    done: (count) => {
      pending -= count
      if (pending === 0) latch.openUnsafe()
    },
    idle: latch.await
  }
}

/**
 * Lanes of jobs by key: the jobs of one key run one after the other, those of different keys at once.
 *
 * @since 0.1.0
 * @category models
 */
export interface KeyedLanes {
  /**
   * Queues a job; false when its lane is full (the job is dropped). Once the lanes are shut down nothing more
   * runs: the job is ignored (true, as nothing was dropped for want of room).
   */
  readonly offer: (key: string, job: Effect.Effect<void>) => Effect.Effect<boolean>
  /** How many lanes are open (holding a job queued or running, or kept for `idleTimeToLive`). */
  readonly size: Effect.Effect<number>
}

/**
 * How many lanes run at once, and how many jobs a lane may hold.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Jobs waiting per lane (besides the one running) before `offer` refuses more. */
  readonly capacity: number
  readonly activity: Activity
  /**
   * How long a lane is kept once empty, for the next job of its key (dropped between once and one and a half times
   * that after); default zero (released at once).
   */
  readonly idleTimeToLive?: Duration.Input | undefined
}

/** A lane: its Queue, and since when it has been empty (undefined while it holds or runs a job). */
interface Lane {
  readonly queue: Queue.Queue<Effect.Effect<void>>
  idleSince: number | undefined
}

/**
 * Lanes living in the scope in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const { activity, capacity } = options
  const idleTimeToLive = Duration.toMillis(Duration.fromInputUnsafe(options.idleTimeToLive ?? Duration.zero))
  const keep = idleTimeToLive > 0
  // The lanes' fibers run with the services the lanes were made with, not with those of whichever caller opened the
  // lane: nothing of a caller is kept past its call.
  const context = yield* Effect.context<never>()
  const clock = yield* Effect.clockWith(Effect.succeed)
  const scope = yield* Effect.scope
  // Each open lane's fiber, interrupted when the lanes' scope closes.
  const fibers = yield* FiberMap.make<string>()
  const lanes = new Map<string, Lane>()
  yield* Effect.addFinalizer(() => Effect.sync(() => lanes.clear()))

  const inLanesContext = (effect: Effect.Effect<void>) =>
    Effect.updateContext(effect, (_: Context.Context<never>) => context)

  // A lane's Queue is shut when it is dropped: the take waiting in it fails and the lane's fiber ends.
  const drop = (key: string, lane: Lane) => {
    lanes.delete(key)
    Queue.shutdownUnsafe(lane.queue)
  }

  // A lane's fiber: runs its jobs one at a time. Once its Queue is empty, the lane is dropped at once, or kept waiting
  // for its next job until the sweeper drops it.
  const consume = (key: string, lane: Lane): Effect.Effect<void> => {
    // Dropped before the job counts as done, so that a lane released at once is gone when `idle` completes.
    const finished = Effect.sync(() => {
      if (Queue.sizeUnsafe(lane.queue) === 0) {
        if (keep) lane.idleSince = clock.currentTimeMillisUnsafe()
        else drop(key, lane)
      }
      activity.done(1)
    })
    const run = (job: Effect.Effect<void>) => Effect.andThen(Effect.ensuring(job, finished), next)
    const waitNext = Effect.flatMap(
      Effect.exit(Queue.take(lane.queue)),
      (job) => Exit.isSuccess(job) ? run(job.value) : Effect.void
    )
    // Jobs are offered synchronously: what is not in the Queue now has not been offered yet.
    const next: Effect.Effect<void> = Effect.suspend(() => {
      const taken = Queue.takeUnsafe(lane.queue)
      if (taken !== undefined) return Exit.isSuccess(taken) ? run(taken.value) : Effect.void
      return keep ? waitNext : Effect.void
    })
    return inLanesContext(next)
  }

  // While lanes are kept: every half `idleTimeToLive`, drops those empty that long (so one is kept 1 to 1.5 times it).
  // One timer for all lanes, not one per lane and wait.
  let sweeping = false
  const sweep: Effect.Effect<void> = Effect.andThen(
    Effect.sleep(idleTimeToLive / 2),
    Effect.suspend(() => {
      const now = clock.currentTimeMillisUnsafe()
      for (const [key, lane] of lanes) {
        if (lane.idleSince !== undefined && now - lane.idleSince >= idleTimeToLive) drop(key, lane)
      }
      if (lanes.size > 0) return sweep
      sweeping = false
      return Effect.void
    })
  )

  const queued = (lane: Lane, job: Effect.Effect<void>): boolean => {
    if (!Queue.offerUnsafe(lane.queue, job)) return false
    lane.idleSince = undefined
    activity.add()
    return true
  }

  const open = (key: string, queue: Queue.Queue<Effect.Effect<void>>, job: Effect.Effect<void>) => {
    const lane: Lane = { queue, idleSince: undefined }
    lanes.set(key, lane)
    queued(lane, job)
    const started = FiberMap.run(fibers, key, consume(key, lane), { startImmediately: false })
    if (!keep || sweeping) return Effect.as(started, true)
    sweeping = true
    return Effect.andThen(started, Effect.as(Effect.forkIn(inLanesContext(sweep), scope), true))
  }

  const offer = (key: string, job: Effect.Effect<void>): Effect.Effect<boolean> =>
    Effect.suspend(() => {
      if (fibers.state._tag === "Closed") return Effect.succeed(true)
      const lane = lanes.get(key)
      if (lane !== undefined) return Effect.succeed(queued(lane, job))
      return Effect.flatMap(Queue.bounded<Effect.Effect<void>>(capacity), (queue) => {
        // Made meanwhile, or shut down.
        if (fibers.state._tag === "Closed") return Effect.succeed(true)
        const opened = lanes.get(key)
        return opened !== undefined ? Effect.succeed(queued(opened, job)) : open(key, queue, job)
      })
    })

  const size = Effect.sync(() => lanes.size)

  return { offer, size } satisfies KeyedLanes
})
