/**
 * The A2A 1.1 draft's task generations over the SQL stores: on SQLite the generation survives a restart (a new
 * server on the same file goes on counting from it); on PostgreSQL two server nodes sharing one database see the
 * same generation, and a long-poll GetTask on one node is woken by a change made on the other (PgEventBus), not by
 * polling the store. PostgreSQL needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Logger, Option, type Redacted, type Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as WebhookPush from "../../src/node/push/WebhookPush.ts"
import * as A2A11 from "../../src/server/A2A11.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as DurableServer from "../../src/sql/DurableServer.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import * as StubHandler from "../http/fixtures/StubHandler.ts"
import * as TestServer from "../http/fixtures/TestServer.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl } from "./pg.ts"

// The first message: WORKING with a message, an artifact, input required (generation 4); each later one: input
// required again (one more).
const agent = AgentExecutor.task((task, ctx) =>
  Option.isNone(ctx.task)
    ? Effect.andThen(
      task.working("On it"),
      Effect.andThen(task.artifact({ artifactId: "a-1", parts: [{ text: "first" }] }), task.requireInput("More?"))
    )
    : task.requireInput("And then?")
)

const serve = (stores: Layer.Layer<SqlStore.Services, SqlStore.StoreError>) =>
  Effect.gen(function*() {
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(
        DurableServer.layerWithStores(stores, {
          card: StubHandler.card,
          executor: agent,
          push: WebhookPush.layerConfig
        })
      ),
      Layer.provide(A2A11.layer({ maxWait: "5 seconds" })),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    return `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
  })

interface Task {
  readonly id: string
  readonly generation?: number
}

let sequence = 0
const HEADERS = { "content-type": "application/json", "a2a-version": "1.1" }

const send = (url: string, text: string, taskId?: string) =>
  Effect.map(
    TestServer.request(`${url}/message:send`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({
        message: TestServer.userMessage(text, { messageId: `m-${++sequence}`, ...(taskId ? { taskId } : {}) })
      })
    }),
    (reply) => (reply.json as { task: Task }).task
  )

const get = (url: string, id: string, query = "") =>
  Effect.map(TestServer.request(`${url}/tasks/${id}${query}`, { headers: HEADERS }), (reply) => reply.json as Task)

const inScope = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.scoped(effect)

describe("A2A 1.1 draft generations on SQLite", () => {
  it.live("\"it is initialised to `1` when a task is created\" and survives a restart: a new server counts on", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-11-sqlite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const stores = SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })
      const id = yield* inScope(Effect.gen(function*() {
        const url = yield* serve(stores)
        const task = yield* send(url, "start")
        assert.strictEqual(task.generation, 4)
        assert.strictEqual((yield* send(url, "next", task.id)).generation, 5)
        return task.id
      }))
      yield* inScope(Effect.gen(function*() {
        const url = yield* serve(stores)
        assert.strictEqual((yield* get(url, id)).generation, 5)
        assert.strictEqual((yield* send(url, "again", id)).generation, 6)
        assert.strictEqual((yield* get(url, id)).generation, 6)
      }))
    }).pipe(Effect.scoped))
})

const pgNodes = (url: Redacted.Redacted<string>) =>
  Effect.all([serve(SqlStore.layerPg({ url })), serve(SqlStore.layerPg({ url }))])

if (testDatabaseUrl !== undefined) {
  describe("A2A 1.1 draft generations on PostgreSQL, two nodes", () => {
    it.live(
      "the same generation on every node; a long poll on one node is woken by a change on the other",
      () =>
        Effect.gen(function*() {
          const [a, b] = yield* pgNodes(yield* freshSchemaUrl)
          const task = yield* send(a, "start")
          assert.strictEqual(task.generation, 4)
          assert.strictEqual((yield* get(b, task.id)).generation, 4)
          const started = Date.now()
          const poll = yield* Effect.forkScoped(get(b, task.id, "?currentGeneration=4"))
          yield* Effect.sleep("300 millis")
          assert.isUndefined(poll.pollUnsafe())
          assert.strictEqual((yield* send(a, "next", task.id)).generation, 5)
          const woken = yield* Fiber.join(poll)
          assert.strictEqual(woken.generation, 5)
          // woken by the event, long before the 5-second maxWait
          assert.isBelow(Date.now() - started, 4000)
        }).pipe(Effect.scoped),
      30_000
    )
  })
} else {
  describe("A2A 1.1 draft generations on PostgreSQL, two nodes", () => {
    it.skip(skipReason, () => {})
  })
}
