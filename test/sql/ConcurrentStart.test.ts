/**
 * Nodes started at the same moment on one database all come up: every node's start-up DDL (the stores'
 * migrations, Effect's persistence table, the cluster engine's tables, the gateway's table) takes the schema lock,
 * so none of them dies colliding with another in PostgreSQL's catalog. Repeated on fresh databases, and on a
 * database an older release made, with several nodes (and the gateway's store) at once, to make the race likely;
 * and as a deployment starts them, as processes of the CLI: `serve` nodes, a `serve --no-execute` node and
 * `worker`s at once, on a fresh database and on an older one, every one of them up and a turn run through them.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import * as Migrator from "effect/sql/Migrator"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as GatewayStore from "../../src/gateway/GatewayStore.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqlMigrations from "../../src/sql/internal/SqlMigrations.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"
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

/**
 * A database as an older release left it: the stores' first `upTo` migrations only, and the cluster engine's
 * tables when `engine` (a release that ran it), else nothing of the engine.
 */
const olderDatabase = (url: Redacted.Redacted<string>, upTo = 2, engine = false) =>
  Effect.gen(function*() {
    yield* Migrator.make({})({
      loader: Effect.map(SqlMigrations.migrations, (all) => all.filter(([id]) => id <= upTo)),
      table: SqlMigrations.MIGRATIONS_TABLE
    })
    if (engine) {
      yield* Migrator.make({})({ loader: SqlMessageStorage.migrations(), table: "cluster_migrations" })
      yield* Migrator.make({})({ loader: SqlRunnerStorage.migrations({}), table: "cluster_runner_migrations" })
    }
  }).pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 })))

const AGENT = fileURLToPath(new URL("../fixtures/ClusterAgent.ts", import.meta.url))

/**
 * Two `serve` nodes, a `serve --no-execute` node and two `worker`s, started at once on `url` as a deployment
 * starts its replicas: every one comes up (none dies at start-up), and a blocking send through the node that
 * only takes requests runs on one of the others.
 */
const processesTogether = (url: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    const env = () => ({
      A2A_DATABASE_URL: Redacted.value(url),
      A2A_FAILOVER: "2 seconds",
      A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-start-"))
    })
    const serve = (args: ReadonlyArray<string> = []) =>
      ServeProcess.start(env(), ["--no-ui", "--no-api-docs", ...args], AGENT)
    const started = yield* Effect.all([
      Effect.exit(serve()),
      Effect.exit(serve()),
      Effect.exit(serve(["--no-execute"])),
      Effect.exit(ServeProcess.worker(env(), AGENT)),
      Effect.exit(ServeProcess.worker(env(), AGENT))
    ], { concurrency: "unbounded" })
    const failed = started.filter(Exit.isFailure)
    assert.deepStrictEqual(failed.map(String), [], "every process comes up")
    const sender = started[2]
    if (sender === undefined || Exit.isFailure(sender)) return
    const answer = yield* Effect.promise(async () => {
      const response = await fetch(`${sender.value.base}/message:send`, {
        method: "POST",
        headers: { "a2a-version": "1.0", "content-type": "application/json" },
        body: JSON.stringify({
          message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "sleep 0" }] }
        }),
        signal: AbortSignal.timeout(60_000)
      })
      return { status: response.status, body: await response.text() }
    })
    assert.strictEqual(answer.status, 200, answer.body)
    assert.include(answer.body, "TASK_STATE_COMPLETED")
  }).pipe(Effect.scoped)

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
  it.live(
    "serve nodes, a serve --no-execute node and workers started at once as processes on a fresh database all come up",
    () => Effect.flatMap(freshDatabaseUrl, processesTogether).pipe(Effect.scoped),
    { timeout: 180_000 }
  )
  it.live(
    "serve nodes, a serve --no-execute node and workers started at once as processes on an older database all come up",
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabaseUrl
        // The release before the task's turn was recorded (migration 10), which ran the engine: its tables there,
        // the stores' to bring up to date by whichever node comes first.
        yield* olderDatabase(url, 9, true)
        yield* processesTogether(url)
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )
})
