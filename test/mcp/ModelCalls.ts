/**
 * A model's tool calls for tests of tool sets: the parts a model sends to call tools, and one turn of a scripted
 * model (effect-a2a/ai's ScriptedModel) that makes them through `LanguageModel.generateText`, with the results as
 * the toolkit gave them.
 */
import { Effect } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import * as ScriptedModel from "../../src/ai/ScriptedModel.ts"
import * as ToolSet from "../../src/mcp/ToolSet.ts"

export interface ToolCall {
  readonly name: string
  readonly params: unknown
}

/** A reply calling these tools at once, then finishing with "tool-calls". */
export const toolCalls = (calls: ReadonlyArray<ToolCall>): Array<Response.StreamPartEncoded> => [
  ...calls.map(({ name, params }, i): Response.StreamPartEncoded => ({
    type: "tool-call",
    id: `call-${i}`,
    name,
    params
  })),
  ScriptedModel.finish("tool-calls")
]

/** One model turn that makes these tool calls with the tools of `set`: each call's name, result and failure. */
export const callTools = (set: ToolSet.ToolSet, calls: ReadonlyArray<ToolCall>) =>
  LanguageModel.generateText({ prompt: "go", toolkit: ToolSet.bind(set) }).pipe(
    Effect.map((response) =>
      response.toolResults.map((r) => ({ name: r.name, isFailure: r.isFailure, result: r.result }))
    ),
    Effect.provide(ScriptedModel.layer(() => toolCalls(calls)))
  )
