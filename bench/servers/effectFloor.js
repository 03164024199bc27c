// The floor of an Effect server CLI, for bench/startup.ts: what effect, @effect/platform-node's HTTP server and
// effect/cli cost at start with no A2A code. One `serve` command (effect/cli) that serves one route on Node's HTTP
// server through HttpRouter, as `effect-a2a serve` does. Plain JavaScript, so no type stripping is measured.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"

// As the platform does: an ES import of node:http would load Node's undici (see NodeHttpModule.ts).
const http = createRequire(import.meta.url)("node:http")

const serve = Command.make(
  "serve",
  { port: Flag.Int("port").pipe(Flag.withDefault(0)) },
  ({ port }) =>
    HttpRouter.serve(HttpRouter.add("GET", "/", HttpServerResponse.text("ok")), {
      disableLogger: true,
      disableListenLog: true
    }).pipe(
      Layer.provide(NodeHttpServer.layer(() => http.createServer(), { port, host: "127.0.0.1" })),
      Layer.tap(() => Effect.log("floor server listening")),
      Layer.launch
    )
)

Command.make("floor").pipe(
  Command.withSubcommands([serve]),
  Command.run({ version: "0.0.0" }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
