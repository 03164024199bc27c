/**
 * The runner over the SQL stores, which coalesce saves (TaskStore.coalesceSaves): on a real SQLite file, and on
 * PostgreSQL when A2A_TEST_DATABASE_URL is set. Each scenario also runs with coalescing turned off on the same
 * kind of store (one save per event, as before), and the two must agree: the events streamed and pushed, their
 * order, the final task, the stored version, the error of a failed save. Every publish and push is checked
 * against the database: the event must be stored by then.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Stream } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import { COALESCE_CAPACITY } from "../../src/server/engine/TaskRunner.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as PushNotifier from "../../src/server/PushNotifier.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { testDatabaseUrl, withFreshSchema } from "../sql/pg.ts"
import { baseCard, ctxFor, send, stateOf, subscribeLive, taskOf, uniqueId } from "./support.ts"

/** Chunks of the bursts: fewer than the capacity, so a burst can be one batch. */
const CHUNKS = 20

// --- the agent ---

const gates = new Map<string, Deferred.Deferred<void>>()
const gate = (name: string): Deferred.Deferred<void> => {
  let found = gates.get(name)
  if (found === undefined) {
    found = Deferred.makeUnsafe<void>()
    gates.set(name, found)
  }
  return found
}
const open = (name: string) => Deferred.succeed(gate(name), undefined)

/** Chunk i of a burst: its number, or "poison" at `poisonAt` (a save holding it fails; see `poison`). */
const chunk = (i: number, poisonAt: number) => (i === poisonAt ? "poison" : String(i))

/**
 * The first word picks the script:
 * - `burst [k] [n]`: TaskUpdater, working, n (CHUNKS) appended chunks back to back (chunk k poisoned), completed;
 * - `stream`: the same events as a plain Stream (Stream.make, no producer);
 * - `misbehave`: a plain Stream whose 6th chunk claims another task, with more events after it;
 * - `halves <gate>`: half the chunks, waits for the gate, the other half, completed;
 * - `lone <gate>`: working, then waits for the gate before completing.
 * - `statuses <gate> [n]`: working, opens `<gate>-ready` and waits for `<gate>-go`, then n (CHUNKS) WORKING statuses
 *   with a message each ("status i"), opens `<gate>-emitted`, completed.
 */
const agent = AgentExecutor.make((ctx) => {
  const [kind = "", arg = "", count = String(CHUNKS)] = AgentExecutor.textOf(ctx.message).split(" ")
  const chunks = Number(count)
  const { contextId, taskId } = ctx
  const task = (work: Parameters<typeof AgentExecutor.task>[0]) => AgentExecutor.task(work).execute(ctx)
  const artifact = (t: Parameters<Parameters<typeof AgentExecutor.task>[0]>[0], i: number, poisonAt = 0) =>
    t.artifact({ artifactId: "a", parts: [{ text: chunk(i, poisonAt) }] }, { append: i > 1, lastChunk: i === chunks })
  switch (kind) {
    case "burst":
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("bursting")
          for (let i = 1; i <= chunks; i++) yield* artifact(t, i, Number(arg))
          yield* t.complete("done")
        })
      )
    case "stream": {
      const events: Array<AgentExecutor.AgentEvent> = [
        { task: { id: taskId, contextId, status: { state: "TASK_STATE_SUBMITTED" } } },
        { statusUpdate: { taskId, contextId, status: { state: "TASK_STATE_WORKING" } } }
      ]
      for (let i = 1; i <= CHUNKS; i++) {
        events.push({
          artifactUpdate: {
            taskId,
            contextId,
            artifact: { artifactId: "a", parts: [{ text: String(i) }] },
            append: i > 1
          }
        })
      }
      events.push({ statusUpdate: { taskId, contextId, status: { state: "TASK_STATE_COMPLETED" } } })
      return Stream.make(...events)
    }
    case "misbehave": {
      const events: Array<AgentExecutor.AgentEvent> = [
        { statusUpdate: { taskId, contextId, status: { state: "TASK_STATE_WORKING" } } }
      ]
      for (let i = 1; i <= 10; i++) {
        events.push({
          artifactUpdate: {
            taskId: i === 6 ? "someone-else" : taskId,
            contextId,
            artifact: { artifactId: "a", parts: [{ text: String(i) }] },
            append: i > 1
          }
        })
      }
      events.push({ statusUpdate: { taskId, contextId, status: { state: "TASK_STATE_COMPLETED" } } })
      return Stream.make(...events)
    }
    case "halves":
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("first half")
          for (let i = 1; i <= CHUNKS / 2; i++) yield* artifact(t, i)
          yield* Deferred.await(gate(arg))
          for (let i = CHUNKS / 2 + 1; i <= CHUNKS; i++) yield* artifact(t, i)
          yield* t.complete("done")
        })
      )
    case "lone":
      return task((t) => Effect.andThen(t.working("alone"), Effect.andThen(Deferred.await(gate(arg)), t.complete())))
    case "statuses":
      return task((t) =>
        Effect.gen(function*() {
          yield* t.working("start")
          yield* open(`${arg}-ready`)
          yield* Deferred.await(gate(`${arg}-go`))
          for (let i = 1; i <= chunks; i++) yield* t.working(`status ${i}`)
          yield* open(`${arg}-emitted`)
          yield* t.complete("done")
        })
      )
    default:
      return Stream.die(`unknown script ${kind}`)
  }
})

