/**
 * A scripted LanguageModel for tool tests: each turn is a function of the prompt so far that says what the model
 * "answers" (tool calls, text). What the model was sent (prompts, tools) is recorded.
 */
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Prompt, type Response } from "effect/ai"

export interface ToolCall {
  readonly name: string
  readonly params: unknown
}

export type Turn = (prompt: Prompt.Prompt) => { readonly toolCalls?: ReadonlyArray<ToolCall>; readonly text?: string }

export interface Recorded {
  readonly prompts: Array<Prompt.Prompt>
  readonly tools: Array<ReadonlyArray<{ readonly name: string; readonly description: string | undefined }>>
}

/** The model as a layer, answering with `turns` in order (the last one repeats). */
export const layer = (turns: ReadonlyArray<Turn>, recorded: Recorded = { prompts: [], tools: [] }) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          const index = Math.min(recorded.prompts.length, turns.length - 1)
          recorded.prompts.push(options.prompt)
          recorded.tools.push(options.tools.map((tool) => ({ name: tool.name, description: tool.description })))
          const turn = turns[index]!(options.prompt)
          const parts: Array<Response.PartEncoded> = (turn.toolCalls ?? []).map((call, i) => ({
            type: "tool-call",
            id: `call-${recorded.prompts.length}-${i}`,
            name: call.name,
            params: call.params
          }))
          if (turn.text !== undefined) parts.push({ type: "text", text: turn.text })
          parts.push({
            type: "finish",
            reason: parts.some((p) => p.type === "tool-call") ? "tool-calls" : "stop",
            usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
          })
          return parts
        }),
      streamText: () => Stream.empty
    })
  )

/** The tool results in a prompt, by tool name: the result as the model reads it. */
export const toolResults = (
  prompt: Prompt.Prompt
): ReadonlyArray<{ name: string; isFailure: boolean; result: unknown }> =>
  prompt.content.flatMap((message) =>
    message.role === "tool"
      ? message.content.flatMap((part) =>
        part.type === "tool-result" ? [{ name: part.name, isFailure: part.isFailure, result: part.result }] : []
      )
      : []
  )
