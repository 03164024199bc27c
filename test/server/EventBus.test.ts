/** The in-process EventBus: per-task fan-out in publish order, live from subscription, nothing retained. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Stream } from "effect"
import { Unavailable } from "../../src/protocol/A2AError.ts"
import * as EventBus from "../../src/server/EventBus.ts"

const event = (taskId: string, sequence: number): EventBus.TaskEvent => ({
  taskId,
  sequence,
  event: { statusUpdate: { taskId, contextId: "c", status: { state: "TASK_STATE_WORKING" } } }
})

describe("EventBus (in process)", () => {
  it.effect("every subscriber of a task gets its events in order; other tasks' events and earlier ones are not seen", () =>
    Effect.gen(function*() {
      const bus = yield* EventBus.makeInProcess
      yield* bus.publish(event("a", 0)) // nobody listens yet: dropped
      const [s1, s2, other] = yield* Effect.all([bus.subscribe("a"), bus.subscribe("a"), bus.subscribe("b")])
      const take = (s: Stream.Stream<EventBus.TaskEvent, Unavailable>, n: number) =>
        s.pipe(
          Stream.take(n),
          Stream.runCollect,
          Effect.map((c) => Array.from(c, (e) => `${e.taskId}${e.sequence}`)),
          Effect.forkChild
        )
      const f1 = yield* take(s1, 3)
      const f2 = yield* take(s2, 3)
      const f3 = yield* take(other, 1)
      for (let i = 1; i <= 3; i++) {
        yield* bus.publish(event("a", i))
        yield* bus.publish(event("b", i * 10))
      }
      assert.deepStrictEqual(yield* Fiber.join(f1), ["a1", "a2", "a3"])
      assert.deepStrictEqual(yield* Fiber.join(f2), ["a1", "a2", "a3"])
      assert.deepStrictEqual(yield* Fiber.join(f3), ["b10"])
    }).pipe(Effect.scoped))

  it.effect("a closed subscription stops receiving and leaves the others untouched", () =>
    Effect.gen(function*() {
      const bus = yield* EventBus.makeInProcess
      const stays = yield* bus.subscribe("t")
      yield* Effect.scoped(Effect.asVoid(bus.subscribe("t")))
      yield* bus.publish(event("t", 1))
      const got = yield* stays.pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(Array.from(got, (e) => e.sequence), [1])
    }).pipe(Effect.scoped))

  it.effect("subscribers coming and going on one task: one, two, back to one, none, one again", () =>
    Effect.gen(function*() {
      const bus = yield* EventBus.makeInProcess
      const received = (s: Stream.Stream<EventBus.TaskEvent, Unavailable>, n: number) =>
        Effect.forkChild(Effect.map(Stream.runCollect(Stream.take(s, n)), (c) => Array.from(c, (e) => e.sequence)))
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const alone = yield* received(yield* bus.subscribe("t"), 3)
        yield* bus.publish(event("t", 1))
        const second = yield* Effect.scoped(Effect.gen(function*() {
          const joined = yield* received(yield* bus.subscribe("t"), 1)
          yield* bus.publish(event("t", 2))
          return yield* Fiber.join(joined)
        }))
        assert.deepStrictEqual(second, [2])
        yield* bus.publish(event("t", 3)) // the second has left; the first still hears it
        return yield* Fiber.join(alone)
      }))
      assert.deepStrictEqual(first, [1, 2, 3])
      yield* bus.publish(event("t", 4)) // nobody listens: dropped
      const later = yield* received(yield* bus.subscribe("t"), 1)
      yield* bus.publish(event("t", 5))
      assert.deepStrictEqual(yield* Fiber.join(later), [5])
    }).pipe(Effect.scoped))

  it.effect("failAll ends every live subscription with the error, read or not yet read; later ones are unaffected", () =>
    Effect.gen(function*() {
      const bus = yield* EventBus.makeInProcess
      const reading = yield* bus.subscribe("a")
      const notYetRead = yield* bus.subscribe("b")
      const read = yield* Effect.forkChild(Stream.runCollect(reading))
      yield* bus.publish(event("b", 1)) // pending for a reader that never gets it: the failure comes instead
      yield* Effect.yieldNow
      const lost = new Unavailable({ message: "lost the other nodes" })
      yield* bus.failAll(lost)
      for (const exit of [yield* Fiber.await(read), yield* Effect.exit(Stream.runCollect(notYetRead))]) {
        assert.deepStrictEqual(exit, Exit.fail(lost))
      }
      const later = yield* bus.subscribe("a")
      yield* bus.publish(event("a", 2))
      const got = yield* later.pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(Array.from(got, (e) => e.sequence), [2])
    }).pipe(Effect.scoped))
})
