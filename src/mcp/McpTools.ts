/**
 * The tools of MCP servers as Effect AI tools, through Effect's `McpClient`: connect to a server (a command spoken
 * to over stdio, or a streamable HTTP URL), list its tools, and bind each to a call of it (a `ToolSet`), so an LLM
 * agent's toolkit can hold them beside remote A2A agents (`ToolSet.merge`). A tool that reports an error, or a call
 * that fails or runs out of time, is a failure the model reads (`McpToolError`), not the end of its turn.
 *
 * The connection lives as long as the Scope: closing it ends the server's process (stdio) or session (HTTP).
 *
 * @example
 * ```ts
 * import { McpTools } from "effect-a2a/mcp"
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const tools = yield* McpTools.fromServers([
 *     { command: "node", args: ["weather-server.js"], prefix: "weather" },
 *     { url: "http://127.0.0.1:3000/mcp" }
 *   ])
 *   return Object.keys(tools.toolkit.tools)
 * }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, FetchHttpClient.layer]))
 * ```
 *
 * @since 0.1.0
 */
import * as McpClient from "effect/ai/McpClient"
import type { McpClientError } from "effect/ai/McpClientError"
import * as McpProtocol from "effect/ai/McpProtocol"
import type * as McpSchema from "effect/ai/McpSchema"
import * as Tool from "effect/ai/Tool"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as ChildProcess from "effect/process/ChildProcess"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as CommandLine from "effect/process/CommandLine"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as ToolSet from "./ToolSet.ts"

/**
 * An MCP server started as a command and spoken to over its stdin and stdout.
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioServer {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** Added to the environment the command inherits. */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
}

/**
 * An MCP server at a streamable HTTP URL.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpServer {
  readonly url: string
  /** Sent with every request, e.g. an Authorization header. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * An MCP server whose tools are offered: over stdio or HTTP, with a name prefix and a start-up bound.
 *
 * @since 0.1.0
 * @category models
 */
export type Server = (StdioServer | HttpServer) & {
  /** Put before each tool's name (`prefix__tool`), to tell apart the tools of several servers. */
  readonly prefix?: string | undefined
  /** Bound on the connection's start and on listing its tools. Default 60 seconds. */
  readonly timeout?: Duration.Input | undefined
  /** Bound on each tool call; past it the call is canceled and fails with the reason. Default: none. */
  readonly callTimeout?: Duration.Input | undefined
}

/**
 * Why a call of an MCP tool failed, as the model reads it.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  tool: Schema.String,
  message: Schema.String
}) {}

/** How we tell the servers who we are. */
const CLIENT_INFO = { name: "effect-a2a", version: "0.1.0" } as const

/** The MCP revision spoken: the newest the stateful transports (and the official SDK's servers) share. */
const protocol = McpProtocol.v2025_11_25

/**
 * A stdio server from a command line, e.g. `--mcp-server "npx -y @modelcontextprotocol/server-memory"`.
 *
 * @since 0.1.0
 * @category utils
 */
export const parseCommand = (line: string): Result.Result<StdioServer, CommandLine.CommandLineError> =>
  Result.flatMap(
    // one template part and no values: the line's own quotes group its words
    CommandLine.template(Object.assign([line], { raw: [line] })),
    (words) => {
      const [command, ...args] = words.map((word) => typeof word === "string" ? word : "")
      return command === undefined || command === ""
        ? Result.fail(new CommandLine.CommandLineError({ reason: "InvalidEscape", message: "An empty command" }))
        : Result.succeed({ command, args })
    }
  )

/** The transport to a server, for the Scope. */
const transport = (
  server: Server
): Effect.Effect<McpClient.Transport, McpClientError, Scope.Scope | ChildProcessSpawner | HttpClient.HttpClient> =>
  "url" in server
    ? McpClient.http({ url: server.url, protocol, headers: server.headers })
    : McpClient.stdio({
      command: ChildProcess.make(server.command, server.args ?? [], {
        ...(server.env !== undefined ? { env: server.env, extendEnv: true } : {}),
        ...(server.cwd !== undefined ? { cwd: server.cwd } : {})
      }),
      protocol
    })

