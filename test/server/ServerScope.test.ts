/**
 * What closing the server's scope does to the executions still running: each is interrupted (its agent's
 * finalizers run) before the scope's own resources close, and its task is left as it was, for recovery. What
 * closes before them (a stopping cluster engine letting its turns end) may still start turns, which run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Layer, Option, Queue, Ref, Scope } from "effect"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as TurnDispatch from "../../src/server/TurnDispatch.ts"
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

  it.effect("a turn started as it closes, before the executions are interrupted, runs: not taken and left unrun", () =>
    Effect.gen(function*() {
      // An engine whose stop (its `serve` scope closing, after the runner's scope has closed and before the runner
      // interrupts its executions) starts a turn, as a stopping cluster engine lets the turns it was handed end.
      let onStop: Effect.Effect<void> = Effect.void
      const dispatch: TurnDispatch.Service = {
        route: undefined,
        serve: () => Effect.addFinalizer(() => Effect.suspend(() => onStop))
      }
      const scope = yield* Scope.make()
      const services = yield* Layer.buildWithScope(
        serverLayer().pipe(
          Layer.provide(Layer.succeed(TurnDispatch.TurnDispatch, dispatch)),
          Layer.provideMerge(Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer))
        ),
        scope
      )
      const handler = Context.get(services, RequestHandler)
      const store = Context.get(services, TaskStore)
      const ctx = ctxFor()
      const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
      const answered = yield* Deferred.make<Exit.Exit<unknown, unknown>>()
      onStop = handler.sendMessage(send("more", { taskId: asked.id }), ctx).pipe(
        Effect.exit,
        Effect.flatMap((exit) => Deferred.succeed(answered, exit))
      )
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Deferred.await(answered)
      assert.isTrue(Exit.isSuccess(exit), String(exit))
      // Run to its end, not refused with its message already taken into the task (which, sent again, would be
      // answered as run).
      const stored = Option.getOrUndefined(yield* store.get(asked.id, { owner: ctx.principal.id, tenant: "" }))
      assert.strictEqual(stored?.task.status.state, "TASK_STATE_COMPLETED")
      assert.strictEqual(stored?.task.history?.filter((m) => m.role === "ROLE_USER").length, 2)
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
