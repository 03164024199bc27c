/**
 * Keyed lanes, from Effect's RcMap and Queue: the items offered under one key are run by that key's fiber, in the
 * order they were offered, as its `take` takes them (one at a time, or all those waiting); different keys run
 * concurrently. The webhook notifier's lanes, one per task and webhook: each delivery waits for the one before.
 *
 * A lane, its bounded Queue and the fiber reading it, is an entry of an RcMap, and each item queued in it holds a
 * reference to it (a scope of its own, closed once the item has run): when the last has run, the entry is released
 * (at once, or after `idleTimeToLive`), its Queue shut and its fiber ended, so an idle lane holds nothing. Closing the
 * lanes' scope interrupts them all and drops what they still held. One `Activity` may count the items of several
 * lane sets, whose `idle` then waits for all of them.
 *
 * @internal
 */
import * as Arr from "effect/Array"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Latch from "effect/Latch"
import * as Queue from "effect/Queue"
import * as RcMap from "effect/RcMap"
import * as Scope from "effect/Scope"

/** Counts the items queued or running; `idle` completes when there are none. */
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

/** An item in its lane, with its reference to the lane (a scope holding the RcMap entry), let go once it has run. */
export interface Held<A> {
  readonly item: A
  readonly lease: Scope.Closeable
}

export interface KeyedLanes<A> {
  /**
   * Queues an item; false when its lane is full (the item is dropped). Once the lanes are shut down nothing more
   * runs: the item is ignored (true, as nothing was dropped for want of room).
   */
  readonly offer: (key: string, item: A) => Effect.Effect<boolean>
  /** How many lanes are open (holding an item queued or running). */
  readonly size: Effect.Effect<number>
}

export interface Options<A> {
  /** Items waiting per lane (besides those running) before `offer` refuses more. */
  readonly capacity: number
  /** What a lane's fiber takes each time: `one` item, or all those waiting (`Queue.takeAll`). */
  readonly take: (queue: Queue.Dequeue<Held<A>>) => Effect.Effect<ReadonlyArray<Held<A>>>
  /** Runs what was taken; the lane takes again once it is done. */
  readonly run: (key: string, items: ReadonlyArray<A>) => Effect.Effect<void>
  readonly activity: Activity
  /** How long a lane is kept once empty, for the next item of its key; default zero (released at once). */
  readonly idleTimeToLive?: Duration.Input | undefined
}

/** Takes one item. */
export const one = <A>(queue: Queue.Dequeue<A>): Effect.Effect<ReadonlyArray<A>> =>
  Effect.map(Queue.take(queue), Arr.of)

/** Lanes living in the scope in context. */
export const make = Effect.fnUntraced(function*<A>(options: Options<A>) {
  const { activity, capacity, run, take } = options

  // The leases first: once idle, the lanes are released.
  const letGo = (taken: ReadonlyArray<Held<A>>) =>
    Effect.andThen(
      Effect.forEach(taken, (held) => Scope.close(held.lease, Exit.void), { discard: true }),
      Effect.sync(() => activity.done(taken.length))
    )

  const consume = (key: string, queue: Queue.Dequeue<Held<A>>): Effect.Effect<never> =>
    Effect.forever(
      Effect.flatMap(take(queue), (taken) => Effect.ensuring(run(key, taken.map((held) => held.item)), letGo(taken))),
      // No yield between turns: an empty queue suspends the fiber anyway.
      { disableYield: true }
    )

  // Made once, not per lane (BENCHMARKS.md, "Generator functions made per call").
  const open = Effect.fnUntraced(function*(key: string) {
    // Shut when the entry is released, which may be by the lane's own fiber (letting go of its last item): its next
    // take then ends it.
    const queue = yield* Effect.acquireRelease(Queue.bounded<Held<A>>(capacity), Queue.shutdown)
    yield* Effect.forkScoped(consume(key, queue))
    return queue
  })
  const lanes = yield* RcMap.make({ lookup: open, idleTimeToLive: options.idleTimeToLive })

  const offer = (key: string, item: A): Effect.Effect<boolean> =>
    Effect.suspend(() => {
      if (lanes.state._tag === "Closed") return Effect.succeed(true)
      const lease = Scope.makeUnsafe()
      return Effect.flatMap(Effect.provideService(RcMap.get(lanes, key), Scope.Scope, lease), (queue) => {
        if (Queue.offerUnsafe(queue, { item, lease })) {
          activity.add()
          return Effect.succeed(true)
        }
        return Effect.as(Scope.close(lease, Exit.void), false)
      })
    })

  const size = Effect.map(RcMap.keys(lanes), (keys) => Array.from(keys).length)

  return { offer, size } satisfies KeyedLanes<A>
})
