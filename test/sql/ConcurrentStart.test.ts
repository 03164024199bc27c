/**
 * Nodes started at the same moment on one database all come up: every node's start-up DDL (the stores'
 * migrations, Effect's persistence table, the cluster engine's tables, the gateway's table) takes the schema lock,
 * so none of them dies colliding with another in PostgreSQL's catalog. Repeated on fresh databases, and on a
 * database an older release made, with several nodes (and the gateway's store) at once, to make the race likely.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, type Redacted } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as GatewayStore from "../../src/gateway/GatewayStore.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqlMigrations from "../../src/sql/internal/SqlMigrations.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { freshDatabaseUrl, skipReason, testDatabaseUrl } from "./pg.ts"

const NODES = 4
const ROUNDS = 3

/** A node's start: its stores (with the cluster engine, as `serve` or as a `worker`) and the gateway's table. */
const node = (url: Redacted.Redacted<string>, execute: boolean) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(SqlStore.layerPg({ url, cluster: { execute, failover: "2 seconds" } }))
    // Up, and serving: the stores read the tables every node made.
    const tasks = Context.get(context, TaskStore)
    assert.isTrue(Option.isNone(yield* tasks.get("none", { owner: "alice", tenant: "" })))
    yield* GatewayStore.makeSql.pipe(Effect.provide(PgClient.layer({ url, maxConnections: 2 })))
  })

/** Starts `NODES` nodes at once on `url`; every one must come up. */
const startTogether = (url: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    const exits = yield* Effect.forEach(
      Array.from({ length: NODES }, (_, i) => i),
      (i) => Effect.exit(node(url, i % 2 === 0)),
      { concurrency: "unbounded" }
    )
    const failed = exits.filter(Exit.isFailure)
    assert.deepStrictEqual(failed.map(String), [], "every node comes up")
  }).pipe(Effect.scoped)

/** A database as the first release left it: the stores' first two migrations only, nothing of the engine. */
const olderDatabase = (url: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    yield* Migrator.make({})({
      loader: Effect.map(SqlMigrations.migrations, (all) => all.filter(([id]) => id <= 2)),
      table: SqlMigrations.MIGRATIONS_TABLE
    })
  }).pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 })))

describe("nodes started together", () => {
  if (testDatabaseUrl === undefined) {
    it.skip(`PostgreSQL: ${skipReason}`, () => {})
    return
  }
  it.effect(
    `${NODES} nodes at once on a fresh database all come up (${ROUNDS} rounds)`,
    () =>
      Effect.gen(function*() {
        for (let round = 0; round < ROUNDS; round++) {
          yield* startTogether(yield* freshDatabaseUrl).pipe(Effect.scoped)
        }
      }),
    { timeout: 120_000 }
  )
  it.effect(
    `${NODES} nodes at once on an older database all come up`,
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabaseUrl
        yield* olderDatabase(url)
        yield* startTogether(url)
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
