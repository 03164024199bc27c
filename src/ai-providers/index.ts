/**
 * effect-a2a/ai-providers: model providers for Effect AI's `LanguageModel` through the Vercel AI SDK's provider
 * interface (`@ai-sdk/provider`): any AI SDK model as a `LanguageModel` (AiSdkLanguageModel), and the
 * `provider:model` specs of `effect-a2a serve --model` (ModelSpec). The provider packages (`@ai-sdk/openai`,
 * `@ai-sdk/anthropic`, `@ai-sdk/openai-compatible`, with their peer `zod`) are optional peers: install the ones
 * you use.
 *
 * @example
 * ```ts
 * import { ModelSpec } from "effect-a2a/ai-providers"
 *
 * // OpenAI's gpt-4o-mini as Effect AI's LanguageModel, the key from OPENAI_API_KEY
 * const model = ModelSpec.layer("openai:gpt-4o-mini")
 * ```
 *
 * @since 0.1.0
 */
export * as AiSdkLanguageModel from "./AiSdkLanguageModel.ts"
export * as ModelSpec from "./ModelSpec.ts"
