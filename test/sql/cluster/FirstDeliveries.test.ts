/**
 * A new task's Turn delivered for the first time runs without its task being read (#42), its first save written as a
 * new task's all the same (the store told it is absent, as the read would have), and one delivered again
 * still reads it: the engine's storage counts the claims of each of its rows (`cluster_messages.deliveries`, raised
 * by a trigger whatever reads it), and its read of the runner's messages says which requests no runner was given
 * before (FirstDeliveries). A Turn whose row was claimed before (a runner lost with it, or an older node's read)
 * finds its message in its task and takes the lost-node path; a reset (a shard taken) or a read by ids never makes
 * a request first again. Needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh).
 */
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, type Redacted, Tracer } from "effect"
import type * as MessageStorage from "effect/cluster/MessageStorage"
import * as Snowflake from "effect/cluster/Snowflake"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as DemoAgent from "../../../src/server/DemoAgent.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import { TaskStore } from "../../../src/server/TaskStore.ts"
import * as FirstDeliveries from "../../../src/sql/cluster/FirstDeliveries.ts"
import { NODE_LOST } from "../../../src/sql/cluster/TurnEntity.ts"
import * as DurableServer from "../../../src/sql/DurableServer.ts"
import * as SqlStore from "../../../src/sql/SqlStore.ts"
import * as WebPush from "../../../src/web/WebPush.ts"
import { ctxFor, principal, taskOf } from "../../server/support.ts"
import { recordingStatements } from "../fixtures.ts"
import { freshDatabaseUrl, freshSchemaUrl, skipReason, testDatabaseUrl } from "../pg.ts"

/** The texts of the turns the agent ran. */
const runs: Array<string> = []

/** Works, then completes. */
const agent = AgentExecutor.task((task, context) => {
  runs.push(AgentExecutor.textOf(context.message))
  return task.working("on it").pipe(Effect.andThen(task.complete("done")))
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
    (context) => ({
      handler: Context.get(context, RequestHandler),
      // The node's own stores, built with it.
      store: Option.getOrThrow(Context.getOption(context, TaskStore))
    })
  )

const message = (messageId: string, text: string): v1.Message => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text }]
})

/** A read of a task (TaskStore's `get`), as opposed to a save's look at the row it locks. */
const isTaskRead = (statement: string) =>
  /^select\b[\s\S]*\bfrom a2a_tasks\b/i.test(statement) && !/\bfor update$/i.test(statement)

