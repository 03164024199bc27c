/**
 * What the servers built with the official SDK (@a2a-js/sdk + express) share: the agent they run and how they
 * listen. The agent answers by the text it receives:
 * - "task": a task that goes submitted -> working -> two artifact chunks -> completed;
 * - "wait": a task that stays working until it is canceled;
 * - anything else: a direct Message "echo: <text>".
 */
import { Message as SdkMessage, Task as SdkTask, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk"
import { AgentEvent, type AgentExecutor } from "@a2a-js/sdk/server"
import { Effect, type Scope } from "effect"
import express from "express"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import type * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import { taskOf } from "../client/Results.ts"

const textOf = (
  parts: ReadonlyArray<{ readonly content?: { readonly $case: string; readonly value: unknown } | undefined }>
) => parts.map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("")

/** `completedMessage`: the text of the agent message on the completed status, if any. */
export const executor = (options: { readonly completedMessage?: string } = {}): AgentExecutor => {
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
        const chunk = (chunkText: string, append: boolean, lastChunk: boolean) =>
          AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({
            ...ids,
            append,
            lastChunk,
            artifact: { artifactId: "result", name: "result", parts: [{ text: chunkText }] }
          }))
        bus.publish(chunk("Hello, ", false, false))
        bus.publish(chunk("world", true, true))
        bus.publish(status("TASK_STATE_COMPLETED", options.completedMessage))
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

/** Our client starts a "wait" task (returned at once, working until canceled). */
export const startWaitingTask = (client: A2AClient.A2AClientShape) =>
  Effect.flatMap(client.sendMessage({ message: userText("wait"), configuration: { returnImmediately: true } }), taskOf)

/**
 * An express app on 127.0.0.1 and an ephemeral port for the scope: `routes` mounts its handlers once the base
 * URL (e.g. http://127.0.0.1:1234) is known. Closing the scope stops it and drops open connections.
 */
export const listen = <A>(
  routes: (app: express.Express, url: string) => A
): Effect.Effect<A, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.callback<{ readonly server: Server; readonly value: A }>((resume) => {
        const app = express()
        const server = app.listen(0, "127.0.0.1", () => {
          const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
          resume(Effect.succeed({ server, value: routes(app, url) }))
        })
      }),
      ({ server }) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    ),
    ({ value }) => value
  )
