/**
 * The adapter against the AI SDK's provider interface itself (`LanguageModelV4`): a model written to the interface
 * records the call options it is given and answers with the stream parts a test chooses. What the adapter sends
 * (prompt part for part, tools, tool choice, response format, abort signal) and what it makes of every kind of
 * stream part (reasoning, tool input, tool calls, finish with usage, errors).
 */
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schema, Stream } from "effect"
import { AiError, LanguageModel, Model, Prompt, Tool, Toolkit } from "effect/ai"
import * as AiSdkLanguageModel from "../../src/ai-providers/AiSdkLanguageModel.ts"

const usage = {
  inputTokens: { total: 10, noCache: 4, cacheRead: 6, cacheWrite: undefined },
  outputTokens: { total: 5, text: 3, reasoning: 2 }
}

/** A model to the interface: it keeps the options of each call and streams `parts` (then stays open if `hang`). */
const recordingModel = (parts: ReadonlyArray<LanguageModelV4StreamPart>, hang = false) => {
  const calls: Array<LanguageModelV4CallOptions> = []
  const model: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "test.chat",
    modelId: "test-model",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: (options) => {
      calls.push(options)
      return Promise.resolve({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            if (!hang) controller.close()
          }
        })
      })
    }
  }
  return { model, calls }
}

const finish: LanguageModelV4StreamPart = { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } }

const Lookup = Tool.make("Lookup", {
  description: "Looks a word up",
  parameters: Schema.Struct({ word: Schema.String }),
  success: Schema.String
})
const Other = Tool.make("Other", { parameters: Schema.Struct({}), success: Schema.String })
const tools = Toolkit.make(Lookup, Other)
const handlers = tools.toLayer({
  Lookup: ({ word }) => Effect.succeed(`${word}: a word`),
  Other: () => Effect.succeed("")
})

