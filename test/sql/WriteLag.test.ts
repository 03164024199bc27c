/**
 * The SQLite store pushes back (issue #44): while its writer is further behind than `maxWriteLag` (here a
 * transaction holds it, so the writes after it wait), a new send is refused at once with UNAVAILABLE: REST 503 with
 * `Retry-After` (SendMessage and SendStreamingMessage), JSON-RPC -32603 with the reason UNAVAILABLE, gRPC
 * UNAVAILABLE. Reads are still answered. Once the writer is free, the
 * send that was waiting completes and new sends are taken again.
 *
 * And a cancel does not wait for the writer's backlog: the save its task's execution has in flight, which the cancel
 * waits for, and the task's end are written ahead of the other writes waiting (TaskStore.hurry).
 */
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { ConfigProvider, Context, Deferred, Duration, Effect, Fiber, Layer, Logger, Schedule } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as DurableServer from "../../src/sql/DurableServer.ts"
import * as SqliteClient from "../../src/sql/SqliteClient.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import * as WebPush from "../../src/web/WebPush.ts"
import { encode, reasonOf, unary } from "../grpc/fixtures.ts"

const HEADERS = { "a2a-version": "1.0", "content-type": "application/json" }

interface Answer {
  readonly status: number
  readonly retryAfter: string | null
  readonly body: string
}

const post = (url: string, body: unknown): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const res = await fetch(url, { method: "POST", headers: HEADERS, body: JSON.stringify(body) })
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.text() }
  })

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] })

/** A REST SendMessage of a direct reply (the demo agent echoes): a receipt is written and answered. */
const restSend = (base: string) => post(`${base}/message:send`, { message: message("hello") })

const jsonRpcSend = (base: string) =>
  post(`${base}/`, { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: message("hello") } })

const server = (agent: DemoAgent.DemoOptions = {}) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-write-lag-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const stores = yield* Layer.build(
      SqlStore.layerSqlite({ filename: join(dir, "a2a.db"), maxWriteLag: "200 millis" })
    )
    const served = yield* Layer.build(
      NodeA2AServer.layerConfig({ host: "127.0.0.1", port: 0 }).pipe(
        Layer.provide(
          DurableServer.layerWithStores(Layer.succeedContext(stores), {
            card: DemoAgent.card,
            executor: DemoAgent.make(agent),
            push: WebPush.layer()
          })
        ),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ A2A_GRPC_PORT: "0" }))),
        Layer.provide(Logger.layer([]))
      )
    )
    const address = Context.get(served, HttpServer.HttpServer).address
    const port = NetAddress.isInetAddress(address) ? address.port : 0
    const base = `http://127.0.0.1:${port}`
    const card = yield* Effect.promise(() =>
      fetch(`${base}/.well-known/agent-card.json`).then((r) =>
        r.json() as Promise<{ supportedInterfaces: ReadonlyArray<{ protocolBinding: string; url: string }> }>
      )
    )
    const grpcTarget = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")?.url ?? ""
    return {
      base,
      grpcTarget,
      sql: Context.get(stores, SqlClient.SqlClient),
      client: Context.get(stores, SqliteClient.SqliteClient)
    }
  })

