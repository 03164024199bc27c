/**
 * A library user's server, as docs/serving.md and examples/durable-agent.ts show it: an Effect program on the
 * public entry points, importing Effect and the platform by module (ours-barrels.js: the same through the barrels) (effect-a2a/node, effect-a2a/sql, effect-a2a/server, imported by name from the built package),
 * `NodeA2AServer.serve` over `DurableServer.layerConfig` (tasks in an SQLite file under A2A_DATA_DIR), run with
 * plain `node`. Plain JavaScript, as an application ships after its build. The agent echoes text; a message that
 * starts with `task` makes a task that completes (for GetTask).
 *
 * PORT picks the port. LIBRARY_LOW_MEMORY=true turns on `NodeA2AServer.serve`'s `lowMemory` switch.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { NodeA2AServer, WebhookPush } from "effect-a2a/node"
import { AgentExecutor } from "effect-a2a/server"
import { DurableServer } from "effect-a2a/sql"
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
const lowMemory = process.env["LIBRARY_LOW_MEMORY"] === "true"

NodeA2AServer.serve(lowMemory ? { port, lowMemory } : { port }).pipe(
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
    executor,
    push: WebhookPush.layerConfig
  })),
  Layer.launch,
  NodeRuntime.runMain
)
