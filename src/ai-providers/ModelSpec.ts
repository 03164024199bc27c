/**
 * A model named by a `provider:model` spec, as `effect-a2a serve --model` takes it, made into Effect AI's
 * `LanguageModel` through the AI SDK provider packages (loaded only when their provider is asked for):
 * - `openai:MODEL`: OpenAI's Chat Completions (`@ai-sdk/openai`), key `OPENAI_API_KEY`, base URL
 *   `OPENAI_BASE_URL` if set (as OpenAI's own clients read it);
 * - `anthropic:MODEL`: Anthropic's Messages (`@ai-sdk/anthropic`), key `ANTHROPIC_API_KEY`, base URL
 *   `ANTHROPIC_BASE_URL` if set;
 * - `openai-compat:MODEL`: any server that speaks OpenAI's Chat Completions (Ollama, vLLM, llama.cpp, ...;
 *   `@ai-sdk/openai-compatible`) at `OPENAI_BASE_URL` (required), with `OPENAI_API_KEY` if set.
 * A spec that names no such provider, a key or base URL that is missing, or a provider package that is not
 * installed is a `ModelSpecError` whose message is one line saying what to do.
 *
 * @example
 * ```ts
 * import { ModelSpec } from "effect-a2a/ai-providers"
 *
 * // LanguageModel (+ ProviderName, ModelName) for a local Ollama: OPENAI_BASE_URL=http://127.0.0.1:11434/v1
 * const model = ModelSpec.layer("openai-compat:llama3.2")
 * ```
 *
 * @since 0.1.0
 */
import type { LanguageModelV4 } from "@ai-sdk/provider"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as AiModel from "effect/ai/Model"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as AiSdkLanguageModel from "./AiSdkLanguageModel.ts"

/**
 * The spec cannot be served: the message is one line (what is wrong, and what to do).
 *
 * @since 0.1.0
 * @category errors
 */
export class ModelSpecError extends Schema.TaggedError<ModelSpecError>()("ModelSpecError", {
  message: Schema.String
}) {}

/**
 * The model providers a spec may name.
 *
 * @since 0.1.0
 * @category constants
 */
export const providers = ["openai", "anthropic", "openai-compat"] as const
/**
 * A model provider a spec may name.
 *
 * @since 0.1.0
 * @category models
 */
export type Provider = typeof providers[number]

/**
 * A model spec, parsed: the provider and the model's name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Spec {
  readonly provider: Provider
  readonly model: string
}

const isProvider = (name: string): name is Provider => (providers as ReadonlyArray<string>).includes(name)

/**
 * `openai:gpt-4o-mini` -> `{ provider: "openai", model: "gpt-4o-mini" }` (the model may hold colons: `llama3:8b`).
 *
 * @since 0.1.0
 * @category utils
 */
export const parse = (spec: string): Effect.Effect<Spec, ModelSpecError> => {
  const colon = spec.indexOf(":")
  const provider = colon < 0 ? spec : spec.slice(0, colon)
  const model = colon < 0 ? "" : spec.slice(colon + 1)
  if (!isProvider(provider) || model === "") {
    return Effect.fail(
      new ModelSpecError({
        message: `--model ${JSON.stringify(spec)} is not PROVIDER:MODEL with PROVIDER one of ${
          providers.join(", ")
        } (e.g. openai:gpt-4o-mini)`
      })
    )
  }
  return Effect.succeed({ provider, model })
}

/** What a provider needs from the environment. */
interface Settings {
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly baseUrl: Option.Option<string>
}

const optional = (name: string) => Config.option(Config.NonEmptyString(name))

const settingsConfig: Record<Provider, Config.Config<Settings>> = {
  "openai": Config.all({
    apiKey: Config.option(Config.Redacted("OPENAI_API_KEY")),
    baseUrl: optional("OPENAI_BASE_URL")
  }),
  "anthropic": Config.all({
    apiKey: Config.option(Config.Redacted("ANTHROPIC_API_KEY")),
    baseUrl: optional("ANTHROPIC_BASE_URL")
  }),
  "openai-compat": Config.all({
    apiKey: Config.option(Config.Redacted("OPENAI_API_KEY")),
    baseUrl: optional("OPENAI_BASE_URL")
  })
}

