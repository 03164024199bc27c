/**
 * ours.js with the imports docs/serving.md showed before #44: `NodeRuntime` from the `@effect/platform-node` barrel
 * (which loads every module of the platform: Redis, cluster, workers...) and `Effect`, `Layer` from the `effect`
 * barrel (every module of effect). Otherwise the same program: an Effect program on the
 * public entry points (effect-a2a/node, effect-a2a/sql, effect-a2a/server, imported by name from the built package),
 * `NodeA2AServer.serve` over `DurableServer.layerConfig` (tasks in an SQLite file under A2A_DATA_DIR), run with
 * plain `node`. Plain JavaScript, as an application ships after its build. The agent echoes text; a message that
 * starts with `task` makes a task that completes (for GetTask).
 *
 * PORT picks the port.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { NodeA2AServer, WebhookPush } from "effect-a2a/node"
import { AgentExecutor } from "effect-a2a/server"
import { DurableServer } from "effect-a2a/sql"

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
    executor,
    push: WebhookPush.layerConfig
  })),
  Layer.launch,
  NodeRuntime.runMain
)
