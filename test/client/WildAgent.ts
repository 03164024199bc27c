/**
 * An A2A 0.3 agent with the faults of agents in the wild, on node:http (127.0.0.1, ephemeral port, closed with the
 * scope), shaped after what VoltAgent's A2A server (@voltagent/a2a-server 2.0.3 behind @voltagent/server-hono) puts
 * on the wire: its card has no `protocolVersion` and no `description`; its Task results (message/send, tasks/get,
 * every message/stream event) have no `kind`; each SSE event is `data: ` then U+001E then the JSON-RPC response.
 * `fixed` serves the same agent with none of these faults, so a test can tell the repairs apart.
 */
import { Effect, type Scope } from "effect"
import type { ServerResponse } from "node:http"
import { json, rpcId, serve, type TestServer } from "./TestServer.ts"

export interface WildAgentOptions {
  /** Serve the card with protocolVersion and description (default false). */
  readonly fixedCard?: boolean | undefined
  /** Give Task results their kind (default false). */
  readonly fixedKind?: boolean | undefined
  /** Frame SSE events without the U+001E (default false). */
  readonly fixedSse?: boolean | undefined
}

const RS = "\u001e"

export const wildAgent = (options: WildAgentOptions = {}): Effect.Effect<TestServer, never, Scope.Scope> => {
  const tasks = new Map<string, Record<string, unknown>>()
  let base = ""
  const taskOf = (id: string, contextId: string, state: string, text: string, user: unknown) => {
    const reply = { kind: "message", role: "agent", messageId: `r-${id}-${state}`, parts: [{ kind: "text", text }] }
    const record: Record<string, unknown> = {
      id,
      contextId,
      history: [user, reply],
      status: { state, timestamp: "2026-01-01T00:00:00.000Z", message: reply },
      ...(options.fixedKind === true ? { kind: "task" } : {})
    }
    tasks.set(id, record)
    return record
  }
  const sse = (res: ServerResponse, id: unknown, results: ReadonlyArray<unknown>) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    for (const result of results) {
      res.write(`data: ${options.fixedSse === true ? "" : RS}${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`)
    }
    res.end()
  }
  return Effect.tap(
    serve((req, res) => {
      if (req.method === "GET" && req.url === "/.well-known/echo/agent-card.json") {
        return json(res, 200, {
          name: "echo",
          ...(options.fixedCard === true ? { description: "Echoes", protocolVersion: "0.3.0" } : {}),
          url: `${base}/a2a/echo`,
          version: "1.0.0",
          capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
          defaultInputModes: ["text"],
          defaultOutputModes: ["text"],
          skills: []
        })
      }
      if (req.method !== "POST" || req.url !== "/a2a/echo") return json(res, 404, "Not Found", "text/plain")
      const body = JSON.parse(req.body) as {
        method: string
        params: { id?: string; message?: { messageId: string; parts: Array<{ text?: string }> } }
      }
      const id = rpcId(req.body)
      if (body.method === "tasks/get") {
        const found = tasks.get(body.params.id ?? "")
        return found === undefined
          ? json(res, 200, { jsonrpc: "2.0", id, error: { code: -32001, message: "Task not found" } })
          : json(res, 200, { jsonrpc: "2.0", id, result: found })
      }
      const message = body.params.message!
      const text = message.parts[0]?.text ?? ""
      const taskId = `t-${message.messageId}`
      const user = { ...message, taskId, contextId: "ctx" }
      if (body.method === "message/send") {
        return json(res, 200, { jsonrpc: "2.0", id, result: taskOf(taskId, "ctx", "completed", `echo: ${text}`, user) })
      }
      if (body.method === "message/stream") {
        return sse(res, id, [
          structuredClone(taskOf(taskId, "ctx", "working", "", user)),
          structuredClone(taskOf(taskId, "ctx", "working", "echo: ", user)),
          structuredClone(taskOf(taskId, "ctx", "completed", `echo: ${text}`, user))
        ])
      }
      return json(res, 200, { jsonrpc: "2.0", id, error: { code: -32601, message: `Unknown method '${body.method}'` } })
    }),
    (server) => Effect.sync(() => (base = server.url))
  )
}

/** The agent's card URL (VoltAgent serves one card per agent, under its id). */
export const cardUrl = (server: TestServer): string => `${server.url}/.well-known/echo/agent-card.json`
