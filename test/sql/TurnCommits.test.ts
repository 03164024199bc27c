/**
 * What a turn costs PostgreSQL without the cluster engine, counted from `pg_stat_database` on a database of the
 * test's own (no other client commits there): a new task's blocking turn is its receipt, its first save and its
 * final save, each save with its events' notifications in its own statement and its webhooks known absent from it
 * (no read of the push configs, no NOTIFY apart). And what those shortcuts must keep: a webhook registered on
 * another node, between two turns of a task, gets the next turn's events. Needs A2A_TEST_DATABASE_URL (see
 * .ci/postgres.sh).
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, Result } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as WebhookGuard from "../../src/server/push/WebhookGuard.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import * as DurableServer from "../../src/sql/DurableServer.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import * as WebPush from "../../src/web/WebPush.ts"
import * as Receiver from "../server/push/receiver.ts"
import { ctxFor, principal, send, taskOf } from "../server/support.ts"
import { freshDatabaseUrl, skipReason, testDatabaseUrl } from "./pg.ts"

/** Asks for input at "ask"; otherwise works, then completes a moment later (two saves: the turn's first and last). */
const agent = AgentExecutor.task((task, context) =>
  AgentExecutor.textOf(context.message) === "ask"
    ? task.requireInput("Your name?")
    : task.working("on it").pipe(Effect.andThen(Effect.sleep("20 millis")), Effect.andThen(task.complete("done")))
)

const allowlist = Result.getOrThrow(WebhookGuard.parseAllowlist("127.0.0.1"))

/** A server node (engine off) on the database at `url`. */
const node = (url: Redacted.Redacted<string>) =>
  Effect.map(
    Layer.build(
      DurableServer.layerWithStores(SqlStore.layerPg({ url }), {
        card: DemoAgent.card,
        executor: agent,
        push: WebPush.layer({ allowlist })
      })
    ),
    (context) => Context.get(context, RequestHandler)
  )

/**
 * The transactions committed in the database at `url`, read from the test's database once the node's connections
 * are closed: a backend counts its own until it flushes them (at the latest as it exits), so read when two reads
 * apart agree.
 */
const commits = (url: Redacted.Redacted<string>) => {
  const name = new URL(Redacted.value(url)).pathname.slice(1)
  const read = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly n: string }>`SELECT xact_commit::text AS n FROM pg_stat_database
      WHERE datname = ${name}`
    return Number(row?.n ?? 0)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(testDatabaseUrl!), maxConnections: 1 })), Effect.orDie)
  const settled = (last: number): Effect.Effect<number> =>
    Effect.andThen(Effect.sleep("500 millis"), read).pipe(
      Effect.flatMap((n) => n === last ? Effect.succeed(n) : settled(n))
    )
  return Effect.andThen(Effect.sleep("500 millis"), Effect.flatMap(read, settled))
}

/** What a node started on a fresh database commits over its life, as it takes one task's turn and `turns` more. */
const lifetime = (turns: number) =>
  Effect.gen(function*() {
    const url = yield* freshDatabaseUrl
    yield* Effect.gen(function*() {
      const handler = yield* node(url)
      const ctx = ctxFor(principal())
      for (let i = 0; i <= turns; i++) {
        const task = yield* taskOf(yield* handler.sendMessage(send(`turn ${i}`), ctx))
        assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
      }
    }).pipe(Effect.scoped)
    return yield* commits(url)
  }).pipe(Effect.scoped)

const TURNS = 40

describe.skipIf(testDatabaseUrl === undefined)(`A turn's commits on PostgreSQL (${skipReason})`, () => {
  it.live(
    "a new task's blocking turn is three statements: its receipt, its first save and its final save",
    () =>
      Effect.gen(function*() {
        // Two nodes' lives, one with TURNS more turns: their start, their first turn and their stop cancel out.
        const perTurn = ((yield* lifetime(TURNS)) - (yield* lifetime(0))) / TURNS
        // Three statements: the receipt, the first save and the last, each save with its events' NOTIFY (measured
        // 6.8 per turn: PostgreSQL also counts a transaction of the node's listening connection for each
        // notification it takes in); seven statements, and 10.9 per turn, when the webhooks were read and the events
        // notified apart.
        assert.isAtMost(perTurn, 8.5, `commits per turn: ${perTurn}`)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a webhook registered on another node between two turns of a task gets the next turn's events",
    () =>
      Effect.gen(function*() {
        const url = yield* freshDatabaseUrl
        const receiver = yield* Receiver.make
        const first = yield* node(url)
        const second = yield* node(url)
        const ctx = ctxFor(principal())
        // Saved with no webhook: this node knows the task has none.
        const asked = yield* taskOf(yield* first.sendMessage(send("ask"), ctx))
        assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
        yield* second.createTaskPushNotificationConfig({ taskId: asked.id, url: receiver.url("/later") }, ctx)
        const done = yield* taskOf(yield* first.sendMessage(send("Ada", { taskId: asked.id }), ctx))
        assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
        yield* receiver.waitFor("/later", 2)
        const states = receiver.on("/later").flatMap((r) => {
          const body = JSON.parse(r.body) as { readonly statusUpdate?: { readonly status: { readonly state: string } } }
          return body.statusUpdate === undefined ? [] : [body.statusUpdate.status.state]
        })
        assert.strictEqual(states.at(-1), "TASK_STATE_COMPLETED")
      }).pipe(Effect.scoped),
    60_000
  )
})
