/**
 * effect-a2a's server (A2AServer.layer over the memory stores, NodeA2AServer.serve on Node) running the
 * trivial agent, written the way a user would: AgentExecutor.make + the TaskUpdater helpers.
 *
 * With BENCH_STORE=sqlite (or sqlite-full) it runs what `effect-a2a serve` runs instead: DurableServer over a
 * SQLite file in a fresh temporary directory (removed at exit), with `synchronous=NORMAL` (or FULL).
 */
// A subpath import: the package barrel loads every Node module (Redis, undici, ws...) into the process.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as NetAddress from "effect/net/NetAddress"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as WebhookPush from "../../src/node/push/WebhookPush.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as DurableServer from "../../src/sql/DurableServer.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { AGENT_CARD_PATH, JSONRPC_PATH, RELEASE_MEMORY_ENV, REST_PATH } from "../TrivialAgent.ts"
import { announce, installAllocationSampler, installGcOnSignal, installProfiler } from "./lifecycle.ts"
import { card } from "./oursAgent.ts"
import { executor } from "./oursLlm.ts"

// BENCH_RECEIPTS=0: no message receipts (an idempotency window of zero), to see what keeping them costs.
const noReceipts = process.env.BENCH_RECEIPTS === "0" ? { idempotencyWindow: 0 } : {}

// BENCH_A2A11=1: the A2A 1.1 draft on, with long polls held up to 10 minutes (bench/longPoll.ts).
const draft = process.env.BENCH_A2A11 === "1" ? { a2a11: { maxWait: "10 minutes" } } as const : {}

const core = (() => {
  const store = process.env.BENCH_STORE
  if (store !== "sqlite" && store !== "sqlite-full") return A2AServer.layer({ card, executor, ...noReceipts, ...draft })
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "a2a-bench-"))
  process.on("exit", () => Fs.rmSync(dir, { recursive: true, force: true }))
  return DurableServer.layerWithStores(
    SqlStore.layerSqlite({
      filename: Path.join(dir, "a2a.db"),
      synchronous: store === "sqlite-full" ? "FULL" : "NORMAL",
      ...noReceipts
    }),
    { card, executor, push: WebhookPush.layerConfig }
  )
})()

const announceOrigin = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  if (NetAddress.isInetAddress(address)) {
    yield* Effect.sync(() => announce(`http://127.0.0.1:${address.port}`))
  }
}))

const main = announceOrigin.pipe(
  Layer.provideMerge(NodeA2AServer.serve({
    host: "127.0.0.1",
    port: 0,
    jsonRpcPath: JSONRPC_PATH,
    restPath: REST_PATH,
    cardPath: AGENT_CARD_PATH,
    // gRPC beside HTTP, on a free port the card lists
    grpcPort: 0,
    // Open SSE streams must not hold the process on SIGTERM.
    shutdownTimeout: 0,
    releaseMemoryWhenIdle: process.env[RELEASE_MEMORY_ENV] !== "false",
    // BENCH_API_DOCS=0: no OpenAPI document nor its page (serve's `--no-api-docs`), to see what mounting them costs.
    apiDocs: process.env.BENCH_API_DOCS !== "0"
  })),
  Layer.provide(core)
)

// runMain turns SIGTERM/SIGINT into interruption: the server closes and the process exits normally
// (which is when `--cpu-prof` writes its profile).
installProfiler()
installAllocationSampler()
installGcOnSignal()
Layer.launch(main).pipe(NodeRuntime.runMain)
