/**
 * effect-a2a/mcp: A2A agents as Effect AI tools (`AgentCall`, one call of a remote agent as a tool makes it), and the
 * MCP gateway serving them to MCP clients (`McpGateway`, on Effect's `McpServer`; its agents in an `AgentCatalog`,
 * their credentials from `GatewaySettings`); the hosted agent's own MCP endpoint (`HostedMcp`).
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { AgentCall } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* A2AClient.resolve("http://127.0.0.1:8080")
 *   return yield* AgentCall.call(client, { text: "task write a report" })
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
export * as AgentCall from "./AgentCall.ts"
export * as AgentCatalog from "./AgentCatalog.ts"
export * as GatewaySettings from "./GatewaySettings.ts"
export * as HostedMcp from "./HostedMcp.ts"
export * as McpGateway from "./McpGateway.ts"
