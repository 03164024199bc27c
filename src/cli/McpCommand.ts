/**
 * `effect-a2a mcp URL... [--http PORT] [--settings FILE]`: the MCP gateway (McpGateway) as a command: the agents
 * at the URLs (and those of the settings file) served as MCP tools over stdio, what an MCP client spawning the
 * command talks to, or over streamable HTTP at `/mcp` with `--http`. What it does lives in McpGatewayRun, loaded
 * when the command runs.
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Option from "effect/Option"
import { strictFlag } from "./GatewayCommand.ts"

const runModule = Effect.promise(() => import("./McpGatewayRun.ts"))

/**
 * `effect-a2a mcp`: serves A2A agents as the tools of an MCP server.
 *
 * @since 0.1.0
 * @category commands
 */
export const mcpCommand = Command.make(
  "mcp",
  {
    urls: Argument.String("url").pipe(
      Argument.withDescription("The A2A agents to serve: base URLs (or card URLs); more may come from --settings"),
      Argument.variadic()
    ),
    http: Flag.Int("http").pipe(
      Flag.withDescription("Serve streamable HTTP at /mcp on this port instead of stdio (0 picks a free port)"),
      Flag.filter((n) => n >= 0 && n <= 65535, (n) => `--http must be between 0 and 65535, got ${n}`),
      Flag.optional
    ),
    host: Flag.String("host").pipe(
      Flag.withDescription("With --http: the address to listen on (default 127.0.0.1)"),
      Flag.optional
    ),
    settings: Flag.String("settings").pipe(
      Flag.withDescription(
        "A JSON file of agents and their credentials by security scheme name (default: A2A_MCP_SETTINGS)"
      ),
      Flag.optional
    ),
    refresh: Flag.Finite("refresh").pipe(
      Flag.withDescription("Seconds between re-reads of the agents' cards; default 60"),
      Flag.filter((n) => n > 0, (n) => `--refresh must be a positive number of seconds, got ${n}`),
      Flag.optional
    ),
    timeout: Flag.Finite("timeout").pipe(
      Flag.withDescription("Seconds to wait for a card, and for an agent to answer a request; default 10"),
      Flag.filter((n) => n > 0, (n) => `--timeout must be a positive number of seconds, got ${n}`),
      Flag.optional
    ),
    callTimeout: Flag.Finite("call-timeout").pipe(
      Flag.withDescription("Seconds a tool call may run before its A2A task is canceled; default 600"),
      Flag.filter((n) => n > 0, (n) => `--call-timeout must be a positive number of seconds, got ${n}`),
      Flag.optional
    ),
    strict: strictFlag
  },
  (flags) =>
    Effect.flatMap(runModule, (m) =>
      m.run({
        urls: flags.urls,
        http: Option.getOrUndefined(flags.http),
        host: Option.getOrUndefined(flags.host),
        settings: Option.getOrUndefined(flags.settings),
        refresh: Option.getOrUndefined(flags.refresh),
        timeout: Option.getOrUndefined(flags.timeout),
        callTimeout: Option.getOrUndefined(flags.callTimeout),
        strict: flags.strict
      }))
).pipe(
  Command.withDescription("Serve A2A agents as MCP tools (an MCP gateway), over stdio or streamable HTTP"),
  Command.withExamples([
    { command: "effect-a2a mcp http://localhost:8080", description: "One agent, over stdio (for an MCP client)" },
    {
      command: "effect-a2a mcp http://localhost:8080 https://agent.example.com --http 3000",
      description: "Two agents, at http://127.0.0.1:3000/mcp"
    },
    { command: "effect-a2a mcp --settings agents.json", description: "The agents and credentials of a file" }
  ]),
  Command.provide(FetchHttpClient.layer)
)
