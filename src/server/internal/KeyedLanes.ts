/**
 * Keyed lanes, from Effect's RcMap and Queue: the jobs offered under one key run one at a time, in the order they
 * were offered, in that key's fiber; different keys run concurrently. The webhook notifier's lanes, one per task
 * and webhook: each delivery waits for the one before.
 *
 * A lane, its bounded Queue and the fiber reading it, is an entry of an RcMap, and each job queued in it holds a
 * reference to it (a scope of its own, closed once the job has run): when the last has run, the entry is released
 * (at once, or after `idleTimeToLive`), its Queue shut and its fiber ended, so an idle lane holds nothing. Closing the
 * lanes' scope interrupts them all and drops what they still held. `Activity` counts the jobs queued or running,
 * and may count other work too: its `idle` then waits for all of it.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Latch from "effect/Latch"
import * as Queue from "effect/Queue"
import * as RcMap from "effect/RcMap"
import * as Scope from "effect/Scope"

/** Counts the jobs queued or running; `idle` completes when there are none. */
export interface Activity {
  readonly add: () => void
  readonly done: (count: number) => void
  readonly idle: Effect.Effect<void>
}

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

/** A job in its lane, with its reference to the lane (a scope holding the RcMap entry), let go once it has run. */
interface Held {
  readonly job: Effect.Effect<void>
  readonly lease: Scope.Closeable
}

export interface KeyedLanes {
  /**
   * Queues a job; false when its lane is full (the job is dropped). Once the lanes are shut down nothing more
   * runs: the job is ignored (true, as nothing was dropped for want of room).
   */
  readonly offer: (key: string, job: Effect.Effect<void>) => Effect.Effect<boolean>
  /** How many lanes are open (holding a job queued or running, or kept for `idleTimeToLive`). */
  readonly size: Effect.Effect<number>
}

export interface Options {
  /** Jobs waiting per lane (besides the one running) before `offer` refuses more. */
  readonly capacity: number
  readonly activity: Activity
  /** How long a lane is kept once empty, for the next job of its key; default zero (released at once). */
  readonly idleTimeToLive?: Duration.Input | undefined
}

/** Lanes living in the scope in context. */
export const make = Effect.fnUntraced(function*(options: Options) {
  const { activity, capacity } = options
  // The lanes' fibers run with the services the lanes were made with, not with a copy of those of whichever caller
  // opened the lane (RcMap's lookup context): one Context for all, and nothing of a caller kept past its call
  // (~40 µs of CPU less per webhook delivery, bench/pushDeliveries.ts).
  const context = yield* Effect.context<never>()

  // The lease first: once idle, the lanes are released.
  const letGo = (held: Held) => Effect.andThen(Scope.close(held.lease, Exit.void), Effect.sync(() => activity.done(1)))

  const consume = (queue: Queue.Dequeue<Held>): Effect.Effect<never> =>
    Effect.forever(
      Effect.flatMap(Queue.take(queue), (held) => Effect.ensuring(held.job, letGo(held))),
      // No yield between jobs: an empty queue suspends the fiber anyway.
      { disableYield: true }
    )

  // Made once, not per lane (BENCHMARKS.md, "Generator functions made per call").
  const open = Effect.fnUntraced(function*(_key: string) {
    // Shut when the entry is released, which may be by the lane's own fiber (letting go of its last job): its next
    // take then ends it.
    const queue = yield* Effect.acquireRelease(Queue.bounded<Held>(capacity), Queue.shutdown)
    yield* Effect.forkScoped(Effect.updateContext(consume(queue), (_: Context.Context<never>) => context))
    return queue
  })
  const lanes = yield* RcMap.make({ lookup: open, idleTimeToLive: options.idleTimeToLive })

  const offer = (key: string, job: Effect.Effect<void>): Effect.Effect<boolean> =>
    Effect.suspend(() => {
      if (lanes.state._tag === "Closed") return Effect.succeed(true)
      const lease = Scope.makeUnsafe()
      return Effect.flatMap(Effect.provideService(RcMap.get(lanes, key), Scope.Scope, lease), (queue) => {
        if (Queue.offerUnsafe(queue, { job, lease })) {
          activity.add()
          return Effect.succeed(true)
        }
        return Effect.as(Scope.close(lease, Exit.void), false)
      })
    })

  const size = Effect.map(RcMap.keys(lanes), (keys) => Array.from(keys).length)

  return { offer, size } satisfies KeyedLanes
})
