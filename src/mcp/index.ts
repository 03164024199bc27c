/**
 * effect-a2a/mcp: remote A2A agents as Effect AI tools (`AgentTools`), built on `AgentCall` (one call of a remote
 * agent as a tool makes it); the tools of MCP servers (`McpTools`, through Effect's `McpClient`); both as tool sets
 * (a toolkit and its handlers) for a `LanguageModel` or an LLM agent, merged into one (`ToolSet`); an LLM agent
 * whose tools are other agents and MCP servers (`Orchestrator`). The other way round, the MCP gateway serves A2A
 * agents to MCP clients (`McpGateway`, on Effect's `McpServer`; its agents in an `AgentCatalog`, their credentials
 * from `GatewaySettings`), and `HostedMcp` the hosted agent's own MCP endpoint.
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { AgentCall, AgentTools } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* A2AClient.resolve("http://127.0.0.1:8080")
 *   const outcome = yield* AgentCall.call(client, { text: "task write a report" })
 *   // the same agent as a tool for a model: LanguageModel.generateText({ prompt, toolkit: ToolSet.bind(tools) })
 *   const tools = yield* AgentTools.fromClient(client)
 *   return { outcome, names: Object.keys(tools.toolkit.tools) }
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
export * as AgentCall from "./AgentCall.ts"
export * as AgentCatalog from "./AgentCatalog.ts"
export * as AgentTools from "./AgentTools.ts"
export * as GatewaySettings from "./GatewaySettings.ts"
export * as HostedMcp from "./HostedMcp.ts"
export * as McpGateway from "./McpGateway.ts"
export * as McpTools from "./McpTools.ts"
export * as Orchestrator from "./Orchestrator.ts"
export * as ToolSet from "./ToolSet.ts"
