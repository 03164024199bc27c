/**
 * Any model of the Vercel AI SDK's provider interface (`LanguageModelV4` of `@ai-sdk/provider`: `@ai-sdk/openai`,
 * `@ai-sdk/anthropic`, `@ai-sdk/openai-compatible` and every other provider written to it) as Effect AI's
 * `LanguageModel`. Effect's prompt goes to the model as its prompt, Effect's tools as function tools, the model's
 * stream parts come back as Effect response parts, and its failures as `AiError`s whose reason says what went
 * wrong: credentials the provider refused are an `AuthenticationError`. Interrupting the call aborts the provider
 * request, so the HTTP connection to the provider is closed.
 *
 * Only types are imported from `@ai-sdk/provider`: at run time this module needs nothing but the model it is given.
 *
 * @example
 * ```ts
 * import { createOpenAI } from "@ai-sdk/openai"
 * import { AiSdkLanguageModel } from "effect-a2a/ai-providers"
 *
 * // the LanguageModel (with its ProviderName and ModelName) of an AI SDK model
 * const model = AiSdkLanguageModel.model(createOpenAI({ apiKey: "sk-..." }).chat("gpt-4o-mini"))
 * ```
 *
 * @since 0.1.0
 */
import type {
  JSONSchema7,
  JSONValue,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FilePart,
  LanguageModelV4FinishReason,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4ProviderTool,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
  LanguageModelV4Usage
} from "@ai-sdk/provider"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as AiModel from "effect/ai/Model"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

/**
 * Options of the language model built on an AI SDK provider.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Secrets the error messages must never show (the API key): a provider may echo a key it refused. Every
   * occurrence in a message becomes `<redacted>`.
   */
  readonly secrets?: ReadonlyArray<Redacted.Redacted<string>> | undefined
}

// -----------------------------------------------------------------------------------------------------------------
// Prompt: Effect -> AI SDK
// -----------------------------------------------------------------------------------------------------------------

/** A value as JSON (what a tool result must be for the provider): `undefined` and the unserialisable become null. */
const toJson = (value: unknown): JSONValue => {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? null : JSON.parse(text)
  } catch {
    return String(value)
  }
}

const fileData = (data: Prompt.FilePart["data"]): LanguageModelV4FilePart["data"] =>
  data instanceof URL ? { type: "url", url: data } : { type: "data", data }

const filePart = (part: Prompt.FilePart): LanguageModelV4FilePart => ({
  type: "file",
  mediaType: part.mediaType,
  data: fileData(part.data),
  ...(part.fileName !== undefined ? { filename: part.fileName } : {})
})

const toolOutput = (part: Prompt.ToolResultPart): LanguageModelV4ToolResultOutput => {
  if (part.modelOutput !== undefined) {
    return {
      type: "content",
      value: part.modelOutput.map((output) =>
        output.type === "text"
          ? { type: "text", text: output.text }
          : { type: "file", mediaType: output.mediaType, data: fileData(output.data) }
      )
    }
  }
  const value = toJson(part.result)
  return part.isFailure ? { type: "error-json", value } : { type: "json", value }
}

const toolResultPart = (part: Prompt.ToolResultPart): LanguageModelV4ToolResultPart => ({
  type: "tool-result",
  toolCallId: part.id,
  toolName: part.name,
  output: toolOutput(part)
})

type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number]

