/**
 * What the MCP gateway tests put behind the gateway and in front of it. Behind: our server with the demo agent
 * (bearer-secured, so the gateway's credentials are needed), the official SDK's server, and a scripted JSON-RPC
 * agent for what neither does on request (auth-required, a stream that drops mid-task, an agent that never
 * answers). In front: `effect-a2a mcp` spawned from source, reached by the official MCP client over stdio or
 * streamable HTTP.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Effect, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cardFor, rpcId, serve, type TestServer } from "../client/TestServer.ts"
import { BIN } from "../fixtures/ServeProcess.ts"

const frame = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`

interface RpcBody {
  readonly method: string
  readonly params?: { readonly message?: { readonly parts?: ReadonlyArray<{ readonly text?: string }> } }
}

const agentSaid = (status: { readonly state: string }, text: string) => ({
  ...status,
  message: { messageId: `m-${status.state}`, role: "ROLE_AGENT", parts: [{ text }] }
})

/**
 * The scripted agent, by the text it receives: "auth" asks for authorization; "drop" starts a task and ends the
 * stream before it is done (SubscribeToTask then completes it); "break" does the same, but the resubscription
 * fails too; "hang" never answers.
 */
export const scriptedAgent: Effect.Effect<TestServer, never, Scope.Scope> = Effect.gen(function*() {
  let base = ""
  const server = yield* serve((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(cardFor([{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }], {
        name: "Scripted Agent",
        description: "Asks for authorization, drops its stream, or hangs, on request"
      })))
      return
    }
    const id = rpcId(req.body)
    const body = JSON.parse(req.body) as RpcBody
    const text = body.params?.message?.parts?.[0]?.text ?? ""
    const task = (taskId: string, status: object) => ({ task: { id: taskId, contextId: "c1", status } })
    if (text === "hang") return // never answered; the connection is dropped when the server closes
    res.writeHead(200, { "content-type": "text/event-stream" })
    if (body.method === "SubscribeToTask") {
      if (req.body.includes("t-break")) return res.destroy()
      res.write(frame(id, task("t-drop", { state: "TASK_STATE_WORKING" })))
      res.end(frame(id, task("t-drop", agentSaid({ state: "TASK_STATE_COMPLETED" }, "resumed and done"))))
      return
    }
    if (text === "auth") {
      res.end(frame(id, task("t-auth", agentSaid({ state: "TASK_STATE_AUTH_REQUIRED" }, "Sign in at the portal"))))
      return
    }
    res.end(frame(id, task(text === "break" ? "t-break" : "t-drop", { state: "TASK_STATE_WORKING" })))
  })
  base = server.url
  return server
})

/** A port nothing listens on (taken, then freed). */
export const freePort: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A settings file for the gateway (in a fresh temporary directory). */
export const settingsFile = (settings: unknown): string => {
  const path = join(mkdtempSync(join(tmpdir(), "mcp-gateway-")), "settings.json")
  writeFileSync(path, JSON.stringify(settings))
  return path
}

export interface Gateway {
  readonly client: Client
  /** What the gateway wrote on stderr so far. */
  readonly stderr: () => string
}

/** A tool result as the 2025 protocols have it. */
export interface ToolResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly isError?: boolean | undefined
  readonly structuredContent?: unknown
}

/** The result's text blocks, one per line. */
export const text = (result: ToolResult): string => result.content.map((block) => block.text ?? "").join("\n")

/**
 * Every message each client received, in wire order. The SDK client (v1) dispatches notifications a microtask
 * later than responses, so progress that arrives just before a call's result is dropped by it (typescript-sdk
 * #2580); what the gateway sent is read here instead.
 */
const wires = new WeakMap<Client, Array<unknown>>()

/** A client connected over `transport`, for the scope, its incoming messages recorded. */
export const connected = (transport: StdioClientTransport | StreamableHTTPClientTransport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "gateway-test", version: "1.0.0" })
      await client.connect(transport)
      const wire: Array<unknown> = []
      const deliver = transport.onmessage!
      transport.onmessage = (message: JSONRPCMessage) => {
        wire.push(message)
        deliver(message)
      }
      wires.set(client, wire)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

interface ProgressNotification {
  readonly method: "notifications/progress"
  readonly params: { readonly progressToken: string | number; readonly message?: string }
}

const isProgress = (message: unknown): message is ProgressNotification =>
  (message as { readonly method?: unknown }).method === "notifications/progress"

/**
 * A tool call. With `progress`, the call asks for progress and the messages of the notifications the gateway
 * sent for it are pushed there (as received, whether or not the SDK client got to deliver them).
 */
export const call = (
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { readonly progress?: Array<string> } = {}
) =>
  Effect.promise(async () => {
    const wire = wires.get(client)!
    const since = wire.length
    const result = await client.callTool({ name, arguments: args }, undefined, {
      ...(options.progress !== undefined ? { onprogress: () => {} } : {}),
      timeout: 20_000
    }) as ToolResult
    options.progress?.push(...wire.slice(since).filter(isProgress).map((n) => n.params.message ?? ""))
    return result
  })

/** `effect-a2a mcp args...` spawned by the MCP client over stdio. */
export const overStdio = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {}
): Effect.Effect<Gateway, never, Scope.Scope> =>
  Effect.gen(function*() {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", ...args],
      env: { ...process.env as Record<string, string>, ...env },
      stderr: "pipe"
    })
    let stderr = ""
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const client = yield* connected(transport)
    return { client, stderr: () => stderr }
  })

/** `effect-a2a args...` as a child process (killed with the scope), once its stderr matched `listening`. */
export const spawnCli = (
  args: ReadonlyArray<string>,
  listening: RegExp,
  env: Record<string, string> = {}
): Effect.Effect<
  { readonly match: string; readonly output: () => string; readonly child: ChildProcess },
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
    )
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    for (let i = 0; i < 1500; i++) {
      const match = listening.exec(output)?.[1]
      if (match !== undefined) return { match, output: () => output, child }
      if (child.exitCode !== null) return yield* Effect.die(new Error(`${args[0]} exited: ${output}`))
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`${args[0]} did not start: ${output}`))
  })

/** `effect-a2a mcp args... --http 0` as a child process, reached over streamable HTTP at its `/mcp`. */
export const overHttp = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {}
): Effect.Effect<Gateway & { readonly url: string; readonly child: ChildProcess }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { child, match: url, output } = yield* spawnCli(
      ["mcp", ...args, "--http", "0"],
      /MCP gateway listening on (\S+)/,
      env
    )
    const client = yield* connected(new StreamableHTTPClientTransport(new URL(url)))
    return { client, url, stderr: output, child }
  })
