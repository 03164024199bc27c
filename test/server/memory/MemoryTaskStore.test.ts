/**
 * The memory store's bounds: ended tasks are forgotten by count and by age, tasks in progress never; a task's
 * history keeps its most recent messages, and historyLength still applies to what is kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as TestClock from "effect/testing/TestClock"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as MemoryTaskStore from "../../../src/server/memory/MemoryTaskStore.ts"
import { TaskStore } from "../../../src/server/TaskStore.ts"

const scope = { owner: "alice", tenant: "" }

const message = (i: number): v1.Message => ({ messageId: `m-${i}`, role: "ROLE_USER", parts: [{ text: String(i) }] })

const task = (id: string, state: v1.TaskState, history: ReadonlyArray<v1.Message> = []): v1.Task => ({
  id,
  contextId: "c",
  status: { state, timestamp: new Date(0).toISOString() },
  history
})

const save = (t: v1.Task, version = 1) =>
  Effect.flatMap(TaskStore, (store) => store.save({ task: t, ...scope, version }))

const has = (id: string) => Effect.flatMap(TaskStore, (store) => Effect.map(store.get(id, scope), Option.isSome))

const listed = Effect.flatMap(
  TaskStore,
  (store) => Effect.map(store.list(scope, { pageSize: 100, includeArtifacts: false }), (page) => page.totalSize)
)

describe("MemoryTaskStore bounds", () => {
  it.effect("keeps the most recently ended tasks up to the count; tasks in progress are never forgotten", () =>
    Effect.gen(function*() {
      yield* save(task("working", "TASK_STATE_WORKING"))
      yield* save(task("waiting", "TASK_STATE_INPUT_REQUIRED"))
      for (let i = 0; i < 5; i++) yield* save(task(`done-${i}`, "TASK_STATE_COMPLETED"))
      assert.deepStrictEqual(
        yield* Effect.forEach(["done-0", "done-1", "done-2", "done-3", "done-4"], has),
        [false, false, true, true, true]
      )
      assert.isTrue(yield* has("working"))
      assert.isTrue(yield* has("waiting"))
      assert.strictEqual(yield* listed, 5)
      // An ended task cannot be saved again (a terminal state never changes), nor made younger by trying.
      const refused = yield* Effect.flip(save(task("done-2", "TASK_STATE_COMPLETED"), 2))
      assert.isTrue(refused.conflict)
      yield* save(task("done-5", "TASK_STATE_FAILED"))
      assert.isFalse(yield* has("done-2"))
      assert.isTrue(yield* has("done-5"))
    }).pipe(Effect.provide(MemoryTaskStore.layerWith({ maxTerminalTasks: 3 }))))

  it.effect("keeps forgetting the earliest ended first over many tasks", () =>
    Effect.gen(function*() {
      // Past a few thousand forgotten tasks the store drops the forgotten part of its queue: the order holds on.
      for (let i = 0; i < 5000; i++) yield* save(task(`done-${i}`, "TASK_STATE_COMPLETED"))
      assert.deepStrictEqual(
        yield* Effect.forEach(["done-4989", "done-4990", "done-4999", "done-0", "done-2500"], has),
        [false, true, true, false, false]
      )
      assert.strictEqual(yield* listed, 10)
    }).pipe(Effect.provide(MemoryTaskStore.layerWith({ maxTerminalTasks: 10 }))))

  it.effect("forgets an ended task once its time is up, whether or not anything is saved meanwhile", () =>
    Effect.gen(function*() {
      yield* save(task("old", "TASK_STATE_CANCELED"))
      yield* save(task("running", "TASK_STATE_WORKING"))
      yield* TestClock.adjust("50 minutes")
      yield* save(task("newer", "TASK_STATE_COMPLETED"))
      assert.isTrue(yield* has("old"))
      yield* TestClock.adjust("11 minutes")
      // Nothing saved since: a read already no longer sees it.
      assert.isFalse(yield* has("old"))
      assert.isTrue(yield* has("newer"))
      assert.isTrue(yield* has("running"))
      assert.strictEqual(yield* listed, 2)
      yield* TestClock.adjust("2 hours")
      assert.isTrue(yield* has("running"))
      assert.isFalse(yield* has("newer"))
    }).pipe(Effect.provide(MemoryTaskStore.layerWith({ terminalTaskTtl: "1 hour" }))))

  it.effect("keeps the most recent messages of a history; historyLength picks from those", () =>
    Effect.gen(function*() {
      const store = yield* TaskStore
      yield* save(task("chatty", "TASK_STATE_WORKING", Array.from({ length: 10 }, (_, i) => message(i))))
      const kept = yield* store.get("chatty", scope)
      assert.deepStrictEqual(Option.getOrThrow(kept).task.history?.map((m) => m.messageId), [
        "m-6",
        "m-7",
        "m-8",
        "m-9"
      ])
      const page = yield* store.list(scope, { pageSize: 10, includeArtifacts: false, historyLength: 2 })
      assert.deepStrictEqual(page.tasks[0]?.history?.map((m) => m.messageId), ["m-8", "m-9"])
    }).pipe(Effect.provide(MemoryTaskStore.layerWith({ maxHistory: 4 }))))
})
