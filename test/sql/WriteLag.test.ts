/**
 * The SQLite store pushes back (issue #44): while its writer is further behind than `maxWriteLag` (here a
 * transaction holds it, so the writes after it wait), a new send is refused at once with UNAVAILABLE: REST 503 with
 * `Retry-After` (SendMessage and SendStreamingMessage), JSON-RPC -32603 with the reason UNAVAILABLE, gRPC
 * UNAVAILABLE. Reads are still answered. Once the writer is free, the
 * send that was waiting completes and new sends are taken again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { ConfigProvider, Context, Deferred, Effect, Fiber, Layer, Logger } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as DurableServer from "../../src/sql/DurableServer.ts"
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

const server = Effect.gen(function*() {
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
          executor: DemoAgent.make(),
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
  return { base, grpcTarget, sql: Context.get(stores, SqlClient.SqlClient) }
})

describe("SQLite write lag: new work is refused while the writer is behind", () => {
  it.live("503 with Retry-After (REST) and UNAVAILABLE (JSON-RPC, gRPC) past maxWriteLag, then recovery", () =>
    Effect.gen(function*() {
      const { base, grpcTarget, sql } = yield* server
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
})