describe("AiSdkLanguageModel against LanguageModelV4", () => {
  it.effect("sends the prompt part for part: system, user text and files, assistant parts, tool results", () =>
    Effect.gen(function*() {
      const { calls, model } = recordingModel([finish])
      const bytes = new Uint8Array([1, 2, 3])
      const url = new URL("https://example.com/a.png")
      yield* LanguageModel.streamText({
        prompt: Prompt.make([
          { role: "system", content: "Be brief." },
          {
            role: "user",
            content: [
              { type: "text", text: "Look at these" },
              { type: "file", mediaType: "application/pdf", fileName: "a.pdf", data: bytes },
              { type: "file", mediaType: "image/png", data: url }
            ]
          },
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "Hmm." },
              { type: "text", text: "Looking." },
              { type: "tool-call", id: "c1", name: "Lookup", params: { word: "x" } }
            ]
          },
          {
            role: "tool",
            content: [
              { type: "tool-result", id: "c1", name: "Lookup", isFailure: false, result: { found: true } },
              { type: "tool-result", id: "c2", name: "Lookup", isFailure: true, result: "no such word" }
            ]
          }
        ])
      }).pipe(Stream.runDrain, Effect.provide(AiSdkLanguageModel.layer(model)))

      assert.deepStrictEqual(calls[0]!.prompt, [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Look at these" },
            { type: "file", mediaType: "application/pdf", filename: "a.pdf", data: { type: "data", data: bytes } },
            { type: "file", mediaType: "image/png", data: { type: "url", url } }
          ]
        },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "Hmm." },
            { type: "text", text: "Looking." },
            { type: "tool-call", toolCallId: "c1", toolName: "Lookup", input: { word: "x" } }
          ]
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "Lookup",
              output: { type: "json", value: { found: true } }
            },
            {
              type: "tool-result",
              toolCallId: "c2",
              toolName: "Lookup",
              output: { type: "error-json", value: "no such word" }
            }
          ]
        }
      ])
      assert.isUndefined(calls[0]!.tools)
    }))

  it.effect("sends the tools with their JSON Schema, and each tool choice", () =>
    Effect.gen(function*() {
      const { calls, model } = recordingModel([finish])
      const run = (toolChoice: LanguageModel.ToolChoice<"Lookup" | "Other">) =>
        LanguageModel.streamText({ prompt: "hi", toolkit: tools, toolChoice }).pipe(
          Stream.runDrain,
          Effect.provide([AiSdkLanguageModel.layer(model), handlers])
        )
      yield* run("auto")
      yield* run("required")
      yield* run({ tool: "Lookup" })
      yield* run({ oneOf: ["Other"], mode: "required" })
      yield* run("none")

      const lookup = calls[0]!.tools![0]!
      assert.strictEqual(lookup.type, "function")
      if (lookup.type === "function") {
        assert.strictEqual(lookup.name, "Lookup")
        assert.strictEqual(lookup.description, "Looks a word up")
        assert.deepInclude(lookup.inputSchema, { type: "object", required: ["word"] })
      }
      assert.deepStrictEqual(calls.map((c) => c.toolChoice), [
        { type: "auto" },
        { type: "required" },
        { type: "tool", toolName: "Lookup" },
        { type: "required" },
        { type: "none" }
      ])
      assert.deepStrictEqual(calls.map((c) => c.tools?.map((t) => t.name)), [
        ["Lookup", "Other"],
        ["Lookup", "Other"],
        ["Lookup", "Other"],
        ["Other"],
        ["Lookup", "Other"]
      ])
    }))

  it.effect("passes every kind of stream part on: reasoning, tool input, the call, finish with usage", () =>
    Effect.gen(function*() {
      const { model } = recordingModel([
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", id: "r1", modelId: "test-model", timestamp: new Date(0) },
        { type: "reasoning-start", id: "t0" },
        { type: "reasoning-delta", id: "t0", delta: "Let me see" },
        { type: "reasoning-end", id: "t0" },
        { type: "tool-input-start", id: "c1", toolName: "Lookup" },
        { type: "tool-input-delta", id: "c1", delta: "{\"word\":" },
        { type: "tool-input-delta", id: "c1", delta: "\"x\"}" },
        { type: "tool-input-end", id: "c1" },
        { type: "tool-call", toolCallId: "c1", toolName: "Lookup", input: "{\"word\":\"x\"}" },
        { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_use" } }
      ])
      const parts = yield* LanguageModel.streamText({ prompt: "hi", toolkit: tools }).pipe(
        Stream.runCollect,
        Effect.provide([AiSdkLanguageModel.layer(model), handlers])
      )
      assert.deepStrictEqual(parts.map((p) => p.type), [
        "response-metadata",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "tool-params-start",
        "tool-params-delta",
        "tool-params-delta",
        "tool-params-end",
        "tool-call",
        "tool-result",
        "finish"
      ])
      const metadata = parts[0]!
      assert.strictEqual(metadata.type === "response-metadata" ? metadata.id : undefined, "r1")
      const call = parts.find((p) => p.type === "tool-call")
      assert.deepStrictEqual(call?.type === "tool-call" ? call.params : undefined, { word: "x" })
      const result = parts.find((p) => p.type === "tool-result")
      assert.strictEqual(result?.type === "tool-result" ? result.result : undefined, "x: a word")
      const end = parts.find((p) => p.type === "finish")
      assert.strictEqual(end?.reason, "tool-calls")
      assert.deepStrictEqual(
        { input: { ...end?.usage.inputTokens }, output: { ...end?.usage.outputTokens } },
        { input: { total: 10, uncached: 4, cacheRead: 6 }, output: { total: 5, text: 3, reasoning: 2 } }
      )
    }))

  it.effect("asks for JSON with the schema when an object is wanted", () =>
    Effect.gen(function*() {
      const { calls, model } = recordingModel([])
      const generate = {
        ...model,
        doGenerate: (options: LanguageModelV4CallOptions) => {
          calls.push(options)
          return Promise.resolve({
            content: [{ type: "text" as const, text: "{\"city\":\"Paris\"}" }],
            finishReason: { unified: "stop" as const, raw: "stop" },
            usage,
            warnings: []
          })
        }
      }
      const response = yield* LanguageModel.generateObject({
        prompt: "A city",
        objectName: "city",
        schema: Schema.Struct({ city: Schema.String })
      }).pipe(Effect.provide(AiSdkLanguageModel.layer(generate)))
      assert.deepStrictEqual(response.value, { city: "Paris" })
      const format = calls[0]!.responseFormat
      assert.strictEqual(format?.type, "json")
      if (format?.type === "json") {
        assert.strictEqual(format.name, "city")
        assert.deepInclude(format.schema, { type: "object", required: ["city"] })
      }
    }))

  it.effect("an error part fails the call with the cause; interrupting the call aborts the request's signal", () =>
    Effect.gen(function*() {
      const failing = recordingModel([
        { type: "text-start", id: "0" },
        { type: "text-delta", id: "0", delta: "Hal" },
        { type: "error", error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }
      ])
      const error = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
        Stream.runDrain,
        Effect.provide(AiSdkLanguageModel.layer(failing.model)),
        Effect.flip
      )
      assert.isTrue(AiError.isAiError(error))
      assert.strictEqual(error.reason._tag, "InternalProviderError")
      assert.include(error.message, "overloaded_error: Overloaded")

      const hanging = recordingModel(
        [{ type: "text-start", id: "0" }, { type: "text-delta", id: "0", delta: "Hm" }],
        true
      )
      const started = yield* Deferred.make<void>()
      const fiber = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
        Stream.runForEach(() => Deferred.succeed(started, undefined)),
        Effect.provide(AiSdkLanguageModel.layer(hanging.model)),
        Effect.forkChild
      )
      yield* Deferred.await(started)
      const signal = hanging.calls[0]!.abortSignal!
      assert.isFalse(signal.aborted)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(signal.aborted)
    }))

  it.effect("the model's provider and id name the Model", () =>
    Effect.gen(function*() {
      const { model } = recordingModel([finish])
      const names = yield* Effect.all([Effect.service(Model.ProviderName), Effect.service(Model.ModelName)]).pipe(
        Effect.provide(AiSdkLanguageModel.model(model))
      )
      assert.deepStrictEqual(names, ["test.chat", "test-model"])
    }))
})
