// The echo agent on your own router, beside the app's own /health route, on http://127.0.0.1:$PORT (default 8080):
// A2A at /a2a/rpc (JSON-RPC) and /a2a (REST); the card stays at /.well-known/agent-card.json.
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { A2AHttp } from "effect-a2a/http"
import { A2AServer, AgentExecutor } from "effect-a2a/server"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"

const app = Layer.mergeAll(
  A2AHttp.routes({ jsonRpcPath: "/a2a/rpc", restPath: "/a2a" }),
  HttpRouter.add("GET", "/health", HttpServerResponse.text("ok"))
).pipe(
  Layer.provide(A2AServer.layer({
    card: {
      name: "Echo agent",
      description: "Repeats what you say",
      version: "1.0.0",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
    },
    executor: AgentExecutor.replyWithText((text) => `You said: ${text}`)
  }))
)

HttpRouter.serve(app).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: Number(process.env["PORT"] ?? 8080) })),
  Layer.launch,
  NodeRuntime.runMain
)
