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
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import {
  AGENT_CARD_PATH,
  agentCardJson,
  ARTIFACT_ID,
  behaviourOf,
  chunkText,
  JSONRPC_PATH,
  REST_PATH,
  STREAM_CHUNKS
} from "../TrivialAgent.ts"
import { announce, installGcOnSignal, installProfiler } from "./lifecycle.ts"

const echo = AgentExecutor.replyWithText((text) => text)

const oneArtifact = AgentExecutor.task((task, context) =>
  Effect.gen(function*() {
    yield* task.artifact({ artifactId: ARTIFACT_ID, parts: [{ text: AgentExecutor.textOf(context.message) }] }, {
      lastChunk: true
    })
    yield* task.complete()
  })
)

const chunks = AgentExecutor.task((task) =>
  Effect.gen(function*() {
    for (let i = 0; i < STREAM_CHUNKS; i++) {
      yield* task.artifact({ artifactId: ARTIFACT_ID, parts: [{ text: chunkText(i) }] }, {
        append: i > 0,
        lastChunk: i === STREAM_CHUNKS - 1
      })
    }
    yield* task.complete()
  })
)

const waitForInput = AgentExecutor.task((task) => task.status("TASK_STATE_INPUT_REQUIRED"))

const executor = AgentExecutor.make((context) => {
  switch (behaviourOf(AgentExecutor.textOf(context.message))) {
    case "echo":
      return echo.execute(context)
    case "task":
      return oneArtifact.execute(context)
    case "stream":
      return chunks.execute(context)
    case "wait":
      return waitForInput.execute(context)
  }
})

const { supportedInterfaces: _, ...card } = agentCardJson("")

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
    shutdownTimeout: 0
  })),
  Layer.provide(A2AServer.layer({ card, executor }))
)

// runMain turns SIGTERM/SIGINT into interruption: the server closes and the process exits normally
// (which is when `--cpu-prof` writes its profile).
installProfiler()
installGcOnSignal()
Layer.launch(main).pipe(NodeRuntime.runMain)
