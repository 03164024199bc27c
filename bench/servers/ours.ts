/**
 * effect-a2a's server (A2AServer.layer over the memory stores, NodeA2AServer.serve on Node) running the
 * trivial agent, written the way a user would: AgentExecutor.make + the TaskUpdater helpers.
 */
// A subpath import: the package barrel loads every Node module (Redis, undici, ws...) into the process.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import { AGENT_CARD_PATH, JSONRPC_PATH, REST_PATH } from "../TrivialAgent.ts"
import { announce, installGcOnSignal, installProfiler } from "./lifecycle.ts"
import { card, executor } from "./oursAgent.ts"

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
    // Open SSE streams must not hold the process on SIGTERM.
    shutdownTimeout: 0
  })),
  Layer.provide(A2AServer.layer({ card, executor }))
)

// runMain turns SIGTERM/SIGINT into interruption: the server closes and the process exits normally
// (which is when `--cpu-prof` writes its profile).
installProfiler()
installGcOnSignal()
Layer.launch(main).pipe(NodeRuntime.runMain)
