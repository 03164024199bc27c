/**
 * effect-a2a LLM agents on `effect/ai`: `LlmAgent` makes an `AgentExecutor` from the `LanguageModel` in context
 * (bring any provider's layer: `@effect/ai-openai`, `@effect/ai-anthropic`, ...; this entry point imports none),
 * with instructions, a `Toolkit`, conversations kept per context, and streaming, asking and failing mapped to
 * A2A. `Caller` gives tools the caller; `AskUser` is the built-in "ask the user" tool; `PromptParts` maps parts.
 *
 * @example
 * ```ts
 * import { LlmAgent } from "effect-a2a/ai"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 *
 * // an LLM agent served over A2A; provide a LanguageModel layer to `server`
 * const server = A2AServer.layer({
 *   card: DemoAgent.card,
 *   executor: LlmAgent.layer({ instructions: "You are a helpful assistant." })
 * })
 * ```
 *
 * @since 0.1.0
 */
export * as AskUser from "./AskUser.ts"
export * as Caller from "./Caller.ts"
export * as LlmAgent from "./LlmAgent.ts"
export * as PromptParts from "./PromptParts.ts"
export * as ScriptedModel from "./ScriptedModel.ts"
