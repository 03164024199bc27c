/**
 * The TaskStore / PushConfigStore contract, run against every implementation (memory, SQLite, PostgreSQL):
 * get/save, owner and tenant scoping, history and artifacts kept, ListTasks filters, order, cursor pagination and
 * shaping, push config CRUD and paging, a terminal state that never changes, a save's `turn` kept until the next.
 * `sql: true` adds what only the SQL stores promise (lost-update guard).
 */
import { assert, it as vitest, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { type PushConfig, PushConfigStore } from "../../src/server/PushConfigStore.ts"
import { isConflict, type TaskCursor, type TaskQuery, TaskStore } from "../../src/server/TaskStore.ts"
import { at, message, record, richTask, root, task, uniqueId } from "./fixtures.ts"

const query = (q: Partial<TaskQuery> = {}): TaskQuery => ({ pageSize: 50, includeArtifacts: true, ...q })

const listAll = (store: TaskStore["Service"], owner: string, q: Partial<TaskQuery>) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<v1.Task>> = []
    let after: TaskCursor | undefined
    for (let i = 0; i < 100; i++) {
      const page = yield* store.list(root(owner), query({ ...q, after }))
      pages.push(page.tasks)
      if (Option.isNone(page.next)) return { pages, totalSize: page.totalSize }
      after = page.next.value
    }
    return yield* Effect.die("pagination did not end")
  })

export interface ContractOptions {
  readonly sql: boolean
}