// --- what the test watches ---

class Probe extends Context.Service<Probe, {
  /** Saves attempted, per task id. */
  readonly saves: Map<string, number>
  /** Events published or pushed before the database held them. */
  readonly early: Array<string>
  /** Pushed events, in order. */
  readonly pushed: Array<v1.StreamResponse>
  /** The version stored for a task (0 when none). */
  readonly storedVersion: (taskId: string) => Effect.Effect<number>
}>()("test/Probe") {}

/**
 * Wraps the stores' TaskStore (counting saves; `coalesce: false` turns coalescing off) and EventBus, and adds a
 * PushNotifier: each checks that the event it is handed is in the database.
 */
const probed = (coalesce: boolean) =>
  Layer.effectContext(Effect.gen(function*() {
    const store = yield* TaskStore
    const bus = yield* EventBus.EventBus
    const sql = yield* SqlClient.SqlClient
    const saves = new Map<string, number>()
    const early: Array<string> = []
    const pushed: Array<v1.StreamResponse> = []
    const pushedPerTask = new Map<string, number>()
    const storedVersion = (taskId: string) =>
      sql<{ version: number | string }>`SELECT version FROM a2a_tasks WHERE id = ${taskId}`.pipe(
        Effect.map((rows) => Number(rows[0]?.version ?? 0)),
        Effect.orDie
      )
    const stored = (what: string, taskId: string, sequence: number) =>
      Effect.flatMap(storedVersion(taskId), (version) =>
        Effect.sync(() => {
          if (version < sequence) early.push(`${what} ${sequence} of ${taskId} at stored version ${version}`)
        }))
    assert.isTrue(store.coalesceSaves, "the SQL store coalesces saves")
    return Context.make(
      TaskStore,
      TaskStore.of({
        ...store,
        coalesceSaves: coalesce,
        save: (record) =>
          Effect.andThen(
            Effect.sync(() => saves.set(record.task.id, (saves.get(record.task.id) ?? 0) + 1)),
            store.save(record)
          )
      })
    ).pipe(
      Context.add(
        EventBus.EventBus,
        EventBus.EventBus.of({
          ...bus,
          publish: (event) => Effect.andThen(stored("published", event.taskId, event.sequence), bus.publish(event))
        })
      ),
      Context.add(PushNotifier.PushNotifier, {
        // A new task's k-th event has sequence k.
        notify: (event) =>
          Effect.suspend(() => {
            const k = (pushedPerTask.get(event.taskId) ?? 0) + 1
            pushedPerTask.set(event.taskId, k)
            pushed.push(event.event)
            return stored("pushed", event.taskId, k)
          })
      }),
      Context.add(Probe, Probe.of({ saves, early, pushed, storedVersion }))
    )
  }))