describe.skipIf(testDatabaseUrl === undefined)(`A Turn's first delivery (${skipReason})`, () => {
  it.live("a blocking new task's first delivery reads no task; its turn runs as before", () =>
    Effect.gen(function*() {
      runs.length = 0
      const url = yield* freshDatabaseUrl
      const { statements, tracer } = recordingStatements()
      yield* Effect.gen(function*() {
        const { handler } = yield* node(url, true)
        const ctx = ctxFor(principal())
        // The first turn after the start waits for the node's shards; the counted one comes after it.
        yield* taskOf(yield* handler.sendMessage({ message: message("m-warm", "warm") }, ctx))
        statements.length = 0
        const task = yield* taskOf(yield* handler.sendMessage({ message: message("m-first", "first") }, ctx))
        assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
        assert.deepStrictEqual(statements.filter(isTaskRead), [], statements.join("\n"))
        // Nor does its first save read the row it writes (the store told the task is absent, as a read would).
        assert.deepStrictEqual(statements.filter((s) => /\bfor update$/i.test(s)), [], statements.join("\n"))
        // Seen: the turn's saves.
        assert.isTrue(statements.some((s) => /\binsert into a2a_tasks\b/i.test(s)), statements.join("\n"))
        assert.deepStrictEqual(runs, ["warm", "first"])
      }).pipe(Effect.scoped, Effect.provideService(Tracer.Tracer, tracer))
    }), 60_000)

  it.live(
    "a Turn claimed before (a lost runner's) reads its task: its message there, it is failed as lost, not run",
    () =>
      Effect.gen(function*() {
        runs.length = 0
        const url = yield* freshDatabaseUrl
        const owner = principal()
        const ctx = ctxFor(owner)
        const sent = message("m-again", "again")
        // A node that takes requests only stores the blocking send's Turn; nothing runs it.
        const taskId = yield* Effect.gen(function*() {
          const { handler, store } = yield* node(url, false)
          const sql = yield* SqlClient.SqlClient
          const sending = yield* Effect.forkChild(handler.sendMessage({ message: sent }, ctx))
          let rows: ReadonlyArray<{ readonly entity_id: string }> = []
          for (let i = 0; rows.length === 0 && i < 200; i++) {
            yield* Effect.sleep("50 millis")
            rows = yield* sql<{ readonly entity_id: string }>`SELECT entity_id FROM cluster_messages WHERE kind = 0`
          }
          assert.strictEqual(rows.length, 1, "the Turn is stored")
          const taskId = rows[0]!.entity_id
          // As a runner lost mid-turn leaves it: the message taken into its task, in flight; and the Turn's row
          // claimed once (its `last_read` set, by whatever read: the count is the database's), long enough ago
          // to be read again.
          yield* store.save({
            task: {
              id: taskId,
              contextId: "ctx-again",
              status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
              history: [{ ...sent, taskId, contextId: "ctx-again" }]
            },
            owner: owner.id,
            tenant: "",
            version: 1
          })
          yield* sql`UPDATE cluster_messages SET last_read = NOW() - INTERVAL '11 minutes' WHERE kind = 0`
          const counted = yield* sql<{ readonly deliveries: number }>`SELECT deliveries FROM cluster_messages`
          assert.deepStrictEqual(counted.map((row) => row.deliveries), [1])
          yield* Fiber.interrupt(sending)
          return taskId
        }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url, maxConnections: 1 })))
        // A node that runs turns takes the Turn over.
        yield* Effect.gen(function*() {
          const { store } = yield* node(url, true)
          let state: string | undefined
          let text: string | undefined
          for (let i = 0; state !== "TASK_STATE_FAILED" && i < 300; i++) {
            yield* Effect.sleep("50 millis")
            const stored = Option.getOrUndefined(yield* store.get(taskId, { owner: owner.id, tenant: "" }))
            state = stored?.task.status.state
            const part = stored?.task.status.message?.parts[0]
            text = part !== undefined && "text" in part ? part.text : undefined
          }
          assert.strictEqual(state, "TASK_STATE_FAILED")
          assert.strictEqual(text, NODE_LOST)
          assert.deepStrictEqual(runs, [], "the agent did not run the turn again")
        }).pipe(Effect.scoped)
      }),
    90_000
  )

  /** The engine's message storage on a fresh schema (its tables made, the count's after `before` when given). */
  const storage = (before?: (encoded: MessageStorage.Encoded) => Effect.Effect<void, unknown>) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* Migrator.make({})({ loader: SqlMessageStorage.migrations(), table: "cluster_migrations" })
      const encoded = yield* SqlMessageStorage.makeEncodedStorage({})
      if (before !== undefined) yield* before(encoded)
      yield* FirstDeliveries.migrate
      const firsts = FirstDeliveries.make()
      return { firsts, storage: FirstDeliveries.counting(encoded, sql, firsts) }
    }).pipe(Effect.provide(NodeCrypto.layerDigest))

  /** A request of an entity on shard default:1, stored. */
  const save = (encoded: MessageStorage.Encoded, requestId: string) =>
    encoded.saveEnvelope({
      envelope: {
        _tag: "Request",
        requestId,
        address: { shardId: { group: "default", id: 1 }, entityType: "T", entityId: `e-${requestId}` },
        tag: "Turn",
        payload: { n: requestId },
        headers: {}
      },
      primaryKey: `T/e-${requestId}/Turn/${requestId}`,
      deliverAt: null
    })

  const shards = ["default:1"] as const
  const read = (encoded: MessageStorage.Encoded) =>
    Effect.map(
      encoded.unprocessedMessages([...shards], Date.now(), { limit: 10 }),
      (messages) => messages.map(({ envelope }) => envelope._tag === "Request" ? envelope.requestId : envelope._tag)
    )

  it.live(
    "only a request's first claim is a first delivery: not after a reset, a read by ids, or an old row",
    () =>
      Effect.gen(function*() {
        const url = yield* freshSchemaUrl
        yield* Effect.gen(function*() {
          const { firsts, storage: counted } = yield* storage()
          yield* save(counted, "1001")
          assert.deepStrictEqual(yield* read(counted), ["1001"])
          assert.isTrue(firsts.take("1001"), "read for the first time")
          assert.isFalse(firsts.take("1001"), "asked once")
          // Claimed: not read again until it is let go (a shard taken by another runner resets it).
          assert.deepStrictEqual(yield* read(counted), [])
          yield* counted.resetShards([...shards])
          assert.deepStrictEqual(yield* read(counted), ["1001"])
          assert.isFalse(firsts.take("1001"), "claimed before: given to a runner before")
          // Read as first, then read by ids (an entity resumed) before it is delivered: not first any more.
          yield* save(counted, "1002")
          assert.deepStrictEqual(yield* read(counted), ["1002"])
          const byIds = yield* counted.unprocessedMessagesById([Snowflake.Snowflake("1002")], Date.now())
          assert.strictEqual(byIds.length, 1)
          assert.isFalse(firsts.take("1002"), "read by ids")
          // Read as first, then read again (let go, claimed once more) before its delivery asks: the last read says.
          yield* save(counted, "1003")
          assert.deepStrictEqual(yield* read(counted), ["1003"])
          yield* counted.resetRequests([Snowflake.Snowflake("1003")])
          assert.deepStrictEqual(yield* read(counted), ["1003"])
          assert.isFalse(firsts.take("1003"), "the second claim")
        }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url, maxConnections: 2 })))
        // A row stored before the count existed is never known first (an older node may have claimed it).
        const old = yield* freshSchemaUrl
        yield* Effect.gen(function*() {
          const { firsts, storage: counted } = yield* storage((encoded) => save(encoded, "2001"))
          assert.deepStrictEqual(yield* read(counted), ["2001"])
          assert.isFalse(firsts.take("2001"))
          yield* save(counted, "2002")
          assert.deepStrictEqual(yield* read(counted), ["2002"])
          assert.isTrue(firsts.take("2002"), "a row stored after it: counted")
        }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url: old, maxConnections: 2 })))
      }),
    60_000
  )
})