export const storeContract = <E>(
  name: string,
  storeLayer: Layer.Layer<TaskStore | PushConfigStore, E>,
  options: ContractOptions
) =>
  layer(storeLayer, { timeout: "60 seconds" })(name, (it) => {
    it.effect("get of a missing task is None; save then get returns it", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        assert.isTrue(Option.isNone(yield* store.get("no-such-task", root(owner))))
        const t = richTask(owner)
        yield* store.save(record(t, owner, 1))
        const got = yield* store.get(t.id, root(owner))
        assert.isTrue(Option.isSome(got))
        if (Option.isNone(got)) return
        assert.deepStrictEqual(got.value, { task: t, owner, tenant: "", version: 1 })
      }))

    it.effect("a task of another owner does not exist for you (get and list)", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const alice = uniqueId("alice")
        const bob = uniqueId("bob")
        const t = task({ timestamp: at(1) })
        yield* store.save(record(t, alice))
        assert.isTrue(Option.isNone(yield* store.get(t.id, root(bob))))
        const page = yield* store.list(root(bob), query())
        assert.deepStrictEqual(page.tasks, [])
        assert.strictEqual(page.totalSize, 0)
        assert.strictEqual((yield* store.list(root(alice), query())).totalSize, 1)
      }))

    it.effect("a task under another tenant does not exist for you (get and list); the root is a tenant of its own", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        const acme = uniqueId("acme")
        const t = task({ timestamp: at(1) })
        yield* store.save(record(t, owner, 1, acme))
        const atRoot = task({ timestamp: at(2) })
        yield* store.save(record(atRoot, owner))
        const got = yield* store.get(t.id, { owner, tenant: acme })
        assert.deepStrictEqual(Option.getOrUndefined(got), { task: t, owner, tenant: acme, version: 1 })
        for (const tenant of ["", uniqueId("other")]) {
          assert.isTrue(Option.isNone(yield* store.get(t.id, { owner, tenant })))
        }
        assert.isTrue(Option.isNone(yield* store.get(atRoot.id, { owner, tenant: acme })))
        // The same tenant name under another owner is another scope.
        assert.isTrue(Option.isNone(yield* store.get(t.id, { owner: uniqueId("bob"), tenant: acme })))
        const ids = (tenant: string) =>
          Effect.map(store.list({ owner, tenant }, query()), (p) => p.tasks.map((x) => x.id))
        assert.deepStrictEqual(yield* ids(acme), [t.id])
        assert.deepStrictEqual(yield* ids(""), [atRoot.id])
        assert.deepStrictEqual(yield* ids(uniqueId("other")), [])
        assert.strictEqual((yield* store.list({ owner, tenant: acme }, query())).totalSize, 1)
      }))

    it.effect("save replaces the task; history and artifacts are kept as saved", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        const t1 = task({ state: "TASK_STATE_SUBMITTED", timestamp: at(1), history: [message("one")] })
        yield* store.save(record(t1, owner, 1))
        const t2: v1.Task = {
          ...t1,
          status: { state: "TASK_STATE_INPUT_REQUIRED", timestamp: at(2), message: message("more?", "ROLE_AGENT") },
          history: [...(t1.history ?? []), message("two", "ROLE_AGENT")],
          artifacts: [{ artifactId: "x", parts: [{ text: "partial" }] }]
        }
        yield* store.save(record(t2, owner, 2))
        const got = yield* store.get(t1.id, root(owner))
        assert.deepStrictEqual(Option.getOrUndefined(got), { task: t2, owner, tenant: "", version: 2 })
        const listed = yield* store.list(root(owner), query())
        assert.deepStrictEqual(listed.tasks, [t2])
      }))

    it.effect("keeps the message a save took into the task (its `turn`) until a save without one", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        const asked = task({ state: "TASK_STATE_INPUT_REQUIRED", timestamp: at(1), history: [message("one")] })
        yield* store.save(record(asked, owner, 1))
        const next = message("two")
        const taken = { ...asked, history: [...(asked.history ?? []), next] }
        yield* store.save({ ...record(taken, owner, 2), turn: next.messageId })
        assert.strictEqual(Option.getOrUndefined(yield* store.get(asked.id, root(owner)))?.turn, next.messageId)
        yield* store.save(record({ ...taken, status: { state: "TASK_STATE_WORKING", timestamp: at(2) } }, owner, 3))
        const got = Option.getOrUndefined(yield* store.get(asked.id, root(owner)))
        assert.deepStrictEqual(got, {
          task: { ...taken, status: { state: "TASK_STATE_WORKING", timestamp: at(2) } },
          owner,
          tenant: "",
          version: 3
        })
      }))

    it.effect("lists newest status first, ties by larger id, tasks without timestamp last", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        // Mixed-case ids: byte order must be the same in every store ("B" < "a").
        const tasks = [
          task({ id: `${owner}-a`, timestamp: at(5) }),
          task({ id: `${owner}-B`, timestamp: at(5) }),
          task({ id: `${owner}-c`, timestamp: at(9) }),
          task({ id: `${owner}-d`, timestamp: at(1) }),
          task({ id: `${owner}-e` }),
          task({ id: `${owner}-f`, timestamp: "2025-01-01T00:00:05.500Z" })
        ]
        yield* Effect.forEach(tasks, (t) => store.save(record(t, owner)))
        const page = yield* store.list(root(owner), query())
        assert.deepStrictEqual(page.tasks.map((t) => t.id.slice(owner.length + 1)), ["c", "f", "a", "B", "d", "e"])
        assert.strictEqual(page.totalSize, 6)
        assert.isTrue(Option.isNone(page.next))
      }))

    it.effect("cursor pagination walks every task once, in order, with a constant total", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        const tasks = Array.from({ length: 7 }, (_, i) => task({ timestamp: at(i % 3) }))
        yield* Effect.forEach(tasks, (t) => store.save(record(t, owner)))
        const all = yield* store.list(root(owner), query({ pageSize: 100 }))
        const { pages, totalSize } = yield* listAll(store, owner, { pageSize: 3 })
        assert.deepStrictEqual(pages.map((p) => p.length), [3, 3, 1])
        assert.deepStrictEqual(pages.flat().map((t) => t.id), all.tasks.map((t) => t.id))
        assert.strictEqual(totalSize, 7)
        // An exact multiple of the page size ends without an empty page.
        const even = yield* listAll(store, owner, { pageSize: 7 })
        assert.deepStrictEqual(even.pages.map((p) => p.length), [7])
      }))

    it.effect("filters by context, state and status timestamp (>=), alone and together", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        const mk = (id: string, contextId: string, state: v1.TaskState, s: number) =>
          task({ id: `${owner}-${id}`, contextId, state, timestamp: at(s) })
        const tasks = [
          mk("1", "c1", "TASK_STATE_WORKING", 1),
          mk("2", "c1", "TASK_STATE_COMPLETED", 2),
          mk("3", "c2", "TASK_STATE_WORKING", 3),
          mk("4", "c2", "TASK_STATE_COMPLETED", 4),
          mk("5", "c1", "TASK_STATE_WORKING", 5)
        ]
        yield* Effect.forEach(tasks, (t) => store.save(record(t, owner)))
        const ids = (q: Partial<TaskQuery>) =>
          Effect.map(store.list(root(owner), query(q)), (p) => ({
            ids: p.tasks.map((t) => t.id.slice(owner.length + 1)),
            total: p.totalSize
          }))
        assert.deepStrictEqual(yield* ids({ contextId: "c1" }), { ids: ["5", "2", "1"], total: 3 })
        assert.deepStrictEqual(yield* ids({ status: "TASK_STATE_WORKING" }), { ids: ["5", "3", "1"], total: 3 })
        assert.deepStrictEqual(yield* ids({ statusTimestampAfter: Date.parse(at(3)) }), {
          ids: ["5", "4", "3"],
          total: 3
        })
        assert.deepStrictEqual(
          yield* ids({ contextId: "c1", status: "TASK_STATE_WORKING", statusTimestampAfter: Date.parse(at(2)) }),
          { ids: ["5"], total: 1 }
        )
        assert.deepStrictEqual(yield* ids({ contextId: "nope" }), { ids: [], total: 0 })
        // Filters and the cursor combine: page 2 of the WORKING tasks.
        const first = yield* store.list(root(owner), query({ status: "TASK_STATE_WORKING", pageSize: 2 }))
        assert.isTrue(Option.isSome(first.next))
        const second = yield* store.list(
          root(owner),
          query({ status: "TASK_STATE_WORKING", pageSize: 2, after: Option.getOrUndefined(first.next) })
        )
        assert.deepStrictEqual(second.tasks.map((t) => t.id.slice(owner.length + 1)), ["1"])
        assert.strictEqual(second.totalSize, 3)
      }))

    it.effect("shapes listed tasks: historyLength and includeArtifacts", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        const history = [message("1"), message("2"), message("3")]
        const withArtifacts = task({
          timestamp: at(2),
          history,
          artifacts: [{ artifactId: "a", parts: [{ text: "x" }] }]
        })
        const bare = task({ timestamp: at(1) })
        yield* store.save(record(withArtifacts, owner))
        yield* store.save(record(bare, owner))
        const shaped = (q: Partial<TaskQuery>) => Effect.map(store.list(root(owner), query(q)), (p) => p.tasks)
        const [full, plain] = yield* shaped({ includeArtifacts: true })
        assert.deepStrictEqual(full?.history, history)
        assert.deepStrictEqual(full?.artifacts, withArtifacts.artifacts)
        assert.deepStrictEqual(plain?.artifacts, [])
        const [noArtifacts] = yield* shaped({ includeArtifacts: false })
        assert.isFalse(noArtifacts !== undefined && "artifacts" in noArtifacts)
        const [lastTwo] = yield* shaped({ historyLength: 2 })
        assert.deepStrictEqual(lastTwo?.history, history.slice(1))
        const [none] = yield* shaped({ historyLength: 0 })
        assert.isFalse(none !== undefined && "history" in none)
        // The stored task itself is untouched by shaping.
        const stored = yield* store.get(withArtifacts.id, root(owner))
        assert.deepStrictEqual(Option.getOrUndefined(stored)?.task, withArtifacts)
      }))

    it.effect("a terminal state never changes: completing a FAILED or CANCELED task is a conflict", () =>
      Effect.gen(function*() {
        const store = yield* TaskStore
        const owner = uniqueId("owner")
        for (const state of ["TASK_STATE_FAILED", "TASK_STATE_CANCELED"] as const) {
          const ended = task({ state, timestamp: at(2) })
          yield* store.save(record({ ...ended, status: { state: "TASK_STATE_WORKING", timestamp: at(1) } }, owner, 1))
          yield* store.save(record(ended, owner, 2))
          const completed = { ...ended, status: { state: "TASK_STATE_COMPLETED" as const, timestamp: at(3) } }
          const error = yield* Effect.flip(store.save(record(completed, owner, 3)))
          assert.strictEqual(error._tag, "TaskStoreError")
          assert.isTrue(isConflict(error), error.message)
          assert.include(error.message, "has ended")
          assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(ended.id, root(owner))), {
            task: ended,
            owner,
            tenant: "",
            version: 2
          })
        }
      }))

    if (options.sql) {
      it.effect("refuses a stale save (lost-update guard) and keeps the newer task", () =>
        Effect.gen(function*() {
          const store = yield* TaskStore
          const owner = uniqueId("owner")
          const t = task({ timestamp: at(1) })
          yield* store.save(record(t, owner, 1))
          const newer = { ...t, status: { state: "TASK_STATE_INPUT_REQUIRED" as const, timestamp: at(2) } }
          yield* store.save(record(newer, owner, 2))
          const error = yield* Effect.flip(store.save(record(t, owner, 2)))
          assert.strictEqual(error._tag, "TaskStoreError")
          assert.include(error.message, "concurrently")
          assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(t.id, root(owner)))?.task, newer)
        }))

      it.effect("refuses to overwrite another owner's task with the same id", () =>
        Effect.gen(function*() {
          const store = yield* TaskStore
          const alice = uniqueId("alice")
          const t = task({ timestamp: at(1) })
          yield* store.save(record(t, alice, 1))
          const error = yield* Effect.flip(store.save(record({ ...t, metadata: { evil: true } }, uniqueId("bob"), 2)))
          assert.include(error.message, "another owner")
          assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(t.id, root(alice)))?.task, t)
        }))

      it.effect("refuses to overwrite a task of another tenant with the same id", () =>
        Effect.gen(function*() {
          const store = yield* TaskStore
          const owner = uniqueId("owner")
          const t = task({ timestamp: at(1) })
          yield* store.save(record(t, owner, 1, "acme"))
          const error = yield* Effect.flip(store.save(record({ ...t, metadata: { evil: true } }, owner, 2, "other")))
          assert.include(error.message, "another owner or tenant")
          assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(t.id, { owner, tenant: "acme" }))?.task, t)
        }))

      it.effect("racing saves of increasing versions end at the highest version", () =>
        Effect.gen(function*() {
          const store = yield* TaskStore
          const owner = uniqueId("owner")
          const t = task({ timestamp: at(0) })
          yield* Effect.forEach(
            Array.from({ length: 12 }, (_, i) => i + 1),
            (v) => Effect.ignore(store.save(record({ ...t, metadata: { v } }, owner, v))),
            { concurrency: "unbounded" }
          )
          const got = Option.getOrUndefined(yield* store.get(t.id, root(owner)))
          assert.strictEqual(got?.version, 12)
          assert.deepStrictEqual(got?.task.metadata, { v: 12 })
        }))
    }

    it.effect("push configs: set, get, replace, list pages by id, delete (idempotent), forTask", () =>
      Effect.gen(function*() {
        const store = yield* PushConfigStore
        const taskId = uniqueId("task")
        const config = (id: string, url = `https://hooks.example.com/${id}`): PushConfig => ({
          id,
          taskId,
          url,
          token: `token-${id}`,
          authentication: { scheme: "Bearer", credentials: `secret-${id}` }
        })
        assert.isTrue(Option.isNone(yield* store.get(taskId, "c1")))
        yield* Effect.forEach(["c3", "c1", "C2", "c4"], (id) => store.set(config(id)))
        assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(taskId, "c1")), config("c1"))
        yield* store.set(config("c1", "https://hooks.example.com/changed"))
        assert.strictEqual(
          Option.getOrUndefined(yield* store.get(taskId, "c1"))?.url,
          "https://hooks.example.com/changed"
        )
        const first = yield* store.list(taskId, { pageSize: 2 })
        assert.deepStrictEqual(first.configs.map((c) => c.id), ["C2", "c1"])
        assert.deepStrictEqual(Option.getOrUndefined(first.next), "c1")
        const second = yield* store.list(taskId, { pageSize: 2, after: "c1" })
        assert.deepStrictEqual(second.configs.map((c) => c.id), ["c3", "c4"])
        assert.isTrue(Option.isNone(second.next))
        assert.deepStrictEqual((yield* store.forTask(taskId)).map((c) => c.id), ["C2", "c1", "c3", "c4"])
        yield* store.delete(taskId, "c3")
        yield* store.delete(taskId, "c3")
        yield* store.delete(taskId, "never-existed")
        assert.deepStrictEqual((yield* store.forTask(taskId)).map((c) => c.id), ["C2", "c1", "c4"])
        assert.deepStrictEqual(yield* store.forTask(uniqueId("other-task")), [])
      }))

    it.effect("push configs keep the protocol version they were registered with", () =>
      Effect.gen(function*() {
        const store = yield* PushConfigStore
        const taskId = uniqueId("task")
        const legacy: PushConfig = { id: "old", taskId, url: "https://hooks.example.com/old", protocolVersion: "0.3" }
        const current: PushConfig = { id: "new", taskId, url: "https://hooks.example.com/new", protocolVersion: "1.0" }
        yield* store.set(legacy)
        yield* store.set(current)
        assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(taskId, "old")), legacy)
        assert.deepStrictEqual(yield* store.forTask(taskId), [current, legacy])
        assert.deepStrictEqual((yield* store.list(taskId, { pageSize: 10 })).configs, [current, legacy])
        // Replacing a config replaces its version too.
        yield* store.set({ ...legacy, protocolVersion: "1.0" })
        assert.strictEqual(Option.getOrUndefined(yield* store.get(taskId, "old"))?.protocolVersion, "1.0")
      }))

    it.effect("push configs keep a minimal config exactly (no invented fields)", () =>
      Effect.gen(function*() {
        const store = yield* PushConfigStore
        const taskId = uniqueId("task")
        const minimal: PushConfig = { id: "m", taskId, url: "https://hooks.example.com/m" }
        yield* store.set(minimal)
        assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(taskId, "m")), minimal)
      }))
  })

export { vitest }