const packages: Record<Provider, string> = {
  "openai": "@ai-sdk/openai",
  "anthropic": "@ai-sdk/anthropic",
  "openai-compat": "@ai-sdk/openai-compatible"
}

const firstLine = (text: string): string => text.split("\n", 1)[0]!.trim()

/** Imports a provider package; one that is not installed (or misses its peer zod) says how to install it. */
const load = <A>(spec: string, provider: Provider, importer: () => Promise<A>) =>
  Effect.tryPromise({
    try: importer,
    catch: (error) => {
      const pkg = packages[provider]
      const notFound = Predicate.hasProperty(error, "code") && error.code === "ERR_MODULE_NOT_FOUND"
      const reason = Predicate.isError(error) ? firstLine(error.message) : String(error)
      // the package itself missing needs no more words; a dependency of it missing (its peer zod) is named
      const which = reason.includes(`'${pkg}'`) ? "" : ` (${reason})`
      return new ModelSpecError({
        message: notFound
          ? `--model ${spec} needs the package ${pkg}${which}: npm install ${pkg} zod`
          : `--model ${spec}: loading ${pkg} failed: ${reason}`
      })
    }
  })

const required = <A>(value: Option.Option<A>, spec: string, what: string) =>
  Option.match(value, {
    onNone: () => Effect.fail(new ModelSpecError({ message: `--model ${spec} needs ${what}` })),
    onSome: Effect.succeed
  })

/**
 * The AI SDK model a spec names, with the secrets its errors must not show.
 *
 * @since 0.1.0
 * @category constructors
 */
export const languageModel = (spec: string): Effect.Effect<
  { readonly model: LanguageModelV4; readonly secrets: ReadonlyArray<Redacted.Redacted<string>> },
  ModelSpecError | Config.ConfigError
> =>
  Effect.gen(function*() {
    const { model, provider } = yield* parse(spec)
    const settings = yield* settingsConfig[provider]
    const secrets = Option.toArray(settings.apiKey)
    const baseURL = Option.getOrUndefined(settings.baseUrl)
    switch (provider) {
      case "openai": {
        const apiKey = yield* required(settings.apiKey, spec, "OPENAI_API_KEY (your OpenAI API key)")
        const { createOpenAI } = yield* load(spec, provider, () => import("@ai-sdk/openai"))
        const openai = createOpenAI({ apiKey: Redacted.value(apiKey), ...(baseURL !== undefined ? { baseURL } : {}) })
        return { model: openai.chat(model), secrets }
      }
      case "anthropic": {
        const apiKey = yield* required(settings.apiKey, spec, "ANTHROPIC_API_KEY (your Anthropic API key)")
        const { createAnthropic } = yield* load(spec, provider, () => import("@ai-sdk/anthropic"))
        const anthropic = createAnthropic({
          apiKey: Redacted.value(apiKey),
          ...(baseURL !== undefined ? { baseURL } : {})
        })
        return { model: anthropic.messages(model), secrets }
      }
      case "openai-compat": {
        const url = yield* required(
          settings.baseUrl,
          spec,
          "OPENAI_BASE_URL, the server's OpenAI-compatible base URL (e.g. http://127.0.0.1:11434/v1 for Ollama)"
        )
        const { createOpenAICompatible } = yield* load(spec, provider, () => import("@ai-sdk/openai-compatible"))
        const compat = createOpenAICompatible({
          name: "openai-compat",
          baseURL: url,
          includeUsage: true,
          ...Option.match(settings.apiKey, { onNone: () => ({}), onSome: (key) => ({ apiKey: Redacted.value(key) }) })
        })
        return { model: compat.chatModel(model), secrets }
      }
    }
  })

/**
 * Effect AI's LanguageModel (with ProviderName and ModelName) for a spec, configured from the environment.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  spec: string
): Layer.Layer<
  LanguageModel.LanguageModel | AiModel.ProviderName | AiModel.ModelName,
  ModelSpecError | Config.ConfigError
> =>
  Layer.unwrap(
    Effect.map(languageModel(spec), ({ model, secrets }) => AiSdkLanguageModel.model(model, { secrets }))
  )
