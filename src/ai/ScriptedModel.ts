/**
 * A `LanguageModel` that plays a script instead of calling a provider: for tests, examples and benchmarks of LLM
 * agents without a network or a key. `respond` gets what the model would be sent (the prompt, the tools) and
 * returns the parts the model "streams"; `generateText` and `generateObject` get the same parts, with the text
 * deltas joined. The helpers build the parts a provider would send: text in deltas, a tool call, a finish.
 *
 * @example
 * ```ts
 * import { ScriptedModel } from "effect-a2a/ai"
 *
 * // answers every prompt with "Hello!" in two deltas
 * const model = ScriptedModel.layer(() => ScriptedModel.text(["Hel", "lo!"]))
 * ```
 *
 * @since 0.1.0
 */
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/**
 * What the model is given in one call: the prompt and tools (a provider's request), as `LanguageModel` passes them.
 *
 * @since 0.1.0
 * @category models
 */
export type Request = LanguageModel.ProviderOptions

/**
 * What the script answers one call with: parts, or a stream of them (which may fail with an AiError).
 *
 * @since 0.1.0
 * @category models
 */
export type Reply =
  | ReadonlyArray<Response.StreamPartEncoded>
  | Stream.Stream<Response.StreamPartEncoded, AiError.AiError>

const usage = { inputTokens: {}, outputTokens: {} }

/**
 * The finish part ending a reply.
 *
 * @since 0.1.0
 * @category constructors
 */
export const finish = (reason: Response.FinishReason = "stop"): Response.StreamPartEncoded => ({
  type: "finish",
  reason,
  usage
})

/**
 * A text reply in these deltas (a string is one delta), then `finish`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (
  deltas: string | ReadonlyArray<string>,
  options: { readonly id?: string | undefined; readonly finish?: Response.FinishReason | undefined } = {}
): Array<Response.StreamPartEncoded> => {
  const id = options.id ?? "text-0"
  return [
    { type: "text-start", id },
    ...(typeof deltas === "string" ? [deltas] : deltas).map((delta): Response.StreamPartEncoded => ({
      type: "text-delta",
      id,
      delta
    })),
    { type: "text-end", id },
    finish(options.finish ?? "stop")
  ]
}

/**
 * A reply calling one tool, then finishing with "tool-calls".
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCall = (name: string, params: unknown, id = `call-${name}`): Array<Response.StreamPartEncoded> => [
  { type: "tool-call", id, name, params },
  finish("tool-calls")
]

/** The stream parts of a reply as whole parts (text deltas joined per id), for `generateText`. */
const whole = (parts: ReadonlyArray<Response.StreamPartEncoded>): Array<Response.PartEncoded> => {
  const out: Array<Response.PartEncoded> = []
  const texts = new Map<string, { type: "text"; text: string }>()
  for (const part of parts) {
    if (part.type === "text-delta") {
      const existing = texts.get(part.id)
      if (existing !== undefined) existing.text += part.delta
      else {
        const created = { type: "text" as const, text: part.delta }
        texts.set(part.id, created)
        out.push(created)
      }
    } else if (part.type === "tool-call" || part.type === "finish" || part.type === "file") {
      out.push(part)
    }
  }
  return out
}

const toStream = (reply: Reply): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
  Stream.isStream(reply) ? reply : Stream.fromIterable(reply)

/**
 * The scripted model.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (respond: (request: Request) => Reply): Effect.Effect<LanguageModel.LanguageModel> =>
  LanguageModel.make({
    streamText: (request) => Stream.suspend(() => toStream(respond(request))),
    generateText: (request) =>
      Effect.map(Stream.runCollect(Stream.suspend(() => toStream(respond(request)))), (parts) => whole(parts))
  })

/**
 * The scripted model's layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (respond: (request: Request) => Reply): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(respond))
