/**
 * What closing the server's scope does to the executions still running: each is interrupted (its agent's
 * finalizers run) before the scope's own resources close, and its task is left as it was, for recovery.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Queue, Ref, Scope } from "effect"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import { Controls, ctxFor, send, serverLayer, taskOf } from "./support.ts"

/** A server core over the memory stores, in a scope of the test's own to close. */
const serverInScope = Effect.gen(function*() {
  const scope = yield* Scope.make()
  const services = yield* Layer.buildWithScope(
    serverLayer().pipe(Layer.provideMerge(Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer))),
    scope
  )
  return { scope, services, handler: Context.get(services, RequestHandler), controls: Context.get(services, Controls) }
})

describe("the server's scope", () => {
  it.effect("closing it interrupts every running execution and leaves their tasks as they were", () =>
    Effect.gen(function*() {
      const { controls, handler, scope, services } = yield* serverInScope
      const store = Context.get(services, TaskStore)
      const ctx = ctxFor()
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const sent = yield* handler.sendMessage(send("hang", { configuration: { returnImmediately: true } }), ctx)
        ids.push((yield* taskOf(sent)).id)
        yield* Queue.take(controls.hanging)
      }
      // One execution has ended on its own meanwhile: only the others are left to interrupt.
      const done = yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))

      yield* Scope.close(scope, Exit.void)

      assert.deepStrictEqual([...(yield* Ref.get(controls.finalized))].sort(), [...ids].sort())
      for (const id of ids) {
        const stored = yield* store.get(id, { owner: ctx.principal.id, tenant: "" })
        assert.strictEqual(Option.getOrUndefined(stored)?.task.status.state, "TASK_STATE_WORKING")
      }
      assert.notInclude(ids, done.id)
    }))

  it.effect("a message sent once it has closed starts nothing and hears why at once", () =>
    Effect.gen(function*() {
      const { controls, handler, scope } = yield* serverInScope
      yield* Scope.close(scope, Exit.void)
      const sent = yield* Effect.exit(
        handler.sendMessage(send("hang", { configuration: { returnImmediately: true } }), ctxFor()).pipe(
          Effect.timeout("2 seconds")
        )
      )
      assert.isTrue(Exit.isFailure(sent))
      if (Exit.isFailure(sent)) {
        const error = Option.getOrUndefined(Exit.findErrorOption(sent))
        assert.strictEqual(error?._tag, "InternalError")
        assert.include(error?.message, "shutting down")
      }
      assert.strictEqual(yield* Queue.size(controls.hanging), 0)
    }))
})
