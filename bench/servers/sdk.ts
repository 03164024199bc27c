/**
 * The official SDK's server (@a2a-js/sdk 1.3 on express 5): DefaultRequestHandler with an
 * InMemoryTaskStore, JSON-RPC + REST + agent card handlers, running the trivial agent.
 */
import { AgentCard, type Message, type Part, Role, TaskState } from "@a2a-js/sdk"
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext
} from "@a2a-js/sdk/server"
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from "@a2a-js/sdk/server/grpc"
import * as grpc from "@grpc/grpc-js"
import express from "express"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
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
import {
  announce,
  exitOnSignal,
  installAllocationSampler,
  installGcOnSignal,
  installProfiler,
  listen
} from "./lifecycle.ts"

const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: ""
})

const textOf = (message: Message): string =>
  message.parts.map((part) => part.content?.$case === "text" ? part.content.value : "").join("")

const now = () => new Date().toISOString()

const publishStatus = (bus: ExecutionEventBus, ctx: RequestContext, state: TaskState) =>
  bus.publish(AgentEvent.statusUpdate({
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    status: { state, message: undefined, timestamp: now() },
    metadata: undefined
  }))

const publishChunk = (bus: ExecutionEventBus, ctx: RequestContext, text: string, append: boolean, last: boolean) =>
  bus.publish(AgentEvent.artifactUpdate({
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    artifact: {
      artifactId: ARTIFACT_ID,
      name: "",
      description: "",
      parts: [textPart(text)],
      metadata: undefined,
      extensions: []
    },
    append,
    lastChunk: last,
    metadata: undefined
  }))

/** The `hold` executions waiting for their task to be canceled, by task id. */
const held = new Map<string, () => void>()

const executor: AgentExecutor = {
  execute: async (ctx, bus) => {
    const text = textOf(ctx.userMessage)
    const behaviour = behaviourOf(text)
    if (behaviour === "echo") {
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
    switch (behaviour) {
      case "task":
        publishChunk(bus, ctx, text, false, true)
        publishStatus(bus, ctx, TaskState.TASK_STATE_COMPLETED)
        return
      case "stream":
        for (let i = 0; i < STREAM_CHUNKS; i++) {
          publishChunk(bus, ctx, chunkText(i), i > 0, i === STREAM_CHUNKS - 1)
        }
        publishStatus(bus, ctx, TaskState.TASK_STATE_COMPLETED)
        return
      case "wait":
        publishStatus(bus, ctx, TaskState.TASK_STATE_INPUT_REQUIRED)
        return
      case "hold":
        publishStatus(bus, ctx, TaskState.TASK_STATE_WORKING)
        return new Promise<void>((resolve) => held.set(ctx.taskId, resolve))
    }
  },
  cancelTask: async (taskId, bus) => {
    held.get(taskId)?.()
    held.delete(taskId)
    bus.publish(AgentEvent.statusUpdate({
      taskId,
      contextId: "",
      status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
      metadata: undefined
    }))
  }
}

const app = express()
const server = Http.createServer(app)
const origin = await listen(server)

// gRPC beside HTTP (the SDK's own gRPC service), on a free port the card lists
const grpcServer = new grpc.Server()
const grpcPort = await new Promise<number>((resolve, reject) =>
  grpcServer.bindAsync(
    "127.0.0.1:0",
    grpc.ServerCredentials.createInsecure(),
    (error, port) => error === null ? resolve(port) : reject(error)
  )
)

const requestHandler = new DefaultRequestHandler(
  AgentCard.fromJSON(agentCardJson(origin, `127.0.0.1:${grpcPort}`)),
  new InMemoryTaskStore(),
  executor
)
app.use(AGENT_CARD_PATH, agentCardHandler({ agentCardProvider: requestHandler }))
app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }))
app.use(REST_PATH, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }))
grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }))

installProfiler()
installAllocationSampler()
installGcOnSignal()
exitOnSignal(server)
announce(origin)
