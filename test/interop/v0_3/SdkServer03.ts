/**
 * An A2A 0.3 server built with the official SDK (@a2a-js/sdk's JSON-RPC handler with its v0.3 compatibility
 * layer on), on 127.0.0.1 and an ephemeral port. Its well-known card is a plain 0.3 card served as a 0.3
 * server does (whatever A2A-Version the client sends). The agent answers by the text it receives:
 * - "task": submitted -> working -> two artifact chunks -> completed;
 * - "wait": working until canceled;
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
import { jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { Context, Effect, Layer, type Scope } from "effect"
import express from "express"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface SdkServer03 {
  /** Base URL; the 0.3 card is at /.well-known/agent-card.json. */
  readonly url: string
  readonly jsonRpcUrl: string
  readonly restUrl: string
  /** Headers of every request the JSON-RPC endpoint received, in order. */
  readonly requests: ReadonlyArray<{ readonly headers: Readonly<Record<string, unknown>>; readonly body: unknown }>
}

const textOf = (
  parts: ReadonlyArray<{ readonly content?: { readonly $case: string; readonly value: unknown } | undefined }>
) => parts.map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("")

const executor = (): AgentExecutor => {
  const waiting = new Map<string, () => void>()
  const contexts = new Map<string, string>()
  return {
    execute: async (ctx, bus) => {
      const text = textOf(ctx.userMessage.parts)
      const ids = { taskId: ctx.taskId, contextId: ctx.contextId }
      contexts.set(ctx.taskId, ctx.contextId)
      const status = (state: string) =>
        AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state } }))
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
        const chunk = (chunkText: string, append: boolean, lastChunk: boolean) =>
          AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({
            ...ids,
            append,
            lastChunk,
            artifact: { artifactId: "result", name: "result", parts: [{ text: chunkText }] }
          }))
        bus.publish(chunk("Hello, ", false, false))
        bus.publish(chunk("world", true, true))
        bus.publish(status("TASK_STATE_COMPLETED"))
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

/** The card as a 0.3 server publishes it. */
const card03 = (jsonRpcUrl: string, restUrl: string) => ({
  name: "SDK 0.3 Agent",
  description: "An A2A 0.3 agent built with @a2a-js/sdk",
  version: "0.3.1",
  protocolVersion: "0.3.0",
  url: jsonRpcUrl,
  preferredTransport: "JSONRPC",
  additionalInterfaces: [{ url: jsonRpcUrl, transport: "JSONRPC" }, { url: restUrl, transport: "HTTP+JSON" }],
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes text", tags: ["echo"] }],
  securitySchemes: { none: { type: "http", scheme: "bearer", bearerFormat: "opaque" } }
})

export const start: Effect.Effect<SdkServer03, never, Scope.Scope> = Effect.acquireRelease(
  Effect.callback<{ readonly server: Server; readonly url: string; readonly requests: SdkServer03["requests"] }>(
    (resume) => {
      const app = express()
      const requests: Array<SdkServer03["requests"][number]> = []
      const server = app.listen(0, "127.0.0.1", () => {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        const jsonRpcUrl = `${url}/a2a/jsonrpc`
        const restUrl = `${url}/a2a/rest`
        // The SDK's handler needs its (1.0) card; it is never served here.
        const card = AgentCard.fromJSON({
          ...card03(jsonRpcUrl, restUrl),
          supportedInterfaces: [
            { url: jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
            { url: restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
          ]
        })
        const handler = new DefaultRequestHandler(
          card,
          new InMemoryTaskStore(),
          executor(),
          undefined,
          new InMemoryPushNotificationStore()
        )
        app.get("/.well-known/agent-card.json", (_req, res) => {
          res.json(card03(jsonRpcUrl, restUrl))
        })
        app.use("/a2a/jsonrpc", express.json(), (req, _res, next) => {
          requests.push({ headers: { ...req.headers }, body: req.body as unknown })
          next()
        })
        app.use(
          "/a2a/jsonrpc",
          jsonRpcHandler({
            requestHandler: handler,
            userBuilder: UserBuilder.noAuthentication,
            legacyCompat: { enabled: true }
          })
        )
        app.use(
          "/a2a/rest",
          restHandler({
            requestHandler: handler,
            userBuilder: UserBuilder.noAuthentication,
            legacyCompat: { enabled: true }
          })
        )
        resume(Effect.succeed({ server, url, requests }))
      })
    }
  ),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(
  Effect.map(({ requests, url }) => ({ url, jsonRpcUrl: `${url}/a2a/jsonrpc`, restUrl: `${url}/a2a/rest`, requests }))
)

export class SdkPeer03 extends Context.Service<SdkPeer03, SdkServer03>()("test/interop/v0_3/SdkPeer03") {
  static readonly layer = Layer.effect(SdkPeer03, start)
}
