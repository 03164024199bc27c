import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as KeyedLanes from "../../src/server/internal/KeyedLanes.ts"

/** Lanes in `scope`. */
const jobLanes = (scope: Scope.Scope, activity = KeyedLanes.makeActivity(), capacity = 100) =>
  KeyedLanes.make({ capacity, activity }).pipe(Scope.provide(scope))

describe("KeyedLanes", () => {
  it.effect("runs the items of a key in order, one at a time, and different keys concurrently", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const activity = KeyedLanes.makeActivity()
      const lanes = yield* jobLanes(scope, activity)
      const seen: Array<string> = []
      const gate = yield* Deferred.make<void>()
      // a's first item waits for the gate; a's next ones wait behind it, b's run meanwhile.
      yield* lanes.offer("a", Effect.andThen(Deferred.await(gate), Effect.sync(() => seen.push("a1"))))
      for (const name of ["a2", "a3"]) yield* lanes.offer("a", Effect.sync(() => seen.push(name)))
      for (const name of ["b1", "b2"]) yield* lanes.offer("b", Effect.sync(() => seen.push(name)))
      yield* Effect.yieldNow
      yield* Effect.yieldNow
      assert.deepStrictEqual(seen, ["b1", "b2"])
      assert.strictEqual(yield* lanes.size, 1)
      yield* Deferred.succeed(gate, undefined)
      yield* activity.idle
      assert.deepStrictEqual(seen, ["b1", "b2", "a1", "a2", "a3"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("an idle lane is released: nothing is left of it, and the key opens a new lane later", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const activity = KeyedLanes.makeActivity()
      const lanes = yield* jobLanes(scope, activity)
      let runs = 0
      for (let i = 0; i < 3; i++) yield* lanes.offer(`task-${i}`, Effect.sync(() => runs++))
      assert.strictEqual(yield* lanes.size, 3)
      yield* activity.idle
      assert.strictEqual(yield* lanes.size, 0)
      yield* lanes.offer("task-0", Effect.sync(() => runs++))
      yield* activity.idle
      assert.strictEqual(runs, 4)
      assert.strictEqual(yield* lanes.size, 0)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("with an idle time to live, an empty lane is kept that long, then released", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const activity = KeyedLanes.makeActivity()
      const lanes = yield* KeyedLanes.make({ capacity: 10, activity, idleTimeToLive: "1 second" }).pipe(
        Scope.provide(scope)
      )
      yield* lanes.offer("k", Effect.void)
      yield* activity.idle
      assert.strictEqual(yield* lanes.size, 1)
      yield* TestClock.adjust("500 millis")
      // Used again: kept another second from now.
      yield* lanes.offer("k", Effect.void)
      yield* activity.idle
      yield* TestClock.adjust("900 millis")
      assert.strictEqual(yield* lanes.size, 1)
      yield* TestClock.adjust("200 millis")
      assert.strictEqual(yield* lanes.size, 0)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("refuses what does not fit in a full lane, and takes more once there is room", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const activity = KeyedLanes.makeActivity()
      const lanes = yield* jobLanes(scope, activity, 2)
      const gate = yield* Deferred.make<void>()
      const seen: Array<number> = []
      const job = (n: number) => Effect.sync(() => seen.push(n))
      assert.isTrue(yield* lanes.offer("k", Effect.andThen(Deferred.await(gate), job(1))))
      yield* Effect.yieldNow // the first is taken: running, it leaves room for two
      assert.isTrue(yield* lanes.offer("k", job(2)))
      assert.isTrue(yield* lanes.offer("k", job(3)))
      assert.isFalse(yield* lanes.offer("k", job(4)))
      // Another key has its own room.
      assert.isTrue(yield* lanes.offer("other", job(10)))
      yield* Deferred.succeed(gate, undefined)
      yield* activity.idle
      assert.isTrue(yield* lanes.offer("k", job(5)))
      yield* activity.idle
      assert.deepStrictEqual(seen.filter((n) => n < 10), [1, 2, 3, 5])
      assert.include(seen, 10)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("closing the scope interrupts what runs, drops what waits, and ignores later offers", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const lanes = yield* jobLanes(scope)
      const seen: Array<string> = []
      const started = yield* Deferred.make<void>()
      yield* lanes.offer(
        "k",
        Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
          Effect.onInterrupt(() => Effect.sync(() => seen.push("interrupted")))
        )
      )
      yield* lanes.offer("k", Effect.sync(() => seen.push("waiting")))
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* lanes.offer("k", Effect.sync(() => seen.push("later"))))
      yield* Effect.yieldNow
      assert.deepStrictEqual(seen, ["interrupted"])
    }))

  it.effect("a lane that releases itself ends its fiber, on its own", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const activity = KeyedLanes.makeActivity()
      const lanes = yield* jobLanes(scope, activity)
      let fiber: Fiber.Fiber<unknown, unknown> | undefined
      yield* lanes.offer("k", Effect.withFiber((f) => Effect.sync(() => (fiber = f))))
      yield* activity.idle
      yield* Effect.yieldNow
      assert.isDefined(fiber)
      const exit = yield* Fiber.await(fiber!)
      assert.isTrue(Exit.isSuccess(exit))
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("a kept lane's fiber ends once the lane is released", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const activity = KeyedLanes.makeActivity()
      const lanes = yield* KeyedLanes.make({ capacity: 10, activity, idleTimeToLive: "1 second" }).pipe(
        Scope.provide(scope)
      )
      let fiber: Fiber.Fiber<unknown, unknown> | undefined
      yield* lanes.offer("k", Effect.withFiber((f) => Effect.sync(() => (fiber = f))))
      yield* activity.idle
      yield* Effect.yieldNow
      assert.isUndefined(fiber!.pollUnsafe())
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* lanes.size, 0)
      yield* Fiber.await(fiber!)
      yield* Scope.close(scope, Exit.void)
    }))
})