/**
 * Effect's prompt as the AI SDK's: the same four roles, part for part.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toProviderPrompt = (prompt: Prompt.Prompt): Array<LanguageModelV4Message> =>
  prompt.content.map((message): LanguageModelV4Message => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content }
      case "user":
        return {
          role: "user",
          content: message.content.map((part) =>
            part.type === "text" ? { type: "text", text: part.text } : filePart(part)
          )
        }
      case "assistant":
        return {
          role: "assistant",
          content: message.content.flatMap((part): Array<AssistantPart> => {
            switch (part.type) {
              case "text":
                return [{ type: "text", text: part.text }]
              case "reasoning":
                return [{ type: "reasoning", text: part.text }]
              case "file":
                return [filePart(part)]
              case "tool-call":
                return [{
                  type: "tool-call",
                  toolCallId: part.id,
                  toolName: part.name,
                  input: part.params,
                  ...(part.providerExecuted ? { providerExecuted: true } : {})
                }]
              case "tool-result":
                return [toolResultPart(part)]
              case "tool-approval-request":
                // the request the model made; the user's answer travels in the tool message
                return []
            }
          })
        }
      case "tool":
        return {
          role: "tool",
          content: message.content.map((part) =>
            part.type === "tool-result" ? toolResultPart(part) : {
              type: "tool-approval-response" as const,
              approvalId: part.approvalId,
              approved: part.approved,
              ...(part.reason !== undefined ? { reason: part.reason } : {})
            }
          )
        }
    }
  })

// -----------------------------------------------------------------------------------------------------------------
// Tools and response format: Effect -> AI SDK
// -----------------------------------------------------------------------------------------------------------------

const toProviderTool = (tool: Tool.Any): LanguageModelV4FunctionTool | LanguageModelV4ProviderTool => {
  if (Tool.isProviderDefined(tool)) {
    return { type: "provider", id: tool.id as `${string}.${string}`, name: tool.name, args: tool.args }
  }
  const description = Tool.getDescription(tool)
  const strict = Tool.getStrictMode(tool)
  return {
    type: "function",
    name: tool.name,
    inputSchema: Tool.getJsonSchema(tool) as JSONSchema7,
    ...(description !== undefined ? { description } : {}),
    ...(strict !== undefined ? { strict } : {})
  }
}

/**
 * The tools and tool choice of a call; `oneOf` narrows the tools sent, as the AI SDK has no such choice. With
 * "none" the tools are still sent: a history holding tool calls needs them for some providers (Anthropic).
 */
const toolsOf = (options: LanguageModel.ProviderOptions): Pick<LanguageModelV4CallOptions, "tools" | "toolChoice"> => {
  const choice = options.toolChoice
  if (options.tools.length === 0) return {}
  if (typeof choice === "string") return { tools: options.tools.map(toProviderTool), toolChoice: { type: choice } }
  if ("tool" in choice) {
    return { tools: options.tools.map(toProviderTool), toolChoice: { type: "tool", toolName: choice.tool } }
  }
  const allowed = new Set<string>(choice.oneOf)
  return {
    tools: options.tools.filter((tool) => allowed.has(tool.name)).map(toProviderTool),
    toolChoice: { type: choice.mode ?? "auto" }
  }
}

/**
 * The options of one call: prompt, tools, response format, and the signal that aborts the request.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toCallOptions = (
  options: LanguageModel.ProviderOptions,
  abortSignal: AbortSignal
): LanguageModelV4CallOptions => ({
  prompt: toProviderPrompt(options.prompt),
  ...toolsOf(options),
  ...(options.responseFormat.type === "json"
    ? {
      responseFormat: {
        type: "json",
        name: options.responseFormat.objectName,
        schema: Tool.getJsonSchemaFromSchema(options.responseFormat.schema) as JSONSchema7
      }
    }
    : {}),
  abortSignal
})

// -----------------------------------------------------------------------------------------------------------------
// Results and stream parts: AI SDK -> Effect
// -----------------------------------------------------------------------------------------------------------------

const finishReason = (reason: LanguageModelV4FinishReason): Response.FinishReason =>
  reason.unified === "interrupted" ? "other" : reason.unified

const defined = <A extends Record<string, number | undefined>>(fields: A): { [K in keyof A]?: number } =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof A]?: number }

const usage = (usage: LanguageModelV4Usage): Response.FinishPartEncoded["usage"] => ({
  inputTokens: defined({
    total: usage.inputTokens.total,
    uncached: usage.inputTokens.noCache,
    cacheRead: usage.inputTokens.cacheRead,
    cacheWrite: usage.inputTokens.cacheWrite
  }),
  outputTokens: defined({
    total: usage.outputTokens.total,
    text: usage.outputTokens.text,
    reasoning: usage.outputTokens.reasoning
  })
})

/** A tool call's input (the AI SDK's JSON text) as its parameters; text that is not JSON stays text. */
const parseInput = (input: string): unknown => {
  if (input.trim() === "") return {}
  try {
    return JSON.parse(input)
  } catch {
    return input
  }
}

const toolCall = (part: { toolCallId: string; toolName: string; input: string; providerExecuted?: boolean }) => ({
  type: "tool-call" as const,
  id: part.toolCallId,
  name: part.toolName,
  params: parseInput(part.input),
  ...(part.providerExecuted ? { providerExecuted: true } : {})
})

