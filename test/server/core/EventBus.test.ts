/** The in-process EventBus: per-task fan-out in publish order, live from subscription, nothing retained. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import * as EventBus from "../../../src/server/EventBus.ts"

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
      const take = (s: Stream.Stream<EventBus.TaskEvent>, n: number) =>
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
})