type Stores = Layer.Layer<SqlStore.Services, unknown>

const sqlite: Stores = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-coalesce-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)

const server = (stores: Stores, coalesce: boolean) =>
  A2AServer.layerCore({ card: baseCard }).pipe(
    Layer.provide(AgentExecutor.layer(agent)),
    Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
    Layer.provideMerge(probed(coalesce)),
    Layer.provideMerge(stores)
  )

/** A task without what differs from run to run (ids, also where a status message names its task; timestamps). */
const shape = (task: v1.Task) =>
  JSON.parse(
    JSON.stringify({
      state: task.status.state,
      statusMessage: task.status.message?.parts,
      history: (task.history ?? []).map((m) => [m.role, m.parts]),
      artifacts: task.artifacts
    }).replaceAll(task.id, "<task id>")
  ) as unknown

const partsOf = (task: v1.Task) => (task.artifacts?.[0]?.parts ?? []).map((p) => ("text" in p ? p.text : "?"))

const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i))

/** Streams `text` to its end (or its failure) and reads back what the store and the probe hold. */
const streamed = (text: string, configuration?: v1.SendMessageConfiguration) =>
  Effect.gen(function*() {
    const handler = yield* RequestHandler
    const probe = yield* Probe
    const ctx = ctxFor()
    const events: Array<v1.StreamResponse> = []
    const request = configuration === undefined ? send(text) : send(text, { configuration })
    const outcome = yield* handler.sendStreamingMessage(request, ctx).pipe(
      Stream.runForEach((event) => Effect.sync(() => events.push(event))),
      Effect.result
    )
    const first = events[0]
    const taskId = first !== undefined && "task" in first ? first.task.id : ""
    const stored = yield* handler.getTask({ id: taskId }, ctx)
    return {
      events: events.map(stateOf),
      error: outcome._tag === "Failure" ? { tag: outcome.failure._tag, message: outcome.failure.message } : undefined,
      stored,
      version: yield* probe.storedVersion(taskId),
      saves: probe.saves.get(taskId) ?? 0,
      pushConfigs: (yield* handler.listTaskPushNotificationConfigs({ taskId }, ctx)).configs?.length ?? 0,
      pushed: probe.pushed.map(stateOf),
      early: [...probe.early]
    }
  })

const poison = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => sql`ALTER TABLE a2a_tasks ADD CONSTRAINT no_poison CHECK (task::text NOT LIKE '%poison%')`,
    orElse: () =>
      Effect.andThen(
        sql`CREATE TRIGGER no_poison_insert BEFORE INSERT ON a2a_tasks WHEN NEW.task LIKE '%poison%'
          BEGIN SELECT RAISE(ABORT, 'poisoned chunk'); END`,
        sql`CREATE TRIGGER no_poison_update BEFORE UPDATE ON a2a_tasks WHEN NEW.task LIKE '%poison%'
          BEGIN SELECT RAISE(ABORT, 'poisoned chunk'); END`
      )
  })
}).pipe(Effect.orDie)

