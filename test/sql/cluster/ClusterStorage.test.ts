/**
 * The engine's runner storage as a node runs it (ClusterStorage.layerLocks over a real PostgreSQL): a lock refresh
 * writes the runner's heartbeat and reports the shards whose advisory locks its own lock session holds, never one
 * another runner's session holds, nor one its session lost; a confirmation of one shard right after a heartbeat
 * leaves the heartbeat out. The periodic refresh writes the node's liveness heartbeat too while its liveness lock is
 * held, and has the node take that lock again at once when it finds it free. A node hears of a runner that
 * registers on another (ClusterStorage.RunnerChanges), which has the engine read its storage for a while, then
 * no more (ClusterStorage.layerReads). And a request's final reply stored in one statement
 * (finalReplyInOneStatement) leaves the rows Effect's own storage leaves, and fails as it does when the request has
 * its final reply already.
 */
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Duration, Effect, Exit, Layer, Schedule } from "effect"
import * as Runner from "effect/cluster/Runner"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as RunnerStorage from "effect/cluster/RunnerStorage"
import * as ShardId from "effect/cluster/ShardId"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import * as SqlClient from "effect/sql/SqlClient"
import * as ClusterStorage from "../../../src/sql/cluster/ClusterStorage.ts"
import * as SqlLiveness from "../../../src/sql/internal/SqlLiveness.ts"
import * as SqlMigrations from "../../../src/sql/internal/SqlMigrations.ts"
import * as SqlNode from "../../../src/sql/internal/SqlNode.ts"
import { freshDatabaseUrl, skipReason, testDatabaseUrl } from "../pg.ts"

const shard = (id: number) => ShardId.make("default", id)
const addressA = RunnerAddress.make("127.0.0.1", 1)
const addressB = RunnerAddress.make("127.0.0.1", 2)

/** A runner storage of its own (its own lock session), in the scope of the test. */
const storage = Effect.map(
  Layer.build(ClusterStorage.layerLocks),
  (context) => Context.get(context, RunnerStorage.RunnerStorage)
)

/** How old runner A's heartbeat is, in seconds. */
const heartbeatAge = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ age: number }>`SELECT EXTRACT(EPOCH FROM now() - last_heartbeat)::float8 AS age
    FROM cluster_runners WHERE address = '127.0.0.1:1'`
  return row?.age ?? Infinity
})

