/**
 * Node liveness on PostgreSQL, in process: a node whose liveness connection is lost (its session terminated, as
 * a database restart or a network failure does) takes its lock again, and meanwhile the other nodes do not count
 * it as gone nor fail its tasks; one that stays out of reach for its lease, or stops cleanly, is gone; and a
 * node that has lost its own lock judges no one until it has it again and a lease has passed.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Context, Effect, Exit, Layer, Scope } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { TaskStore } from "../../src/server/TaskStore.ts"
import { SqlLiveness } from "../../src/sql/internal/SqlLiveness.ts"
import { SqlNode } from "../../src/sql/internal/SqlNode.ts"
import { recover } from "../../src/sql/internal/SqlTaskRecovery.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { record, task, uniqueId } from "./fixtures.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl } from "./pg.ts"

const LEASE = "1500 millis"

/** A node (a store layer) in its own scope, so the test decides when it stops. */
const startNode = (layer: Layer.Layer<SqlStore.Services, SqlStore.StoreError>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    return { context, stop: Scope.close(scope, Exit.void) }
  })

type Node = Effect.Success<ReturnType<typeof startNode>>

const inNode = <A, E>(node: Node, effect: Effect.Effect<A, E, SqlStore.Services>) =>
  Effect.provideContext(effect, node.context as Context.Context<SqlStore.Services>)

const idOf = (node: Node) =>
  inNode(
    node,
    Effect.gen(function*() {
      return (yield* SqlNode).id
    })
  )

/** Whether `judge` counts `target` as gone. */
const isGone = (judge: Node, target: Node) =>
  Effect.flatMap(idOf(target), (id) =>
    inNode(
      judge,
      Effect.gen(function*() {
        return yield* (yield* SqlLiveness).isGone(id)
      })
    ))

/** The backend holding a node's liveness lock, if any. */
const lockHolder = (node: Node) =>
  Effect.flatMap(idOf(node), (id) =>
    inNode(
      node,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ pid: number }>`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
          AND classid = hashtext('effect-a2a/node')::oid AND objid = hashtext(${id})::oid`
      })
    ))

/** Terminates the session holding a node's liveness lock (and waits until it is gone), as a lost connection would. */
const cutLiveness = (node: Node) =>
  Effect.gen(function*() {
    const [holder] = yield* lockHolder(node)
    assert.isDefined(holder, "the node holds its lock")
    yield* inNode(
      node,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`SELECT pg_terminate_backend(${holder!.pid}, 5000)`
      })
    )
  })

const waitFor = (what: string, check: Effect.Effect<boolean, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100; i++) {
      if (yield* check) return
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.die(new Error(`${what}: not within 10 s`))
  })

/** Two nodes on a fresh schema, with a short lease (recovery only when the test runs it). */
const twoNodes = Effect.gen(function*() {
  const url = yield* freshSchemaUrl
  const layer = SqlStore.layerPg({ url, recovery: { lease: LEASE, interval: "1 hour" } })
  return [yield* startNode(layer), yield* startNode(layer)] as const
})

describe("SqlLiveness (PostgreSQL)", () => {
  if (testDatabaseUrl === undefined) return it.skip(skipReason, () => {})

  it.live("a node that lost its connection takes its lock again, and keeps its tasks; one that stops is gone", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoNodes
      const owner = uniqueId("owner")
      const working = task({ state: "TASK_STATE_WORKING" })
      yield* inNode(
        a,
        Effect.gen(function*() {
          yield* (yield* TaskStore).save(record(working, owner))
        })
      )

      yield* cutLiveness(a)
      // A's lock is free for a moment, but A was seen within its lease: not gone, and its task stays.
      assert.isFalse(yield* isGone(b, a))
      assert.deepStrictEqual(yield* inNode(b, recover), [])
      yield* waitFor("A takes its lock again", Effect.map(lockHolder(a), (rows) => rows.length === 1))
      yield* Effect.sleep(LEASE)
      assert.isFalse(yield* isGone(b, a), "A holds its lock again")
      assert.deepStrictEqual(yield* inNode(b, recover), [])

      // A stops cleanly: gone at once, and its in-flight task failed by B.
      yield* a.stop
      assert.isTrue(yield* isGone(b, a))
      assert.deepStrictEqual((yield* inNode(b, recover)).map((r) => r.task.id), [working.id])
      yield* b.stop
    }))

  it.live("a node that lost its own lock judges no one until it has it again and a lease has passed", () =>
    Effect.gen(function*() {
      const [gone, b] = yield* twoNodes
      yield* gone.stop
      assert.isTrue(yield* isGone(b, gone))

      yield* cutLiveness(b)
      assert.isFalse(yield* isGone(b, gone), "B's own lock is free: it may not judge")
      yield* waitFor("B takes its lock again", Effect.map(lockHolder(b), (rows) => rows.length === 1))
      assert.isFalse(yield* isGone(b, gone), "B has just taken its lock again: the others may not have yet")
      yield* waitFor("B judges again a lease later", isGone(b, gone))
      yield* b.stop
    }))
})
