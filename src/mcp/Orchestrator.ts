/**
 * An LLM agent whose tools are other A2A agents, and the tools of MCP servers: the cards are read (with the client
 * options of each agent: credentials, verification, timeouts), the MCP servers connected, and their tools given
 * to `LlmAgent` beside any tool set of your own. The model delegates by calling the agents' tools; what an agent
 * asks (input-required) comes back to the model with the task id to answer with, and an agent's failure is a tool
 * failure the model reads. The MCP connections live as long as the layer.
 *
 * @example
 * ```ts
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 * import { Orchestrator } from "effect-a2a/mcp"
 * import { ScriptedModel } from "effect-a2a/ai"
 * import { NodeServices } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * // a travel agent delegating to two remote agents; give it any LanguageModel layer (here a scripted one)
 * const executor = Orchestrator.layer({
 *   instructions: "You plan trips. Ask the weather agent, then the booking agent.",
 *   agents: ["http://127.0.0.1:8081", { url: "http://127.0.0.1:8082", credentials: { bearer: "s3cret" } }],
 *   mcpServers: [{ command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }]
 * }).pipe(Layer.provide([ScriptedModel.layer(() => ScriptedModel.text("Paris it is.")), FetchHttpClient.layer, NodeServices.layer]))
 * const server = A2AServer.layer({ card: DemoAgent.card, executor })
 * ```
 *
 * @since 0.1.0
 */
import type * as LanguageModel from "effect/ai/LanguageModel"
import type { McpClientError } from "effect/ai/McpClientError"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as LlmAgent from "../ai/LlmAgent.ts"
import type { A2AResolveError } from "../client/A2AClientError.ts"
import type { AgentExecutor } from "../server/AgentExecutor.ts"
import * as AgentTools from "./AgentTools.ts"
import * as McpTools from "./McpTools.ts"
import * as ToolSet from "./ToolSet.ts"

/**
 * Options of an orchestrator: an LLM agent's options, plus the agents and MCP servers it may delegate to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<A = unknown> extends Omit<LlmAgent.Options<{}, A>, "toolkit"> {
  /** The agents the model may delegate to: one tool each (or one per skill, with `perSkill`). */
  readonly agents?: ReadonlyArray<AgentTools.Agent> | undefined
  /** MCP servers whose tools the model may call. */
  readonly mcpServers?: ReadonlyArray<McpTools.Server> | undefined
  /** More tools of your own, with their handlers. */
  readonly tools?: ToolSet.ToolSet | undefined
}

/**
 * The tools of the agents, of the MCP servers and your own, as one set (for the Scope: the MCP connections).
 *
 * @since 0.1.0
 * @category tools
 */
export const toolSet = (options: Pick<Options, "agents" | "mcpServers" | "tools">) =>
  Effect.gen(function*() {
    const agents = yield* AgentTools.toolkit(options.agents ?? [])
    const mcp = yield* McpTools.fromServers(options.mcpServers ?? [])
    return yield* ToolSet.merge(agents, mcp, ...(options.tools !== undefined ? [options.tools] : []))
  })

/**
 * An LLM agent with a tool set already made (e.g. by `toolSet`).
 *
 * @since 0.1.0
 * @category tools
 */
export const withTools = <A = unknown>(
  options: Omit<Options<A>, "agents" | "mcpServers" | "tools">,
  tools: ToolSet.ToolSet
): Layer.Layer<AgentExecutor, never, LanguageModel.LanguageModel> =>
  LlmAgent.layer({ ...options, toolkit: tools.toolkit }).pipe(Layer.provide(ToolSet.layer(tools)))

/**
 * The orchestrator's executor: `LlmAgent` with the tool set of `options`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <A = unknown>(
  options: Options<A>
): Layer.Layer<
  AgentExecutor,
  A2AResolveError | McpClientError | ToolSet.DuplicateToolName,
  LanguageModel.LanguageModel | HttpClient.HttpClient | ChildProcessSpawner
> => {
  const { agents, mcpServers, tools, ...agent } = options
  return Layer.unwrap(Effect.map(toolSet({ agents, mcpServers, tools }), (set) => withTools(agent, set)))
}
