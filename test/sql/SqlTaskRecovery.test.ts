/**
 * Restart recovery, in process: which tasks a starting node fails (in-flight tasks of processes that are gone)
 * and which it leaves alone (interrupted and terminal tasks, its own tasks, and on PostgreSQL the tasks of
 * nodes that are still alive).
 */
import { assert, describe, it } from "@effect/vitest"
import { type Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { RecoveredTasks } from "../../src/server/RecoveredTasks.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import { recover, RESTART_MESSAGE } from "../../src/sql/internal/SqlTaskRecovery.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { at, message, record, task, uniqueId } from "./fixtures.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl } from "./pg.ts"

/** Starts a node (a store layer) in its own scope, so the test decides when it "dies". */
const startNode = (layer: Layer.Layer<SqlStore.Services, SqlStore.StoreError>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    return { context, stop: Scope.close(scope, Exit.void) }
  })

const inNode = <A, E>(context: Context.Context<SqlStore.Services>, effect: Effect.Effect<A, E, SqlStore.Services>) =>
  Effect.provideContext(effect, context)

const states: ReadonlyArray<v1.TaskState> = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_CANCELED"
]

const seed = (owner: string) =>
  Effect.gen(function*() {
    const store = yield* TaskStore
    const tasks = states.map((state, i) =>
      task({
        id: `${owner}-${state}`,
        contextId: "ctx",
        state,
        timestamp: at(i),
        history: [message("hello"), message("on it", "ROLE_AGENT")],
        artifacts: [{ artifactId: "a", parts: [{ text: "partial" }] }]
      })
    )
    yield* Effect.forEach(tasks, (t) => store.save(record(t, owner, 3)))
    return tasks
  })

const stateOf = (owner: string, id: string) =>
  Effect.gen(function*() {
    const store = yield* TaskStore
    return Option.getOrThrow(yield* store.get(id, { owner, tenant: "" }))
  })

const sqliteFile = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-recovery-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => join(dir, "a2a.db")))

describe("SqlTaskRecovery", () => {
  it.effect("SQLite: a restart fails SUBMITTED/WORKING tasks, keeps interrupted and terminal ones", () =>
    Effect.gen(function*() {
      const filename = yield* sqliteFile
      const owner = uniqueId("owner")
      const first = yield* startNode(SqlStore.layerSqlite({ filename }))
      const seeded = yield* inNode(first.context, seed(owner))
      yield* first.stop

      const second = yield* startNode(SqlStore.layerSqlite({ filename }))
      const recovered = yield* inNode(second.context, Effect.service(RecoveredTasks))
      assert.deepStrictEqual(recovered.atStart.map((r) => r.task.id).sort(), [
        `${owner}-TASK_STATE_SUBMITTED`,
        `${owner}-TASK_STATE_WORKING`
      ])
      for (const original of seeded) {
        const after = yield* inNode(second.context, stateOf(owner, original.id))
        if (original.status.state === "TASK_STATE_SUBMITTED" || original.status.state === "TASK_STATE_WORKING") {
          assert.strictEqual(after.task.status.state, "TASK_STATE_FAILED")
          assert.deepStrictEqual(after.task.status.message?.parts, [{ text: RESTART_MESSAGE }])
          assert.strictEqual(after.task.status.message?.taskId, original.id)
          assert.strictEqual(after.version, 4)
          // The history is kept, and ends with the restart message (as an agent's status message would).
          assert.deepStrictEqual(after.task.history?.slice(0, -1), original.history)
          assert.deepStrictEqual(after.task.history?.at(-1), after.task.status.message)
          assert.deepStrictEqual(after.task.artifacts, original.artifacts)
          const event = recovered.atStart.find((r) => r.task.id === original.id)
          assert.deepStrictEqual(event?.statusUpdate, {
            taskId: original.id,
            contextId: "ctx",
            status: after.task.status
          })
        } else {
          assert.deepStrictEqual(after, { task: original, owner, tenant: "", version: 3 })
        }
      }
      // The running node's own in-flight tasks are not touched by a later recovery pass.
      const mine = task({ state: "TASK_STATE_WORKING", timestamp: at(9) })
      yield* inNode(second.context, Effect.flatMap(Effect.service(TaskStore), (s) => s.save(record(mine, owner, 1))))
      assert.deepStrictEqual(yield* inNode(second.context, recover), [])
      assert.strictEqual(
        (yield* inNode(second.context, stateOf(owner, mine.id))).task.status.state,
        "TASK_STATE_WORKING"
      )
      yield* second.stop
    }))

  if (testDatabaseUrl !== undefined) {
    it.effect("PostgreSQL: a starting node leaves a live node's tasks alone, and fails them once it is gone", () =>
      Effect.gen(function*() {
        const url = yield* freshSchemaUrl
        const owner = uniqueId("owner")
        const alive = yield* startNode(SqlStore.layerPg({ url }))
        const seeded = yield* inNode(alive.context, seed(owner))
        const working = seeded.find((t) => t.status.state === "TASK_STATE_WORKING")!

        const other = yield* startNode(SqlStore.layerPg({ url }))
        assert.deepStrictEqual((yield* inNode(other.context, Effect.service(RecoveredTasks))).atStart, [])
        assert.strictEqual(
          (yield* inNode(other.context, stateOf(owner, working.id))).task.status.state,
          "TASK_STATE_WORKING"
        )

        // The first node goes away (its liveness lock with it): the next pass fails its in-flight tasks.
        yield* alive.stop
        const recovered = yield* inNode(other.context, recover)
        assert.deepStrictEqual(recovered.map((r) => r.task.id).sort(), [
          `${owner}-TASK_STATE_SUBMITTED`,
          `${owner}-TASK_STATE_WORKING`
        ])
        const after = yield* inNode(other.context, stateOf(owner, working.id))
        assert.strictEqual(after.task.status.state, "TASK_STATE_FAILED")
        assert.deepStrictEqual(after.task.history?.slice(0, -1), working.history)
        assert.strictEqual(
          (yield* inNode(other.context, stateOf(owner, `${owner}-TASK_STATE_INPUT_REQUIRED`))).task.status.state,
          "TASK_STATE_INPUT_REQUIRED"
        )
        assert.deepStrictEqual(yield* inNode(other.context, recover), [])
        yield* other.stop
      }))
  } else {
    it.skip(`PostgreSQL: ${skipReason}`, () => {})
  }
})
