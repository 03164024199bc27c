/**
 * A new task's message through the cluster engine on PostgreSQL (#42): claimed (its receipt made) in the transaction
 * that stores its Turn, so that a non-blocking send is acknowledged after one commit: its receipt and its Turn are
 * one transaction's rows (PostgreSQL's `xmin`), and its task is saved as queued, read as the send is acknowledged on
 * a node that takes requests only (no runner: the Turn stays stored, unrun, and nothing rewrites those rows). And what that
 * must keep: two sends of one message at once, on one node or on two, run it once, and both answer its task.
 * Needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh).
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, type Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as DemoAgent from "../../../src/server/DemoAgent.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import * as DurableServer from "../../../src/sql/DurableServer.ts"
import * as SqlStore from "../../../src/sql/SqlStore.ts"
import * as WebPush from "../../../src/web/WebPush.ts"
import { ctxFor, principal, taskOf } from "../../server/support.ts"
import { freshDatabaseUrl, skipReason, testDatabaseUrl } from "../pg.ts"

/** The texts of the turns the agent ran. */
const runs: Array<string> = []

/** Works, then completes a moment later. */
const agent = AgentExecutor.task((task, context) => {
  runs.push(AgentExecutor.textOf(context.message))
  return task.working("on it").pipe(Effect.andThen(Effect.sleep("50 millis")), Effect.andThen(task.complete("done")))
})

/** A server node on the database at `url`, with the engine: running turns (`execute`) or taking requests only. */
const node = (url: Redacted.Redacted<string>, execute: boolean) =>
  Effect.map(
    Layer.build(
      DurableServer.layerWithStores(SqlStore.layerPg({ url, cluster: { execute, failover: "2 seconds" } }), {
        card: DemoAgent.card,
        executor: agent,
        push: WebPush.layer()
      })
    ),
    (context) => Context.get(context, RequestHandler)
  )

const message = (messageId: string, text: string): v1.Message => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text }]
})

describe.skipIf(testDatabaseUrl === undefined)(`A new task's receipt in its Turn's transaction (${skipReason})`, () => {
  it.live(
    "a non-blocking send is acknowledged after one commit: its receipt, its Turn and its queued task",
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabaseUrl
        yield* Effect.gen(function*() {
          const handler = yield* node(url, false)
          const sql = yield* SqlClient.SqlClient
          const ctx = ctxFor(principal())
          for (let i = 0; i < 3; i++) {
            const sent = message(`m-ack-${i}`, `ack ${i}`)
            const task = yield* taskOf(
              yield* handler.sendMessage({ message: sent, configuration: { returnImmediately: true } }, ctx)
            )
            assert.strictEqual(task.status.state, "TASK_STATE_SUBMITTED")
            const receipt = yield* sql<{ readonly x: string; readonly task_id: string }>`
              SELECT xmin::text AS x, task_id FROM a2a_message_receipts WHERE message_id = ${sent.messageId}`
            const turn = yield* sql<{ readonly x: string }>`
              SELECT xmin::text AS x FROM cluster_messages WHERE entity_id = ${task.id}`
            const queued = yield* sql<{ readonly version: number }>`SELECT version FROM a2a_tasks WHERE id = ${task.id}`
            assert.strictEqual(receipt.length, 1)
            assert.strictEqual(receipt[0]!.task_id, task.id)
            assert.strictEqual(turn.length, 1)
            assert.strictEqual(queued.length, 1)
            assert.strictEqual(queued[0]!.version, 0, "saved as queued, not run")
            // The queued task is saved in a savepoint of that transaction (its failure is its own): its rows carry
            // the savepoint's own transaction id, so only the receipt's and the Turn's are compared.
            assert.strictEqual(turn[0]!.x, receipt[0]!.x, "the Turn and the receipt: one transaction")
          }
        }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url, maxConnections: 1 })))
      }),
    60_000
  )

  it.live(
    "two sends of one message at once, on one node or on two, run it once and both answer its task",
    () =>
      Effect.gen(function*() {
        runs.length = 0
        const url = yield* freshDatabaseUrl
        yield* Effect.gen(function*() {
          const a = yield* node(url, true)
          const b = yield* node(url, true)
          const ctx = ctxFor(principal())
          const texts: Array<string> = []
          for (let i = 0; i < 8; i++) {
            const text = `twice ${i}`
            texts.push(text)
            const immediate = i % 2 === 1
            const sent = message(`m-twice-${i}`, text)
            const request = immediate
              ? { message: sent, configuration: { returnImmediately: true } }
              : { message: sent }
            // Half of them on one node, half on two.
            const other = i % 4 < 2 ? a : b
            const [first, second] = yield* Effect.all(
              [a.sendMessage(request, ctx), other.sendMessage(request, ctx)],
              { concurrency: 2 }
            )
            const one = yield* taskOf(first)
            const two = yield* taskOf(second)
            assert.strictEqual(one.id, two.id, `${text}: one task`)
            // The send that ran it answers its end; the other, the task as it was when it looked.
            if (!immediate) assert.include([one.status.state, two.status.state], "TASK_STATE_COMPLETED")
          }
          for (let i = 0; runs.length < texts.length && i < 200; i++) yield* Effect.sleep("50 millis")
          yield* Effect.sleep("500 millis")
          assert.deepStrictEqual([...runs].sort(), [...texts].sort())
        }).pipe(Effect.scoped)
      }),
    90_000
  )
})