const suite = (name: string, stores: Stores) =>
  describe(name, () => {
    const both = <A, E>(scenario: Effect.Effect<A, E, RequestHandler | Probe | SqlClient.SqlClient>) =>
      Effect.all([
        Effect.provide(scenario, server(stores, true)),
        Effect.provide(scenario, server(stores, false))
      ])

    for (const script of ["burst", "stream"]) {
      it.effect(`${script}: fewer saves than events, the same events in order, the same task`, () =>
        Effect.gen(function*() {
          const [coalesced, oneByOne] = yield* both(streamed(script))
          const events = CHUNKS + 3
          assert.deepStrictEqual(coalesced.events, [
            "task:TASK_STATE_SUBMITTED",
            "status:TASK_STATE_WORKING",
            ...numbers(1, CHUNKS).map((n) => `artifact:${n}`),
            "status:TASK_STATE_COMPLETED"
          ])
          assert.deepStrictEqual(coalesced.events, oneByOne.events)
          assert.deepStrictEqual(coalesced.pushed, coalesced.events)
          assert.deepStrictEqual(oneByOne.pushed, oneByOne.events)
          assert.deepStrictEqual(shape(coalesced.stored), shape(oneByOne.stored))
          assert.deepStrictEqual(partsOf(coalesced.stored), numbers(1, CHUNKS))
          // One version per event either way: a snapshot and the events after it rebuild the task.
          assert.strictEqual(coalesced.version, events)
          assert.strictEqual(oneByOne.version, events)
          assert.strictEqual(oneByOne.saves, events)
          assert.isBelow(coalesced.saves, events)
          assert.isAtLeast(coalesced.saves, 1)
          assert.deepStrictEqual(coalesced.early, [])
          assert.deepStrictEqual(oneByOne.early, [])
        }))
    }

    it.effect("a lone event is saved and streamed while the agent waits, not held for more", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const probe = yield* Probe
        const ctx = ctxFor()
        const name = uniqueId("lone")
        const head = yield* handler.sendStreamingMessage(send(`lone ${name}`), ctx).pipe(
          Stream.take(2),
          Stream.runCollect
        )
        // The agent waits for the gate: nothing came after WORKING, and it was streamed anyway, stored first.
        assert.deepStrictEqual(head.map(stateOf), ["task:TASK_STATE_SUBMITTED", "status:TASK_STATE_WORKING"])
        const first = head[0]!
        const taskId = "task" in first ? first.task.id : ""
        assert.strictEqual((yield* handler.getTask({ id: taskId }, ctx)).status.state, "TASK_STATE_WORKING")
        assert.strictEqual(yield* probe.storedVersion(taskId), 2)
        const rest = yield* subscribeLive(handler, taskId, ctx)
        yield* open(name)
        assert.strictEqual(stateOf((yield* rest.all).at(-1)!), "status:TASK_STATE_COMPLETED")
        assert.deepStrictEqual(probe.early, [])
      }).pipe(Effect.provide(server(stores, true))))

    it.effect("subscribers joining mid-task rebuild it exactly from their snapshot and the events after it", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const probe = yield* Probe
        const ctx = ctxFor()
        const name = uniqueId("halves")
        const task = yield* taskOf(
          yield* handler.sendMessage(send(`halves ${name}`, { configuration: { returnImmediately: true } }), ctx)
        )
        const early = yield* subscribeLive(handler, task.id, ctx)
        // The first half stored (the agent waits at the gate): a second subscriber starts from there.
        for (let i = 0; i < 10_000; i++) {
          if (partsOf(yield* handler.getTask({ id: task.id }, ctx)).length === CHUNKS / 2) break
          yield* Effect.yieldNow
        }
        const late = yield* subscribeLive(handler, task.id, ctx)
        yield* open(name)
        for (const subscription of [early, late]) {
          const [snapshot, ...updates] = yield* subscription.all
          assert.isTrue(snapshot !== undefined && "task" in snapshot)
          if (snapshot === undefined || !("task" in snapshot)) continue
          const appended = updates.flatMap((e) =>
            "artifactUpdate" in e ? e.artifactUpdate.artifact.parts.map((p) => ("text" in p ? p.text : "?")) : []
          )
          assert.deepStrictEqual([...partsOf(snapshot.task), ...appended], numbers(1, CHUNKS))
          assert.strictEqual(stateOf(updates.at(-1)!), "status:TASK_STATE_COMPLETED")
        }
        assert.deepStrictEqual(partsOf(yield* handler.getTask({ id: task.id }, ctx)), numbers(1, CHUNKS))
        assert.deepStrictEqual(probe.early, [])
      }).pipe(Effect.provide(server(stores, true))))

    it.effect("a save failing mid-batch: the same error, events and stored task as with one save per event", () =>
      Effect.gen(function*() {
        const poisonAt = 8
        // With a push config to attach to the new task: once, though its first save is made twice.
        const hook = { taskPushNotificationConfig: { url: "https://example.com/hook" } }
        const [coalesced, oneByOne] = yield* both(Effect.andThen(poison, streamed(`burst ${poisonAt}`, hook)))
        assert.deepStrictEqual(oneByOne.error, { tag: "InternalError", message: "Task storage failed" })
        assert.deepStrictEqual(coalesced.error, oneByOne.error)
        // Every event before the poisoned one was stored and streamed; nothing after it was.
        const told = [
          "task:TASK_STATE_SUBMITTED",
          "status:TASK_STATE_WORKING",
          ...numbers(1, poisonAt - 1).map((n) => `artifact:${n}`)
        ]
        assert.deepStrictEqual(coalesced.events, told)
        assert.deepStrictEqual(oneByOne.events, told)
        assert.deepStrictEqual(coalesced.pushed, told)
        assert.deepStrictEqual(shape(coalesced.stored), shape(oneByOne.stored))
        assert.deepStrictEqual(partsOf(coalesced.stored), numbers(1, poisonAt - 1))
        assert.strictEqual(coalesced.stored.status.state, "TASK_STATE_WORKING")
        assert.strictEqual(coalesced.version, told.length)
        assert.deepStrictEqual(coalesced.early, [])
        assert.strictEqual(coalesced.pushConfigs, 1)
        assert.strictEqual(oneByOne.pushConfigs, 1)
      }))

    it.effect("an event for another task mid-batch: the events before it stored and streamed, then FAILED, as before", () =>
      Effect.gen(function*() {
        const [coalesced, oneByOne] = yield* both(streamed("misbehave"))
        assert.deepStrictEqual(coalesced.events, [
          "task:TASK_STATE_SUBMITTED",
          "status:TASK_STATE_WORKING",
          ...numbers(1, 5).map((n) => `artifact:${n}`),
          "status:TASK_STATE_FAILED"
        ])
        assert.deepStrictEqual(coalesced.events, oneByOne.events)
        assert.deepStrictEqual(coalesced.pushed, coalesced.events)
        assert.strictEqual(coalesced.error, undefined)
        assert.deepStrictEqual(shape(coalesced.stored), shape(oneByOne.stored))
        assert.deepStrictEqual(partsOf(coalesced.stored), numbers(1, 5))
        assert.match(JSON.stringify(coalesced.stored.status.message?.parts), /someone-else/)
        assert.strictEqual(coalesced.version, oneByOne.version)
        assert.isBelow(coalesced.saves, oneByOne.saves)
        assert.deepStrictEqual(coalesced.early, [])
      }))

    it.effect(`an agent far ahead of the saves waits: a save holds ${COALESCE_CAPACITY} events at most, none lost`, () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const probe = yield* Probe
        const ctx = ctxFor()
        const chunks = 4 * COALESCE_CAPACITY
        const task = yield* taskOf(yield* handler.sendMessage(send(`burst 0 ${chunks}`), ctx))
        assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
        assert.deepStrictEqual(partsOf(task), numbers(1, chunks))
        assert.deepStrictEqual(yield* handler.getTask({ id: task.id }, ctx), task)
        const events = chunks + 3
        assert.strictEqual(yield* probe.storedVersion(task.id), events)
        assert.isAtLeast(probe.saves.get(task.id) ?? 0, Math.ceil(events / COALESCE_CAPACITY))
        assert.isBelow(probe.saves.get(task.id) ?? 0, events)
        assert.deepStrictEqual(probe.early, [])
      }).pipe(Effect.provide(server(stores, true))))

    it.effect(
      "many tasks at once (a backlog of saves, committed over several groups): nothing told before it is stored",
      () =>
        Effect.gen(function*() {
          const handler = yield* RequestHandler
          const probe = yield* Probe
          const ctx = ctxFor()
          const runs = yield* Effect.forEach(
            Array.from({ length: 150 }, () => send("burst")),
            (request) =>
              handler.sendStreamingMessage(request, ctx).pipe(
                Stream.runCollect,
                Effect.flatMap((events) => {
                  const first = events[0]
                  return handler.getTask({ id: first !== undefined && "task" in first ? first.task.id : "" }, ctx)
                })
              ),
            { concurrency: "unbounded" }
          )
          for (const task of runs) {
            assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
            assert.deepStrictEqual(partsOf(task), numbers(1, CHUNKS))
            assert.deepStrictEqual(task.history?.map((m) => m.role), ["ROLE_USER", "ROLE_AGENT", "ROLE_AGENT"])
            assert.strictEqual(yield* probe.storedVersion(task.id), CHUNKS + 3)
          }
          assert.deepStrictEqual(probe.early, [])
        }).pipe(Effect.provide(server(stores, true))),
      { timeout: 60_000 }
    )
  })