const toolResult = (
  part: { toolCallId: string; toolName: string; result: unknown; isError?: boolean; preliminary?: boolean }
) => ({
  type: "tool-result" as const,
  id: part.toolCallId,
  name: part.toolName,
  result: part.result,
  isFailure: part.isError === true,
  providerExecuted: true,
  ...(part.preliminary ? { preliminary: true } : {})
})

/** The content of a whole response as Effect's parts (sources, files and provider-specific content are left out). */
const contentParts = (content: ReadonlyArray<LanguageModelV4Content>): Array<Response.PartEncoded> =>
  content.flatMap((part): Array<Response.PartEncoded> => {
    switch (part.type) {
      case "text":
        return [{ type: "text", text: part.text }]
      case "reasoning":
        return [{ type: "reasoning", text: part.text }]
      case "tool-call":
        return [toolCall(part)]
      case "tool-result":
        return [toolResult(part)]
      default:
        return []
    }
  })

const responseMetadata = (
  metadata: { id?: string | undefined; modelId?: string | undefined; timestamp?: Date | undefined }
): Response.ResponseMetadataPartEncoded => ({
  type: "response-metadata",
  ...(metadata.id !== undefined ? { id: metadata.id } : {}),
  ...(metadata.modelId !== undefined ? { modelId: metadata.modelId } : {}),
  ...(metadata.timestamp !== undefined ? { timestamp: metadata.timestamp.toISOString() } : {})
})

// -----------------------------------------------------------------------------------------------------------------
// Errors: AI SDK -> AiError
// -----------------------------------------------------------------------------------------------------------------

const redact = (text: string, secrets: ReadonlyArray<Redacted.Redacted<string>>): string =>
  secrets.reduce((acc, secret) => {
    const value = Redacted.value(secret)
    return value.length > 0 ? acc.split(value).join("<redacted>") : acc
  }, text)

const messageOf = (error: unknown): string => {
  if (Predicate.isError(error)) return error.message
  if (Predicate.hasProperty(error, "message") && Predicate.isString(error.message)) return error.message
  // a provider's error event, as the AI SDK passes it on: `{ type: "error", error: { type, message } }`
  if (Predicate.hasProperty(error, "error")) return messageOf(error.error)
  return Predicate.isString(error) ? error : JSON.stringify(error) ?? String(error)
}

const errorType = (error: unknown): string | undefined => {
  const inner = Predicate.hasProperty(error, "error") ? error.error : error
  return Predicate.hasProperty(inner, "type") && Predicate.isString(inner.type) ? inner.type : undefined
}

/**
 * The AI SDK's `APICallError` (a response with an error status, or no response at all), recognised by its name
 * rather than by `instanceof`, so that it works whichever copy of `@ai-sdk/provider` the provider package loaded.
 */
const isApiCallError = (error: unknown): error is Error & { readonly statusCode?: unknown; readonly url?: unknown } =>
  Predicate.isError(error) && error.name === "AI_APICallError"