describe("SQLite write lag: new work is refused while the writer is behind", () => {
  it.live("503 with Retry-After (REST) and UNAVAILABLE (JSON-RPC, gRPC) past maxWriteLag, then recovery", () =>
    Effect.gen(function*() {
      const { base, grpcTarget, sql } = yield* server()
      assert.strictEqual((yield* restSend(base)).status, 200, "taken while the writer keeps up")

      // A transaction holds the writer: the next send's receipt waits for it, and the writer falls behind.
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(sql.withTransaction(Deferred.await(release)))
      yield* Effect.sleep("20 millis")
      const waiting = yield* Effect.forkChild(restSend(base))
      yield* Effect.sleep("400 millis")

      const refused = yield* restSend(base)
      assert.strictEqual(refused.status, 503, refused.body)
      assert.strictEqual(refused.retryAfter, "1")
      const stream = yield* post(`${base}/message:stream`, { message: message("slow") })
      assert.strictEqual(stream.status, 503, stream.body)
      assert.strictEqual(stream.retryAfter, "1")
      const rpc = yield* jsonRpcSend(base)
      assert.strictEqual(rpc.status, 200)
      const error = (JSON.parse(rpc.body) as { error?: { code: number; data?: unknown } }).error
      assert.strictEqual(error?.code, -32603)
      assert.include(JSON.stringify(error?.data), "UNAVAILABLE")
      const overGrpc = yield* unary(grpcTarget, "SendMessage", encode("SendMessage", { message: message("hello") }))
      assert.strictEqual(overGrpc.code, grpc.status.UNAVAILABLE, overGrpc.details)
      assert.strictEqual(reasonOf(overGrpc), "UNAVAILABLE")
      // Reads do not wait for the writer.
      const card = yield* Effect.promise(() => fetch(`${base}/.well-known/agent-card.json`))
      assert.strictEqual(card.status, 200)

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      assert.strictEqual((yield* Fiber.join(waiting)).status, 200, "the send that waited completes")
      const again = yield* restSend(base)
      assert.strictEqual(again.status, 200, again.body)
      assert.strictEqual((yield* jsonRpcSend(base)).body.includes("\"error\""), false)
    }).pipe(Effect.scoped))

  it.live("a cancel under a backlog of saves answers before the backlog is written, and the task stays canceled", () =>
    Effect.gen(function*() {
      const { base, client, sql } = yield* server({ stepDelay: Duration.millis(20) })
      const sent = yield* post(`${base}/message:send`, {
        message: message("slow"),
        configuration: { returnImmediately: true }
      })
      const taskId = (JSON.parse(sent.body) as { task: { id: string } }).task.id
      const stateOf = Effect.promise(() =>
        fetch(`${base}/tasks/${taskId}`, { headers: HEADERS }).then((r) =>
          r.json() as Promise<{ status: { state: string } }>
        )
      ).pipe(Effect.map((task) => task.status.state))
      yield* stateOf.pipe(
        Effect.filterOrFail((state) => state === "TASK_STATE_WORKING"),
        Effect.retry({ schedule: Schedule.spaced("10 millis"), times: 200 })
      )

      // 40 slow routine writes: the task's next status save waits behind them (a running task's saves are routine).
      yield* sql`CREATE TABLE backlog (id INTEGER PRIMARY KEY, n INTEGER)`
      let written = 0
      const slow = (id: number) =>
        client.writeAtomically(
          sql`INSERT INTO backlog (id, n) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c
            WHERE i < 100000) SELECT ${id}, MAX(i) FROM c`
        ).pipe(Effect.andThen(Effect.sync(() => written++)))
      const backlog = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 40 }, (_, i) => i), slow, { concurrency: "unbounded" })
      )
      yield* Effect.sleep("100 millis")

      const canceled = yield* post(`${base}/tasks/${taskId}:cancel`, {})
      const writtenBefore = written
      assert.strictEqual(canceled.status, 200, canceled.body)
      assert.strictEqual(
        (JSON.parse(canceled.body) as { status: { state: string } }).status.state,
        "TASK_STATE_CANCELED"
      )
      // Its save in flight and its end went ahead of the backlog (without that, the cancel waited for all 40).
      assert.isBelow(writtenBefore, 20, `the cancel answered after ${writtenBefore} of the 40 backlog writes`)
      assert.strictEqual(yield* stateOf, "TASK_STATE_CANCELED")
      yield* Fiber.join(backlog)
      yield* Effect.sleep("100 millis")
      assert.strictEqual(yield* stateOf, "TASK_STATE_CANCELED", "a terminal state never changes")
    }).pipe(Effect.scoped))
})
