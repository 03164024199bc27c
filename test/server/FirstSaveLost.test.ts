/**
 * A new task's first save fails as its storage goes away (#34). When its send was acknowledged before its turn
 * started (StartOptions.acknowledged: a non-blocking send through an engine, which may have stored the task
 * SUBMITTED at version 0), the task is recorded FAILED (STORAGE_LOST) once the storage answers again, with the
 * client's message, and its push told; never over a task that has ended meanwhile. Otherwise nothing is stored:
 * the caller heard UNAVAILABLE, and no task was acknowledged.
 *
 * The turns are started as an engine starts them: through the runner's `start` a TurnDispatch is given.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Layer, Option, Ref } from "effect"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { STORAGE_LOST } from "../../src/server/engine/TaskRunner.ts"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { TaskStore, TaskStoreError } from "../../src/server/TaskStore.ts"
import { type Caller, type Local, TurnDispatch } from "../../src/server/TurnDispatch.ts"
import { Controls, ctxFor, serverLayer, uniqueId, userMessage } from "./support.ts"

/** The memory store, unreachable while `down` holds; `direct` is the store behind it (another node's writes). */
const outage: { down: boolean; direct?: TaskStore["Service"] } = { down: false }
const unreachable = Effect.fail(new TaskStoreError({ message: "the database is down", unavailable: true }))
const flakyStore = Layer.effect(
  TaskStore,
  Effect.map(MemoryTaskStore.make, (store) => {
    outage.direct = store
    return TaskStore.of({
      ...store,
      get: (taskId, scope) => outage.down ? unreachable : store.get(taskId, scope),
      save: (record) => outage.down ? unreachable : store.save(record)
    })
  })
)

/** The local runner, as a TurnDispatch is given it. */
class LocalRunner extends Context.Service<LocalRunner, Deferred.Deferred<Local>>()("test/LocalRunner") {}

const dispatch = Layer.unwrap(Effect.map(Deferred.make<Local>(), (local) =>
  Layer.merge(
    Layer.succeed(TurnDispatch, { route: undefined, serve: (l) => Deferred.succeed(local, l) }),
    Layer.succeed(LocalRunner, local)
  )))

const layer = serverLayer().pipe(
  Layer.provideMerge(dispatch),
  Layer.provideMerge(Layer.mergeAll(flakyStore, MemoryPushConfigStore.layer))
)

/**
 * Starts a new task's turn (`taskId`) with the store down, brings the store back after a while (`meanwhile` done
 * first); what its caller heard once it ended.
 */
const startWhileDown = (
  message: v1.Message,
  acknowledged: boolean,
  taskId = uniqueId("task"),
  ctx = ctxFor(),
  meanwhile: Effect.Effect<void> = Effect.void
) =>
  Effect.gen(function*() {
    yield* RequestHandler // built: the runner serves its TurnDispatch
    const { start } = yield* Deferred.await(yield* LocalRunner)
    const failures: Array<string> = []
    const ended = yield* Deferred.make<void>()
    const caller: Caller = {
      offer: () => {},
      fail: (cause) => void failures.push(Option.getOrUndefined(Cause.findErrorOption(cause))?._tag ?? "defect"),
      end: () => void Deferred.doneUnsafe(ended, Exit.void)
    }
    const scope = { owner: ctx.principal.id, tenant: "" }
    outage.down = true
    yield* start({
      message,
      owner: scope.owner,
      tenant: scope.tenant,
      call: ctx,
      metadata: undefined,
      configuration: { returnImmediately: true },
      pushConfig: undefined,
      newTaskId: taskId,
      acknowledged
    }, caller)
    yield* Effect.sleep("300 millis")
    yield* meanwhile
    outage.down = false
    yield* Deferred.await(ended)
    return { failures, scope, store: yield* TaskStore }
  })

/** A task of `message` in context "c", as another writer stores it. */
const taskWith = (taskId: string, message: v1.Message, state: v1.TaskState): v1.Task => ({
  id: taskId,
  contextId: "c",
  status: { state },
  history: [{ ...message, taskId }]
})

describe("a new task's first save lost with its storage", () => {
  it.live("acknowledged: FAILED once the storage is back, with the client's message; its push told", () =>
    Effect.gen(function*() {
      const message = userMessage("complete")
      const taskId = uniqueId("task")
      const { failures, scope, store } = yield* startWhileDown(message, true, taskId)
      assert.deepStrictEqual(failures, ["Unavailable"])
      const stored = Option.getOrThrow(yield* store.get(taskId, scope)).task
      assert.strictEqual(stored.status.state, "TASK_STATE_FAILED")
      assert.deepStrictEqual(stored.status.message?.parts, [{ text: STORAGE_LOST }])
      const users = stored.history?.filter((m) => m.role === "ROLE_USER").map((m) => m.messageId)
      assert.deepStrictEqual(users, [message.messageId])
      const pushed = (yield* Ref.get((yield* Controls).pushed)).filter((p) => p.taskId === taskId)
      assert.strictEqual(pushed.at(-1)?.task.status.state, "TASK_STATE_FAILED")
    }).pipe(Effect.provide(layer)))

  it.live("acknowledged and stored SUBMITTED at version 0 (an engine's QUEUED task): written over, FAILED", () =>
    Effect.gen(function*() {
      const message = { ...userMessage("complete"), contextId: "c" }
      const taskId = uniqueId("task")
      const ctx = ctxFor()
      const store = yield* TaskStore
      const queued = taskWith(taskId, message, "TASK_STATE_SUBMITTED")
      yield* store.save({ task: queued, owner: ctx.principal.id, tenant: "", version: 0 })
      const { failures, scope } = yield* startWhileDown(message, true, taskId, ctx)
      assert.deepStrictEqual(failures, ["Unavailable"])
      const stored = Option.getOrThrow(yield* store.get(taskId, scope))
      assert.strictEqual(stored.task.status.state, "TASK_STATE_FAILED")
      assert.isAbove(stored.version, 0)
      assert.strictEqual(stored.task.history?.filter((m) => m.role === "ROLE_USER").length, 1)
    }).pipe(Effect.provide(layer)))

  it.live("acknowledged, but ended meanwhile (by another node): its end stays", () =>
    Effect.gen(function*() {
      const message = { ...userMessage("complete"), contextId: "c" }
      const taskId = uniqueId("task")
      const ctx = ctxFor()
      const completed = taskWith(taskId, message, "TASK_STATE_COMPLETED")
      const { failures, scope, store } = yield* startWhileDown(
        message,
        true,
        taskId,
        ctx,
        Effect.orDie(outage.direct!.save({ task: completed, owner: ctx.principal.id, tenant: "", version: 5 }))
      )
      assert.deepStrictEqual(failures, ["Unavailable"])
      const stored = Option.getOrThrow(yield* store.get(taskId, scope))
      assert.strictEqual(stored.task.status.state, "TASK_STATE_COMPLETED")
      assert.strictEqual(stored.version, 5)
    }).pipe(Effect.provide(layer)))

  it.live("not acknowledged (a send answered only once its task is saved): nothing stored", () =>
    Effect.gen(function*() {
      const taskId = uniqueId("task")
      const { failures, scope, store } = yield* startWhileDown(userMessage("complete"), false, taskId)
      assert.deepStrictEqual(failures, ["Unavailable"])
      yield* Effect.sleep("1500 millis")
      assert.isTrue(Option.isNone(yield* store.get(taskId, scope)))
    }).pipe(Effect.provide(layer)))
})
