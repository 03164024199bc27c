/**
 * ours.js over the memory stores (`A2AServer.layer`: tasks and receipts in the process, nothing written), as the
 * SDK's server keeps its tasks: what the same program costs per request without SQLite, so the bench can tell the
 * store's share from the rest. Otherwise the same program: `NodeA2AServer.serve` on the public entry points, the
 * echo agent, a message starting with `task` makes a task that completes. PORT picks the port.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { NodeA2AServer } from "effect-a2a/node"
import { A2AServer, AgentExecutor } from "effect-a2a/server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const echo = AgentExecutor.replyWithText((text) => text)

const completeTask = AgentExecutor.task(Effect.fnUntraced(function*(task, context) {
  yield* task.artifact({ artifactId: "result", parts: [{ text: AgentExecutor.textOf(context.message) }] }, {
    lastChunk: true
  })
  yield* task.complete()
}))

const executor = AgentExecutor.make((context) =>
  AgentExecutor.textOf(context.message).startsWith("task") ? completeTask.execute(context) : echo.execute(context)
)

const port = Number(process.env["PORT"] ?? 8080)

NodeA2AServer.serve({ port }).pipe(
  Layer.provide(A2AServer.layer({
    card: {
      name: "Echo agent",
      description: "Repeats what you say",
      version: "1.0.0",
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
    },
    executor
  })),
  Layer.launch,
  NodeRuntime.runMain
)