/** A URL for a message: without its query and fragment, which may carry credentials. */
const withoutQuery = (url: unknown): string => Predicate.isString(url) ? url.replace(/[?#].*$/, "") : "unknown"

/** Provider error types (OpenAI's and Anthropic's) that mean the credentials were refused. */
const authErrorTypes = new Set(["authentication_error", "invalid_api_key", "permission_error"])

/** The AI SDK's errors for an answer it could not read (not JSON, not the provider's shape). */
const malformedResponse = new Set(["AI_JSONParseError", "AI_TypeValidationError", "AI_InvalidResponseDataError"])

/**
 * The reason of a failed call: an HTTP status says it (401/403 are refused credentials); else the cause's type.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toReason = (error: unknown, options: Options = {}): AiError.AiErrorReason => {
  const description = redact(messageOf(error), options.secrets ?? [])
  if (isApiCallError(error)) {
    return Predicate.isNumber(error.statusCode)
      ? error.statusCode < 400
        // a success status whose body could not be read
        ? new AiError.InvalidResponseError({ description })
        : AiError.reasonFromHttpStatus({ status: error.statusCode, description })
      // no answer at all: refused connection, unknown host, reset
      : new AiError.NetworkError({
        reason: "TransportError",
        method: "POST",
        url: withoutQuery(error.url),
        description
      })
  }
  const type = errorType(error)
  if (type !== undefined && authErrorTypes.has(type)) {
    return new AiError.AuthenticationError({
      kind: type === "permission_error" ? "InsufficientPermissions" : "InvalidKey",
      description
    })
  }
  if (Predicate.isError(error) && error.name === "AI_LoadAPIKeyError") {
    return new AiError.AuthenticationError({ kind: "MissingKey", description })
  }
  if (Predicate.isError(error) && malformedResponse.has(error.name)) {
    return new AiError.InvalidResponseError({ description })
  }
  if (type !== undefined || !Predicate.isError(error)) {
    // an error the provider reported in the middle of its stream (overloaded, server error, ...)
    return new AiError.InternalProviderError({
      description: type === undefined ? description : `${type}: ${description}`
    })
  }
  return new AiError.UnknownError({ description })
}

const aiError = (method: string, options: Options) => (error: unknown): AiError.AiError =>
  AiError.make({ module: "AiSdkLanguageModel", method, reason: toReason(error, options) })

// -----------------------------------------------------------------------------------------------------------------
// The service
// -----------------------------------------------------------------------------------------------------------------

/** An AbortController for the scope: closing the scope (the call ended, or was interrupted) aborts the request. */
const abortOnClose = Effect.acquireRelease(
  Effect.sync(() => new AbortController()),
  (controller) => Effect.sync(() => controller.abort())
)

const streamPart = (
  part: LanguageModelV4StreamPart,
  fail: (error: unknown) => AiError.AiError
): Effect.Effect<ReadonlyArray<Response.StreamPartEncoded>, AiError.AiError> => {
  switch (part.type) {
    case "text-start":
    case "reasoning-start":
    case "text-end":
    case "reasoning-end":
      return Effect.succeed([{ type: part.type, id: part.id }])
    case "text-delta":
    case "reasoning-delta":
      // some servers open with an empty piece: nothing to pass on
      return Effect.succeed(part.delta === "" ? [] : [{ type: part.type, id: part.id, delta: part.delta }])
    case "tool-input-start":
      return Effect.succeed([{
        type: "tool-params-start",
        id: part.id,
        name: part.toolName,
        ...(part.providerExecuted ? { providerExecuted: true } : {})
      }])
    case "tool-input-delta":
      return Effect.succeed([{ type: "tool-params-delta", id: part.id, delta: part.delta }])
    case "tool-input-end":
      return Effect.succeed([{ type: "tool-params-end", id: part.id }])
    case "tool-call":
      return Effect.succeed([toolCall(part)])
    case "tool-result":
      return Effect.succeed([toolResult(part)])
    case "response-metadata":
      return Effect.succeed([responseMetadata(part)])
    case "finish":
      return Effect.succeed([{ type: "finish", reason: finishReason(part.finishReason), usage: usage(part.usage) }])
    case "error":
      // the provider failed in the middle of its answer: the call fails, it does not end as if complete
      return Effect.fail(fail(part.error))
    default:
      return Effect.succeed([])
  }
}

/**
 * Effect AI's LanguageModel service over an AI SDK model.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (model: LanguageModelV4, options: Options = {}): Effect.Effect<LanguageModel.LanguageModel> =>
  LanguageModel.make({
    generateText: (request) =>
      Effect.tryPromise({
        try: (signal) => model.doGenerate(toCallOptions(request, signal)),
        catch: aiError("generateText", options)
      }).pipe(
        Effect.map((result): Array<Response.PartEncoded> => [
          ...(result.response !== undefined ? [responseMetadata(result.response)] : []),
          ...contentParts(result.content),
          { type: "finish", reason: finishReason(result.finishReason), usage: usage(result.usage) }
        ])
      ),
    streamText: (request) => {
      const fail = aiError("streamText", options)
      return Stream.unwrap(Effect.gen(function*() {
        const controller = yield* abortOnClose
        const result = yield* Effect.tryPromise({
          try: () => model.doStream(toCallOptions(request, controller.signal)),
          catch: fail
        })
        return Stream.fromReadableStream({ evaluate: () => result.stream, onError: fail }).pipe(
          Stream.mapEffect((part) => streamPart(part, fail)),
          Stream.flattenIterable
        )
      }))
    }
  })

/**
 * The LanguageModel service of an AI SDK model, as a Layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (model: LanguageModelV4, options: Options = {}): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(model, options))

/**
 * The model as Effect AI's `Model`: the LanguageModel layer with its ProviderName (the AI SDK's provider id,
 * e.g. "openai.chat") and ModelName (e.g. "gpt-4o-mini").
 *
 * @since 0.1.0
 * @category constructors
 */
export const model = (model: LanguageModelV4, options: Options = {}) =>
  AiModel.make(model.provider, model.modelId, layer(model, options))
