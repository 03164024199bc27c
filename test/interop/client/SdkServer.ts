/**
 * A live A2A 1.0 server built with the official SDK (@a2a-js/sdk + express), on 127.0.0.1 and an ephemeral
 * port, as an interop peer for our client. Its agent answers by the text it receives:
 * - "task": a task that goes submitted -> working -> two artifact chunks -> completed;
 * - "wait": a task that stays working until it is canceled;
 * - anything else: a direct Message "echo: <text>".
 */
import {
  AgentCard,
  Message as SdkMessage,
  Task as SdkTask,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent
} from "@a2a-js/sdk"
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore
} from "@a2a-js/sdk/server"
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { Context, Effect, Layer, type Scope } from "effect"
import express from "express"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface SdkServer {
  /** Base URL, e.g. http://127.0.0.1:1234 (the card is at /.well-known/agent-card.json). */
  readonly url: string
  readonly jsonRpcUrl: string
  readonly restUrl: string
}

const textOf = (
  parts: ReadonlyArray<{ readonly content?: { readonly $case: string; readonly value: unknown } | undefined }>
) => parts.map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("")

const makeExecutor = (): AgentExecutor => {
  const waiting = new Map<string, () => void>()
  const contexts = new Map<string, string>()
  return {
    execute: async (ctx, bus) => {
      const text = textOf(ctx.userMessage.parts)
      const ids = { taskId: ctx.taskId, contextId: ctx.contextId }
      contexts.set(ctx.taskId, ctx.contextId)
      const status = (state: string, message?: string) =>
        AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({
          ...ids,
          status: {
            state,
            ...(message !== undefined
              ? {
                message: { messageId: `${ctx.taskId}-${state}`, role: "ROLE_AGENT", parts: [{ text: message }] }
              }
              : {})
          }
        }))
      if (text === "task" || text === "wait") {
        if (ctx.task === undefined) {
          bus.publish(AgentEvent.task(SdkTask.fromJSON({
            id: ctx.taskId,
            contextId: ctx.contextId,
            status: { state: "TASK_STATE_SUBMITTED" },
            history: [SdkMessage.toJSON(ctx.userMessage)]
          })))
        }
        bus.publish(status("TASK_STATE_WORKING"))
        if (text === "wait") {
          await new Promise<void>((resolve) => waiting.set(ctx.taskId, resolve))
          bus.finished()
          return
        }
        const chunk = (text: string, append: boolean, lastChunk: boolean) =>
          AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({
            ...ids,
            append,
            lastChunk,
            artifact: { artifactId: "result", name: "result", parts: [{ text }] }
          }))
        bus.publish(chunk("Hello, ", false, false))
        bus.publish(chunk("world", true, true))
        bus.publish(status("TASK_STATE_COMPLETED", "done"))
        bus.finished()
        return
      }
      bus.publish(AgentEvent.message(SdkMessage.fromJSON({
        messageId: `reply-${ctx.taskId}`,
        contextId: ctx.contextId,
        role: "ROLE_AGENT",
        parts: [{ text: `echo: ${text}` }]
      })))
      bus.finished()
    },
    cancelTask: async (taskId, bus) => {
      bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({
        taskId,
        contextId: contexts.get(taskId) ?? "",
        status: { state: "TASK_STATE_CANCELED" }
      })))
      waiting.get(taskId)?.()
      waiting.delete(taskId)
    }
  }
}

const cardFor = (base: string) =>
  AgentCard.fromJSON({
    name: "SDK Interop Agent",
    description: "An agent built with @a2a-js/sdk for interop tests",
    version: "1.2.3",
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes text", tags: ["echo"] }]
  })

/** Starts the server for the scope; closing the scope stops it (and drops open connections). */
export const start: Effect.Effect<SdkServer, never, Scope.Scope> = Effect.acquireRelease(
  Effect.callback<{ readonly server: Server; readonly url: string }>((resume) => {
    const app = express()
    const server = app.listen(0, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const card = cardFor(url)
      const handler = new DefaultRequestHandler(
        card,
        new InMemoryTaskStore(),
        makeExecutor(),
        undefined,
        new InMemoryPushNotificationStore()
      )
      app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: async () => card }))
      app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
      app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
      resume(Effect.succeed({ server, url }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(
  Effect.map(({ url }) => ({ url, jsonRpcUrl: `${url}/a2a/jsonrpc`, restUrl: `${url}/a2a/rest` }))
)

export class SdkPeer extends Context.Service<SdkPeer, SdkServer>()("test/interop/client/SdkPeer") {
  static readonly layer = Layer.effect(SdkPeer, start)
}
