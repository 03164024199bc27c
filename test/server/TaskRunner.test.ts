/**
 * TaskRunner races that need a store slower than memory: a CancelTask that has read a task just before its
 * execution completes must not record CANCELED over the outcome (the execution lets go of its task under the
 * task's lock, decided when it ends).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import { Controls, ctxFor, send, serverLayer, taskOf } from "./support.ts"

/** A memory TaskStore whose next read, once armed, answers only when released (with what it read before). */
class GatedReads extends Context.Service<GatedReads, {
  readonly arm: Effect.Effect<{ readonly reading: Effect.Effect<void>; readonly release: Effect.Effect<void> }>
  readonly direct: TaskStore["Service"]
}>()("test/GatedReads") {}

const gatedStore = Layer.unwrap(Effect.gen(function*() {
  const direct = yield* MemoryTaskStore.make
  let armed: { readonly reading: Deferred.Deferred<void>; readonly release: Deferred.Deferred<void> } | undefined
  const store = TaskStore.of({
    ...direct,
    get: (taskId, scope) =>
      Effect.suspend(() => {
        const gate = armed
        armed = undefined
        // Read now, answer later: what the reader gets may be out of date by then, as with any remote store.
        return gate === undefined ? direct.get(taskId, scope) : direct.get(taskId, scope).pipe(
          Effect.tap(() => Deferred.succeed(gate.reading, undefined)),
          Effect.tap(() => Deferred.await(gate.release))
        )
      })
  })
  const gated = GatedReads.of({
    direct,
    arm: Effect.gen(function*() {
      const gate = { reading: yield* Deferred.make<void>(), release: yield* Deferred.make<void>() }
      armed = gate
      return { reading: Deferred.await(gate.reading), release: Deferred.succeed(gate.release, undefined) }
    })
  })
  return Layer.mergeAll(Layer.succeed(TaskStore, store), Layer.succeed(GatedReads, gated))
}))

const layer = serverLayer().pipe(Layer.provideMerge(Layer.mergeAll(gatedStore, MemoryPushConfigStore.layer)))

describe("TaskRunner", () => {
  it.effect("a cancel that read the task before its execution completed leaves it COMPLETED (TaskNotCancelable)", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const controls = yield* Controls
      const gated = yield* GatedReads
      const ctx = ctxFor()
      const task = yield* taskOf(
        yield* handler.sendMessage(send("gate g", { configuration: { returnImmediately: true } }), ctx)
      )
      const gate = yield* gated.arm
      const cancel = yield* Effect.forkChild(Effect.exit(handler.cancelTask({ id: task.id }, ctx)))
      yield* gate.reading // the cancel holds the task's lock and has read the task (still working)
      yield* controls.open("g")
      // The execution completes and stores it; it may not let go of the task while the cancel holds the lock.
      for (;;) {
        const stored = yield* gated.direct.get(task.id, { owner: ctx.principal.id, tenant: "" })
        if (Option.isSome(stored) && stored.value.task.status.state === "TASK_STATE_COMPLETED") break
        yield* Effect.yieldNow
      }
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow
      yield* gate.release
      const outcome = yield* Fiber.join(cancel)
      assert.isTrue(Exit.isFailure(outcome))
      if (Exit.isFailure(outcome)) {
        assert.strictEqual(Option.getOrUndefined(Exit.findErrorOption(outcome))?._tag, "TaskNotCancelable")
      }
      const final = yield* handler.getTask({ id: task.id }, ctx)
      assert.strictEqual(final.status.state, "TASK_STATE_COMPLETED")
    }).pipe(Effect.provide(layer)))
})