/**
 * Connects to a server for the Scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  server: Server
): Effect.Effect<McpClient.McpClient, McpClientError, Scope.Scope | ChildProcessSpawner | HttpClient.HttpClient> =>
  Effect.flatMap(transport(server), (connected) =>
    McpClient.make({ ...CLIENT_INFO, timeout: server.timeout }).pipe(
      Effect.provideService(McpClient.Transport, connected)
    ))

/** What a tool's result says, as text for the model; what is not text is named, not sent. */
const textOf = (result: McpSchema.CallToolResult): string => {
  const parts = result.content.map((block) => {
    switch (block.type) {
      case "text":
        return block.text
      case "resource_link":
        return `${block.title ?? block.name}: ${block.uri}`
      case "resource":
        return "text" in block.resource
          ? block.resource.text
          : `[${block.resource.mimeType ?? "binary"} resource ${block.resource.uri}]`
      default:
        return `[${block.mimeType} ${block.type} omitted]`
    }
  })
  return parts.length === 0 && result.structuredContent !== undefined
    ? JSON.stringify(result.structuredContent)
    : parts.join("\n")
}

const isArguments = (params: unknown): params is Record<string, unknown> =>
  typeof params === "object" && params !== null && !Array.isArray(params)

/**
 * The tools of a connected server, bound to calls of it.
 *
 * @since 0.1.0
 * @category tools
 */
export const toolkit = (
  client: McpClient.McpClient,
  options: Pick<Server, "prefix" | "callTimeout"> = {}
): Effect.Effect<ToolSet.ToolSet, McpClientError | ToolSet.DuplicateToolName> =>
  Effect.flatMap(client.listTools(), (descriptors) =>
    ToolSet.make(descriptors.map((descriptor) => {
      const name = options.prefix !== undefined
        ? ToolSet.qualified(options.prefix, descriptor.name)
        : ToolSet.toolName(descriptor.name)
      const failed = (message: string) => new McpToolError({ tool: descriptor.name, message })
      const tool = Tool.dynamic(name, {
        // the server's own JSON Schema, as it wrote it: it validates the arguments itself
        parameters: descriptor.inputSchema,
        description: descriptor.description ?? descriptor.title ?? descriptor.name,
        success: Schema.String,
        failure: McpToolError,
        failureMode: "return"
      }).annotate(Tool.Strict, false).annotate(Tool.OpenWorld, true)
      const handler: ToolSet.Handler = (params) =>
        !isArguments(params)
          ? Effect.fail(failed("The arguments must be a JSON object"))
          : client.callTool(
            { tool: descriptor, arguments: params },
            options.callTimeout !== undefined ? { timeout: options.callTimeout } : undefined
          ).pipe(
            Effect.mapError((error) => failed(error.message)),
            Effect.flatMap((result) =>
              result.isError === true ? Effect.fail(failed(textOf(result))) : Effect.succeed(textOf(result))
            )
          )
      return { tool, handler }
    })))

/**
 * Connects to a server (for the Scope) and binds its tools.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromServer = (
  server: Server
): Effect.Effect<
  ToolSet.ToolSet,
  McpClientError | ToolSet.DuplicateToolName,
  Scope.Scope | ChildProcessSpawner | HttpClient.HttpClient
> => Effect.flatMap(connect(server), (client) => toolkit(client, server))

/**
 * The tools of several servers as one toolkit (connected one after the other, for the Scope).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromServers = (
  servers: ReadonlyArray<Server>
): Effect.Effect<
  ToolSet.ToolSet,
  McpClientError | ToolSet.DuplicateToolName,
  Scope.Scope | ChildProcessSpawner | HttpClient.HttpClient
> => Effect.flatMap(Effect.forEach(servers, fromServer), (toolkits) => ToolSet.merge(...toolkits))
