// The echo agent over the SQL stores on http://127.0.0.1:$PORT (default 8080): tasks and push configs in an SQLite
// file under A2A_DATA_DIR (default ./.a2a-data), or in PostgreSQL when A2A_DATABASE_URL is set, so they outlive a
// restart; webhook push through Node's client, pinned to the addresses the SSRF guard vetted.
// Effect and the platform by module: their barrels ("effect", "@effect/platform-node") load every module of both.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { NodeA2AServer, WebhookPush } from "effect-a2a/node"
import { AgentExecutor } from "effect-a2a/server"
import { DurableServer } from "effect-a2a/sql"
import * as Layer from "effect/Layer"

NodeA2AServer.serve({ port: Number(process.env["PORT"] ?? 8080) }).pipe(
  Layer.provide(DurableServer.layerConfig({
    card: {
      name: "Durable echo agent",
      description: "Repeats what you say, and keeps its tasks",
      version: "1.0.0",
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
    },
    executor: AgentExecutor.replyWithText((text) => `You said: ${text}`),
    push: WebhookPush.layerConfig
  })),
  Layer.launch,
  NodeRuntime.runMain
)
