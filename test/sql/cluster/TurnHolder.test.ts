/**
 * TurnHolder on PostgreSQL, in process (issue #42): a runner delivered a Turn whose task another node last saved,
 * in flight, waits while that node lives (holds its liveness lock), and learns "ended" once the task's end is
 * saved; "lost" once that node is gone for a failover, or once the wait has lasted its bound; and "none", waiting
 * for nothing, when the task was last saved by itself. The nodes are two store layers on a fresh schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Fiber, Layer, Scope } from "effect"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import { TaskStore } from "../../../src/server/TaskStore.ts"
import * as TurnHolder from "../../../src/sql/cluster/TurnHolder.ts"
import * as SqlStore from "../../../src/sql/SqlStore.ts"
import { message, record, task, uniqueId } from "../fixtures.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl } from "../pg.ts"

const FAILOVER = Duration.seconds(1)

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

/** Two nodes on a fresh schema (recovery only when the test runs it). */
const twoNodes = Effect.gen(function*() {
  const url = yield* freshSchemaUrl
  const layer = SqlStore.layerPg({ url, recovery: { lease: "1500 millis", interval: "1 hour" } })
  return [yield* startNode(layer), yield* startNode(layer)] as const
})

/** `node` saves `t` (its turn's message in its history) at `version`. */
const save = (node: Node, t: v1.Task, owner: string, version: number) =>
  inNode(
    node,
    Effect.gen(function*() {
      yield* (yield* TaskStore).save(record(t, owner, version))
    })
  )

/** `node`'s wait for the turn of `messageId` in `taskId`, with `maxWait`: its verdict and how long it took. */
const awaitTurn = (node: Node, taskId: string, messageId: string, maxWait = Duration.seconds(30)) =>
  inNode(
    node,
    Effect.gen(function*() {
      const holder = yield* Layer.build(TurnHolder.layer({ failover: FAILOVER, maxWait }))
      const started = Date.now()
      const verdict = yield* (Context.get(holder, TurnHolder.TurnHolder)).await(taskId, messageId)
      return { verdict, ms: Date.now() - started }
    }).pipe(Effect.scoped)
  )

describe("TurnHolder (PostgreSQL)", () => {
  if (testDatabaseUrl === undefined) return it.skip(skipReason, () => {})

  it.live("waits while the node that last saved the task lives, until its end is saved", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoNodes
      const owner = uniqueId("owner")
      const sent = message("hello")
      const working = task({ state: "TASK_STATE_WORKING", history: [sent] })
      yield* save(a, working, owner, 1)
      const waiting = yield* Effect.forkChild(awaitTurn(b, working.id, sent.messageId))
      // Well past the failover: A holds its lock, so its turn is not taken as lost.
      yield* Effect.sleep("2500 millis")
      assert.isUndefined(waiting.pollUnsafe(), "B waits while A lives")
      yield* save(a, { ...working, status: { ...working.status, state: "TASK_STATE_COMPLETED" } }, owner, 2)
      const { ms, verdict } = yield* Fiber.join(waiting)
      assert.strictEqual(verdict, "ended")
      assert.isAtLeast(ms, 2500)
      yield* a.stop
      yield* b.stop
    }))

  it.live("takes the turn as lost once its node is gone for a failover, or once the wait reaches its bound", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoNodes
      const owner = uniqueId("owner")
      const sent = message("hello")
      const working = task({ state: "TASK_STATE_WORKING", history: [sent] })
      yield* save(a, working, owner, 1)
      // A lives, but the wait is bounded.
      const bounded = yield* awaitTurn(b, working.id, sent.messageId, Duration.seconds(2))
      assert.strictEqual(bounded.verdict, "lost")
      assert.isAtLeast(bounded.ms, 2000)
      // A stops (its lock released): lost a failover later.
      yield* a.stop
      const gone = yield* awaitTurn(b, working.id, sent.messageId)
      assert.strictEqual(gone.verdict, "lost")
      assert.isAtLeast(gone.ms, Duration.toMillis(FAILOVER))
      assert.isBelow(gone.ms, 10_000)
      yield* b.stop
    }))

  it.live("waits for nothing when the task was last saved by the runner itself, or has no row", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoNodes
      const owner = uniqueId("owner")
      const sent = message("hello")
      const working = task({ state: "TASK_STATE_WORKING", history: [sent] })
      yield* save(b, working, owner, 1)
      assert.strictEqual((yield* awaitTurn(b, working.id, sent.messageId)).verdict, "none")
      assert.strictEqual((yield* awaitTurn(b, uniqueId("task"), sent.messageId)).verdict, "none")
      yield* a.stop
      yield* b.stop
    }))
})
