/**
 * The official SDK's server (@a2a-js/sdk on express 5) as its README sets one up: an AgentExecutor publishing to
 * the ExecutionEventBus, DefaultRequestHandler over an InMemoryTaskStore, the agent card, JSON-RPC and HTTP+JSON
 * handlers mounted on an express app. Plain JavaScript, run with plain `node`. The agent echoes text; a message
 * that starts with `task` makes a task that completes (for GetTask). PORT picks the port.
 */
import { AgentCard, Role, TaskState } from "@a2a-js/sdk"
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import express from "express"
import { randomUUID } from "node:crypto"

const port = Number(process.env["PORT"] ?? 8080)
const origin = `http://127.0.0.1:${port}`

const textPart = (text) => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: ""
})

const textOf = (message) =>
  message.parts.map((part) => part.content?.$case === "text" ? part.content.value : "").join("")

const now = () => new Date().toISOString()

const executor = {
  execute: async (ctx, bus) => {
    const text = textOf(ctx.userMessage)
    if (!text.startsWith("task")) {
      bus.publish(AgentEvent.message({
        messageId: randomUUID(),
        contextId: ctx.contextId,
        taskId: "",
        role: Role.ROLE_AGENT,
        parts: [textPart(text)],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: []
      }))
      return
    }
    bus.publish(AgentEvent.task({
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined
    }))
    bus.publish(AgentEvent.artifactUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      artifact: {
        artifactId: "result",
        name: "",
        description: "",
        parts: [textPart(text)],
        metadata: undefined,
        extensions: []
      },
      append: false,
      lastChunk: true,
      metadata: undefined
    }))
    bus.publish(AgentEvent.statusUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
      metadata: undefined
    }))
  },
  cancelTask: async () => {}
}

const card = AgentCard.fromJSON({
  name: "Echo agent",
  description: "Repeats what you say",
  supportedInterfaces: [
    { url: `${origin}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: `${origin}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }
  ],
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
})

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)

const app = express()
app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: requestHandler }))
app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }))
app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }))
app.listen(port, "127.0.0.1", () => console.log(`listening on ${origin}`))
