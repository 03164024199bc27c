// An A2A agent on http://127.0.0.1:8080 that repeats what it is told.
// Effect and the platform by module: their barrels ("effect", "@effect/platform-node") load every module of both.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { NodeA2AServer } from "effect-a2a/node"
import { A2AServer, AgentExecutor } from "effect-a2a/server"
import * as Layer from "effect/Layer"

const agent = AgentExecutor.replyWithText((text) => `You said: ${text}`)

NodeA2AServer.serve({ port: 8080 }).pipe(
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
    executor: agent
  })),
  Layer.launch,
  NodeRuntime.runMain
)