const ageHeartbeat = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE cluster_runners SET last_heartbeat = now() - interval '1 minute' WHERE address = '127.0.0.1:1'`
})

const ids = (shards: ReadonlyArray<ShardId.ShardId>) => shards.map((s) => s.id).sort()

describe.skipIf(testDatabaseUrl === undefined)(`ClusterStorage.layerLocks (${skipReason})`, () => {
  it.live(
    "a refresh reports the locks its own session holds, writes the heartbeat, and a confirmation skips it",
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabaseUrl
        yield* Effect.gen(function*() {
          const a = yield* storage
          const b = yield* storage
          yield* a.register(Runner.make({ address: addressA, groups: ["default"], weight: 1 }), true)
          yield* b.register(Runner.make({ address: addressB, groups: ["default"], weight: 1 }), true)
          assert.deepStrictEqual(ids(yield* a.acquire(addressA, [shard(1), shard(2)])), [1, 2])
          assert.deepStrictEqual(ids(yield* b.acquire(addressB, [shard(2), shard(3)])), [3])

          // The periodic refresh (every shard held): the heartbeat written, only A's own locks reported.
          yield* ageHeartbeat
          assert.deepStrictEqual(ids(yield* a.refresh(addressA, [shard(1), shard(2), shard(3)])), [1, 2])
          assert.isBelow(yield* heartbeatAge, 5)

          // A final reply's confirmation of one shard, a heartbeat just written: no heartbeat.
          yield* ageHeartbeat
          assert.deepStrictEqual(ids(yield* a.refresh(addressA, [shard(1)])), [1])
          assert.isAbove(yield* heartbeatAge, 30)
          assert.deepStrictEqual(ids(yield* a.refresh(addressA, [shard(3)])), [])
          // More than one shard: the heartbeat again.
          assert.deepStrictEqual(ids(yield* a.refresh(addressA, [shard(1), shard(2)])), [1, 2])
          assert.isBelow(yield* heartbeatAge, 5)

          // A's lock session ends (the server ended it, or the network failed): its locks are lost, and said so,
          // never reported held; B can take them.
          const sql = yield* SqlClient.SqlClient
          yield* sql`SELECT pg_terminate_backend(pid) FROM pg_locks
          WHERE locktype = 'advisory' AND objsubid = 2 AND objid = 1000001`
          const after = yield* a.refresh(addressA, [shard(1), shard(2)]).pipe(
            Effect.retry({ times: 50, schedule: Schedule.spaced("100 millis") })
          )
          assert.deepStrictEqual(ids(after), [])
          assert.deepStrictEqual(ids(yield* b.acquire(addressB, [shard(1)])), [1])
        }).pipe(
          // The storages' lock sessions end before their pool closes.
          Effect.scoped,
          Effect.provide(
            Layer.mergeAll(
              ShardingConfig.layer({
                shardsPerGroup: 4,
                shardLockExpiration: "9 seconds",
                shardLockRefreshInterval: "3 seconds"
              }),
              SqlRunnerStorage.layerMigrations({})
            ).pipe(Layer.provideMerge(PgClient.layer({ url, maxConnections: 6 })))
          )
        )
      }),
    60_000
  )

  it.live(
    "the periodic refresh writes the liveness heartbeat while its lock is held, and has it taken again at once",
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabaseUrl
        yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const a = yield* storage
          yield* a.register(Runner.make({ address: addressA, groups: ["default"], weight: 1 }), true)
          assert.deepStrictEqual(ids(yield* a.acquire(addressA, [shard(1), shard(2)])), [1, 2])
          const seenAge = Effect.map(
            sql<{ age: number }>`SELECT EXTRACT(EPOCH FROM now() - seen_at)::float8 AS age FROM a2a_nodes
              WHERE node_id = 'node-a'`,
            (rows) => rows[0]?.age ?? Infinity
          )
          const livenessHeld = Effect.map(
            sql<{ held: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
              AND classid = hashtext(${SqlLiveness.LOCK_SPACE})::oid AND objid = hashtext('node-a')::oid
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held`,
            (rows) => rows[0]?.held === true
          )
          const age = sql`UPDATE a2a_nodes SET seen_at = now() - interval '1 minute' WHERE node_id = 'node-a'`

          // The node holds its liveness lock (taken as its layer starts, on a connection of its own) before the
          // refresh is asked to beat for it.
          assert.isTrue(
            yield* livenessHeld.pipe(
              Effect.repeat({ until: (held) => held, schedule: Schedule.spaced("50 millis"), times: 100 })
            )
          )
          // The node's own beat comes a third of its lease (a minute) after the last: this one is the refresh's.
          yield* age
          assert.deepStrictEqual(ids(yield* a.refresh(addressA, [shard(1), shard(2)])), [1, 2])
          assert.isBelow(yield* seenAge, 5)
          // A confirmation of one shard writes neither heartbeat.
          yield* age
          assert.deepStrictEqual(ids(yield* a.refresh(addressA, [shard(1)])), [1])
          assert.isAbove(yield* seenAge, 30)

          // The liveness session ends: the refresh writes no liveness heartbeat (the node is seen as before the
          // loss), and the node takes its lock again at once, not at its next own beat (20 s on).
          yield* sql`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'
            AND classid = hashtext(${SqlLiveness.LOCK_SPACE})::oid AND objid = hashtext('node-a')::oid
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
          assert.isFalse(yield* livenessHeld.pipe(Effect.repeat({ until: (held) => !held, times: 50 })))
          yield* age
          assert.deepStrictEqual(ids(yield* a.refresh(addressA, [shard(1), shard(2)])), [1, 2])
          const [took, held] = yield* livenessHeld.pipe(
            Effect.repeat({ until: (held) => held, schedule: Schedule.spaced("100 millis"), times: 100 }),
            Effect.timed
          )
          assert.isTrue(held)
          assert.isBelow(Duration.toMillis(took), 5_000)
          // Taken again, it was seen (its own beat, written just after the lock is taken), and the refresh writes
          // its heartbeat again.
          assert.isBelow(
            yield* seenAge.pipe(
              Effect.repeat({ until: (age) => age < 5, schedule: Schedule.spaced("50 millis"), times: 100 })
            ),
            5
          )
          yield* age
          yield* a.refresh(addressA, [shard(1), shard(2)])
          assert.isBelow(yield* seenAge, 5)
        }).pipe(
          Effect.scoped,
          Effect.provide(
            SqlLiveness.layer({ lease: "60 seconds" }).pipe(
              Layer.provideMerge(
                Layer.mergeAll(
                  ShardingConfig.layer({
                    shardsPerGroup: 4,
                    shardLockExpiration: "9 seconds",
                    shardLockRefreshInterval: "3 seconds"
                  }),
                  SqlRunnerStorage.layerMigrations({}),
                  SqlNode.layerId("node-a"),
                  Layer.effectDiscard(SqlMigrations.run)
                )
              ),
              Layer.provideMerge(PgClient.layer({ url, maxConnections: 6 }))
            )
          )
        )
      }),
    60_000
  )

  it.live("a node hears of a runner that registers on another", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const node = Layer.build(
        ClusterStorage.layerRunners({ maxAge: Duration.seconds(5) }).pipe(
          Layer.provide(SqlRunnerStorage.layerStorage({}))
        )
      )
      yield* Effect.gen(function*() {
        const a = yield* node
        const b = Context.get(yield* node, RunnerStorage.RunnerStorage)
        const heard = yield* Deferred.make<void>()
        yield* Context.get(a, ClusterStorage.RunnerChanges).subscribe(() => Deferred.doneUnsafe(heard, Exit.void))
        yield* b.register(Runner.make({ address: addressB, groups: ["default"], weight: 1 }), true)
        yield* Deferred.await(heard).pipe(Effect.timeout("5 seconds"))
      }).pipe(
        Effect.scoped,
        Effect.provide(
          Layer.mergeAll(ShardingConfig.layer({ shardsPerGroup: 4 }), SqlRunnerStorage.layerMigrations({})).pipe(
            Layer.provideMerge(PgClient.layer({ url, maxConnections: 6 }))
          )
        )
      )
    }), 60_000)
})

describe("ClusterStorage.layerReads", () => {
  it.live("a change heard has the engine read its storage at once, then every `every` for `during`, then no more", () =>
    Effect.gen(function*() {
      const polls: Array<number> = []
      const listeners = new Set<() => void>()
      const sharding: Partial<Sharding.Sharding["Service"]> = {
        pollStorage: Effect.sync(() => void polls.push(Date.now()))
      }
      const changes = ClusterStorage.RunnerChanges.of({
        subscribe: (f) =>
          Effect.acquireRelease(Effect.sync(() => void listeners.add(f)), () => Effect.sync(() => listeners.delete(f)))
      })
      yield* Layer.build(ClusterStorage.layerReads({ every: Duration.millis(200), during: Duration.seconds(1) })).pipe(
        Effect.provideService(Sharding.Sharding, sharding as Sharding.Sharding["Service"]),
        Effect.provideService(ClusterStorage.RunnerChanges, changes)
      )
      yield* Effect.sleep("500 millis")
      assert.strictEqual(polls.length, 0, "no read before a change is heard")
      const heard = Date.now()
      listeners.forEach((f) => f())
      yield* Effect.sleep("1500 millis")
      const during = polls.filter((at) => at - heard < 1_300).length
      assert.isAtLeast(during, 3, "read while the runners change")
      const settled = polls.length
      yield* Effect.sleep("1 second")
      assert.strictEqual(polls.length, settled, "no read once the change is a `during` old")
    }).pipe(Effect.scoped))
})

describe.skipIf(testDatabaseUrl === undefined)(`ClusterStorage.finalReplyInOneStatement (${skipReason})`, () => {
  it.live(
    "a final reply in one statement leaves the rows Effect's storage leaves, and is refused as it is",
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabaseUrl
        yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const effects = yield* SqlMessageStorage.makeEncoded({})
          const ours = ClusterStorage.finalReplyInOneStatement(effects, sql)
          assert.notStrictEqual(ours.saveReply, effects.saveReply)
          // Two requests (ids 1 and 2) as the engine stores them, unprocessed, each with an interrupt of its own.
          for (const request of [1, 2]) {
            yield* sql`INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag,
              payload, processed, request_id)
              VALUES (${request}, ${`turn-${request}`}, 'default:1', 'effect-a2a/Task', ${`task-${request}`}, 0,
                'Turn', '{}', FALSE, ${request}),
              (${request + 10}, NULL, 'default:1', 'effect-a2a/Task', ${`task-${request}`}, 1, NULL, NULL, FALSE,
                ${request})`
          }
          const reply = (request: number) => ({
            _tag: "WithExit" as const,
            id: String(request + 100),
            requestId: String(request),
            exit: { _tag: "Success" as const, value: { _tag: "Reply", message: { messageId: `m-${request}` } } }
          })
          yield* effects.saveReply(reply(1))
          yield* ours.saveReply(reply(2))
          const messages = yield* sql<{ id: string; processed: boolean; last_reply_id: string | null }>`
            SELECT id::text, processed, last_reply_id::text FROM cluster_messages ORDER BY cluster_messages.id`
          assert.deepStrictEqual(messages.map((m) => [m.id, m.processed, m.last_reply_id]), [
            ["1", true, "101"],
            ["2", true, "102"],
            ["11", true, "101"],
            ["12", true, "102"]
          ])
          const replies = yield* sql<{ id: string; kind: number; request_id: string; payload: string; acked: boolean }>`
            SELECT id::text, kind, request_id::text, payload, sequence, acked FROM cluster_replies ORDER BY id`
          assert.deepStrictEqual(replies, [
            { ...replies[0]!, id: "101", kind: 0, request_id: "1", payload: JSON.stringify(reply(1).exit) },
            { ...replies[0]!, id: "102", kind: 0, request_id: "2", payload: JSON.stringify(reply(2).exit) }
          ])
          // A second final reply of a request: refused by both (the reply's row is unique), nothing changed.
          const again = (request: number) => ({ ...reply(request), id: String(request + 200) })
          const refused = [
            yield* Effect.exit(effects.saveReply(again(1))),
            yield* Effect.exit(ours.saveReply(again(2)))
          ]
          assert.deepStrictEqual(refused.map((e) => Exit.isFailure(e)), [true, true])
          const [left] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_messages
            WHERE last_reply_id IN (201, 202)`
          assert.strictEqual(left?.n, 0)
        }).pipe(
          Effect.scoped,
          Effect.provide(
            Layer.mergeAll(NodeCrypto.layerDigest, ShardingConfig.layer({ shardsPerGroup: 4 })).pipe(
              Layer.provideMerge(PgClient.layer({ url, maxConnections: 4 }))
            )
          )
        )
      }),
    60_000
  )
})