/** The agent's status messages in a task's history, in order. */
const statusTexts = (task: v1.Task) =>
  (task.history ?? []).filter((m) => m.role === "ROLE_AGENT").map((m) => m.parts.map((p) => "text" in p ? p.text : ""))

describe("TaskRunner over SQLite: status updates superseded while the writer is behind", () => {
  it.effect("are saved together: every message kept in the history, in order, and the final state", () =>
    Effect.gen(function*() {
      const run = (coalesce: boolean) =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const name = uniqueId("statuses")
          const fiber = yield* Effect.forkChild(streamed(`statuses ${name}`))
          yield* Deferred.await(gate(`${name}-ready`))
          if (coalesce) {
            // The writer held (a transaction) while the agent reports every status: they wait, superseded, for it.
            yield* Effect.forkChild(
              sql.withTransaction(Effect.andThen(open(`${name}-go`), Deferred.await(gate(`${name}-emitted`))))
            )
          } else {
            yield* open(`${name}-go`)
          }
          return yield* Fiber.join(fiber)
        }).pipe(Effect.provide(server(sqlite, coalesce)))
      const coalesced = yield* run(true)
      const oneByOne = yield* run(false)
      const statuses = numbers(1, CHUNKS).map((n) => `status ${n}`)
      // submitted, working "start", the statuses, completed
      const events = CHUNKS + 3
      assert.strictEqual(coalesced.stored.status.state, "TASK_STATE_COMPLETED")
      assert.deepStrictEqual(statusTexts(coalesced.stored), [["start"], ...statuses.map((s) => [s]), ["done"]])
      // As one save per event leaves it (the user's message differs: it names its own gates).
      assert.deepStrictEqual(statusTexts(coalesced.stored), statusTexts(oneByOne.stored))
      assert.strictEqual(coalesced.stored.history?.length, oneByOne.stored.history?.length)
      assert.deepStrictEqual(coalesced.stored.status.message?.parts, oneByOne.stored.status.message?.parts)
      assert.deepStrictEqual(coalesced.events, oneByOne.events)
      assert.strictEqual(coalesced.events.length, events)
      assert.strictEqual(coalesced.version, events)
      assert.strictEqual(oneByOne.saves, events)
      // The statuses that waited for the writer went in one or two saves, not one each.
      assert.isAtMost(coalesced.saves, 4)
      assert.deepStrictEqual(coalesced.early, [])
    }))
})

suite("TaskRunner over SQLite (coalesced saves)", sqlite)
if (testDatabaseUrl !== undefined) {
  suite("TaskRunner over PostgreSQL (coalesced saves)", withFreshSchema((url) => SqlStore.layerPg({ url })))
}
