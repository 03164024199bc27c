/**
 * A standalone durable server for the crash test: the stack of app.ts on HTTP, configured from the
 * environment (A2A_DATA_DIR, A2A_DATABASE_URL, A2A_WEBHOOK_ALLOWLIST, ...). Prints `LISTENING <port>`
 * once it accepts connections.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Duration, Effect, Layer } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as A2AHttp from "../../src/server/http/A2AHttp.ts"
import { core } from "./app.ts"

const announce = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  const port = NetAddress.isInetAddress(address) ? address.port : 0
  yield* Effect.sync(() => process.stdout.write(`LISTENING ${port}\n`))
}))

// `--port N` (0 picks a free one).
const portArg = process.argv.indexOf("--port")
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : undefined

const app = announce.pipe(
  Layer.provideMerge(A2AHttp.layerConfig({ port })),
  Layer.provide(core({ stepDelay: Duration.millis(20), slowSteps: 100_000 }))
)

NodeRuntime.runMain(Layer.launch(app))
