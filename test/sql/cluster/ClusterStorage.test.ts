/**
 * The engine's runner storage as a node runs it (ClusterStorage.layerLocks over a real PostgreSQL): a lock refresh
 * writes the runner's heartbeat and reports the shards whose advisory locks its own lock session holds, never one
 * another runner's session holds, nor one its session lost; a confirmation of one shard right after a heartbeat
 * leaves the heartbeat out.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Schedule } from "effect"
import * as Runner from "effect/cluster/Runner"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as RunnerStorage from "effect/cluster/RunnerStorage"
import * as ShardId from "effect/cluster/ShardId"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import * as SqlClient from "effect/sql/SqlClient"
import * as ClusterStorage from "../../../src/sql/cluster/ClusterStorage.ts"
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
})
