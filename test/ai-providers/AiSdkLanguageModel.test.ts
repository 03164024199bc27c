/**
 * The adapter with the real AI SDK provider clients (`@ai-sdk/openai`, `@ai-sdk/anthropic`,
 * `@ai-sdk/openai-compatible`, configured by ModelSpec from the environment) against a local server speaking each
 * provider's streaming wire format (ProviderServer): streamed text, a tool call answered and its result sent back,
 * refused credentials (401/403) as AuthenticationError without the key in any message, an error in the middle of
 * a stream, and interruption closing the provider request.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import * as ModelSpec from "../../src/ai-providers/ModelSpec.ts"
import * as ProviderServer from "../fixtures/ProviderServer.ts"

const KEY = "sk-test-0123456789-secret"

const GetWeather = Tool.make("GetWeather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String
})
const tools = Toolkit.make(GetWeather)
const toolHandlers = tools.toLayer({ GetWeather: ({ city }) => Effect.succeed(`sunny in ${city}`) })

type Body = Record<string, unknown>

interface Wire {
  readonly name: string
  readonly spec: string
  readonly env: (baseUrl: string) => Record<string, string>
  readonly path: string
  readonly text: (pieces: ReadonlyArray<string>) => ProviderServer.Reply
  readonly toolCall: (id: string, name: string, pieces: ReadonlyArray<string>) => ProviderServer.Reply
  readonly errorMidStream: (pieces: ReadonlyArray<string>, message: string) => ProviderServer.Reply
  readonly hanging: (pieces: ReadonlyArray<string>) => ProviderServer.Reply
  readonly refused: (status: 401 | 403, message: string) => ProviderServer.Reply
  /** Another error status, as the provider sends it. */
  readonly failed: (status: number, message: string) => ProviderServer.Reply
  /** The credentials the client sent. */
  readonly key: (request: ProviderServer.RecordedRequest) => string | undefined
  /** The system prompt and the user's text, as the request carried them. */
  readonly prompt: (body: Body) => { readonly system: unknown; readonly user: unknown }
  /** The tool definition sent: name, description, JSON Schema. */
  readonly tool: (body: Body) => { readonly name: unknown; readonly description: unknown; readonly schema: unknown }
  /** The tool call and its result, as the follow-up request carried them back. */
  readonly toolRoundTrip: (body: Body) => { readonly call: unknown; readonly result: unknown }
}

const messages = (body: Body) => body["messages"] as Array<Record<string, unknown>>

const openAiWire = (name: string, spec: string, env: (baseUrl: string) => Record<string, string>): Wire => ({
  name,
  spec,
  env,
  path: "/v1/chat/completions",
  text: ProviderServer.OpenAi.text,
  toolCall: ProviderServer.OpenAi.toolCall,
  errorMidStream: ProviderServer.OpenAi.errorMidStream,
  hanging: ProviderServer.OpenAi.hanging,
  refused: (status, message) =>
    ProviderServer.OpenAi.error(status, message, "invalid_request_error", status === 401 ? "invalid_api_key" : null),
  failed: (status, message) =>
    ProviderServer.OpenAi.error(status, message, status >= 500 ? "server_error" : "requests"),
  key: (request) => request.headers["authorization"]?.replace(/^Bearer /, ""),
  prompt: (body) => ({ system: messages(body)[0], user: messages(body)[1] }),
  tool: (body) => {
    const fn = (body["tools"] as Array<{ function: Record<string, unknown> }>)[0]!.function
    return { name: fn["name"], description: fn["description"], schema: fn["parameters"] }
  },
  toolRoundTrip: (body) => {
    const assistant = messages(body).find((m) => m["role"] === "assistant")!
    const tool = messages(body).find((m) => m["role"] === "tool")!
    const call = (assistant["tool_calls"] as Array<{ id: string; function: { name: string; arguments: string } }>)[0]!
    return {
      call: { id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) },
      result: { id: tool["tool_call_id"], content: JSON.parse(tool["content"] as string) }
    }
  }
})

const wires: ReadonlyArray<Wire> = [
  openAiWire("openai", "openai:gpt-test", (baseUrl) => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseUrl })),
  openAiWire(
    "openai-compat",
    "openai-compat:llama-test",
    (baseUrl) => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseUrl })
  ),
  {
    name: "anthropic",
    spec: "anthropic:claude-test",
    env: (baseUrl) => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl }),
    path: "/v1/messages",
    text: ProviderServer.Anthropic.text,
    toolCall: ProviderServer.Anthropic.toolCall,
    errorMidStream: (pieces, message) => ProviderServer.Anthropic.errorMidStream(pieces, "api_error", message),
    hanging: ProviderServer.Anthropic.hanging,
    refused: (status, message) =>
      ProviderServer.Anthropic.error(status, status === 401 ? "authentication_error" : "permission_error", message),
    failed: (status, message) =>
      ProviderServer.Anthropic.error(status, status >= 500 ? "api_error" : "rate_limit_error", message),
    key: (request) => request.headers["x-api-key"] as string | undefined,
    prompt: (body) => ({ system: body["system"], user: messages(body)[0] }),
    tool: (body) => {
      const tool = (body["tools"] as Array<Record<string, unknown>>)[0]!
      return { name: tool["name"], description: tool["description"], schema: tool["input_schema"] }
    },
    toolRoundTrip: (body) => {
      const use = (messages(body)[1]!["content"] as Array<Record<string, unknown>>).find((c) =>
        c["type"] === "tool_use"
      )!
      const result = (messages(body)[2]!["content"] as Array<Record<string, unknown>>)[0]!
      const content = result["content"]
      const text = Array.isArray(content) ? (content[0] as { text: string }).text : content as string
      return {
        call: { id: use["id"], name: use["name"], input: use["input"] },
        result: { id: result["tool_use_id"], content: JSON.parse(text) }
      }
    }
  }
]

/** The provider server answering with `script`, and the spec's LanguageModel configured to call it. */
const setup = (wire: Wire, script: (request: ProviderServer.RecordedRequest, index: number) => ProviderServer.Reply) =>
  Effect.gen(function*() {
    const server = yield* ProviderServer.serve(script)
    const model = ModelSpec.layer(wire.spec).pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(wire.env(server.baseUrl))))
    )
    return { server, model }
  })

const textOf = (parts: ReadonlyArray<Response.AnyPart>) =>
  parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : []).join("")

const failureOf = <A>(exit: Exit.Exit<A, unknown>): AiError.AiError => {
  assert.isTrue(Exit.isFailure(exit), "the call failed")
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  assert.isDefined(error)
  const failure = (error as { error: unknown }).error
  assert.isTrue(AiError.isAiError(failure), `an AiError, got ${String(failure)}`)
  return failure as AiError.AiError
}

describe.each(wires)("AiSdkLanguageModel over $name", (wire) => {
  it.live("streams the text, sending the system prompt, the user's text and the key", () =>
    Effect.gen(function*() {
      const { model, server } = yield* setup(wire, () => wire.text(["Hel", "lo, ", "world"]))
      const parts = yield* LanguageModel.streamText({
        prompt: Prompt.make([
          { role: "system", content: "You are terse." },
          { role: "user", content: [{ type: "text", text: "Say hello" }] }
        ])
      }).pipe(Stream.runCollect, Effect.provide(model))

      assert.strictEqual(textOf(parts), "Hello, world")
      const types = parts.map((part) => part.type)
      assert.deepStrictEqual(types.filter((t) => t.startsWith("text-")), [
        "text-start",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-end"
      ])
      const finish = parts.find((part) => part.type === "finish")
      assert.strictEqual(finish?.reason, "stop")
      assert.isTrue((finish?.usage.inputTokens.total ?? 0) > 0, "usage carried")

      assert.strictEqual(server.requests.length, 1)
      const request = server.requests[0]!
      assert.strictEqual(request.path, wire.path)
      assert.strictEqual(wire.key(request), KEY)
      assert.strictEqual(request.body["stream"], true)
      const prompt = wire.prompt(request.body)
      assert.include(JSON.stringify(prompt.system), "You are terse.")
      assert.include(JSON.stringify(prompt.user), "Say hello")
    }))

  it.live("sends the tool, runs the call the model makes, and sends the result back", () =>
    Effect.gen(function*() {
      const { model, server } = yield* setup(
        wire,
        (_, index) =>
          index === 0 ? wire.toolCall("call_1", "GetWeather", ["{\"ci", "ty\": \"Pa", "ris\"}"]) : wire.text(["Sunny."])
      )
      const question = Prompt.make("Weather in Paris?")
      const first = yield* LanguageModel.streamText({ prompt: question, toolkit: tools }).pipe(
        Stream.runCollect,
        Effect.provide(Layer.merge(model, toolHandlers))
      )
      const call = first.find((part) => part.type === "tool-call")
      const result = first.find((part) => part.type === "tool-result")
      assert.deepStrictEqual(call && { id: call.id, name: call.name, params: call.params }, {
        id: "call_1",
        name: "GetWeather",
        params: { city: "Paris" }
      })
      assert.strictEqual(result?.result, "sunny in Paris")
      assert.strictEqual(first.find((part) => part.type === "finish")?.reason, "tool-calls")
      const tool = wire.tool(server.requests[0]!.body)
      assert.strictEqual(tool.name, "GetWeather")
      assert.strictEqual(tool.description, "The weather in a city")
      assert.deepInclude(tool.schema as object, { type: "object", required: ["city"] })

      const followUp = Prompt.concat(question, Prompt.fromResponseParts(first))
      const second = yield* LanguageModel.streamText({ prompt: followUp, toolkit: tools }).pipe(
        Stream.runCollect,
        Effect.provide(Layer.merge(model, toolHandlers))
      )
      assert.strictEqual(textOf(second), "Sunny.")
      assert.deepStrictEqual(wire.toolRoundTrip(server.requests[1]!.body), {
        call: { id: "call_1", name: "GetWeather", input: { city: "Paris" } },
        result: { id: "call_1", content: "sunny in Paris" }
      })
    }))

  it.live("refused credentials (401, 403) are an AuthenticationError whose messages never show the key", () =>
    Effect.gen(function*() {
      const { model } = yield* setup(
        wire,
        (_, index) => wire.refused(index === 0 ? 401 : 403, `Incorrect API key provided: ${KEY}`)
      )
      for (const kind of ["InvalidKey", "InsufficientPermissions"]) {
        const exit = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
          Stream.runCollect,
          Effect.provide(model),
          Effect.exit
        )
        const error = failureOf(exit)
        assert.strictEqual(error.reason._tag, "AuthenticationError")
        assert.strictEqual((error.reason as AiError.AuthenticationError).kind, kind)
        assert.include(error.message, "Incorrect API key provided")
        assert.notInclude(error.message, KEY)
        assert.notInclude(JSON.stringify(error), KEY)
      }
    }))

  it.live("other error statuses keep their reason and the provider's message: 429 rate limit, 500 provider error", () =>
    Effect.gen(function*() {
      const { model } = yield* setup(
        wire,
        (_, index) => index === 0 ? wire.failed(429, "Slow down, please") : wire.failed(500, "The server had an error")
      )
      const reasons: Array<[string, string]> = []
      for (let i = 0; i < 2; i++) {
        const exit = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
          Stream.runDrain,
          Effect.provide(model),
          Effect.exit
        )
        const error = failureOf(exit)
        reasons.push([error.reason._tag, error.message])
      }
      assert.strictEqual(reasons[0]![0], "RateLimitError")
      assert.strictEqual(reasons[1]![0], "InternalProviderError")
      assert.include(reasons[1]![1], "The server had an error")
    }))

  it.live("an error in the middle of the stream fails the call, naming the cause, after the text before it", () =>
    Effect.gen(function*() {
      const { model } = yield* setup(wire, () => wire.errorMidStream(["Par", "tial"], "the upstream model crashed"))
      const received: Array<string> = []
      const exit = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
        Stream.runForEach((part) => Effect.sync(() => part.type === "text-delta" && received.push(part.delta))),
        Effect.provide(model),
        Effect.exit
      )
      const error = failureOf(exit)
      assert.strictEqual(error.reason._tag, "InternalProviderError")
      assert.include(error.message, "the upstream model crashed")
      assert.strictEqual(received.join(""), "Partial")
    }))

  it.live("interrupting the call closes the provider request", () =>
    Effect.gen(function*() {
      const { model, server } = yield* setup(wire, () => wire.hanging(["Thinking"]))
      const started = yield* Deferred.make<void>()
      const fiber = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
        Stream.runForEach((part) => part.type === "text-delta" ? Deferred.succeed(started, undefined) : Effect.void),
        Effect.provide(model),
        Effect.forkChild
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      const closed = yield* Effect.promise(() => server.requests[0]!.closedEarly).pipe(
        Effect.timeoutOption("5 seconds")
      )
      assert.isTrue(closed._tag === "Some", "the provider saw its request closed")
    }))
})

describe("AiSdkLanguageModel: answers that are not the provider's", () => {
  it.live("a stream chunk or a whole answer of the wrong shape is an InvalidResponseError", () =>
    Effect.gen(function*() {
      const wire = wires[0]!
      const { model } = yield* setup(wire, (_, index) =>
        index === 0
          ? { sse: ["data: {\"nonsense\":true}\n\n", "data: [DONE]\n\n"] }
          : { status: 200, json: { nonsense: true } })
      const streamed = failureOf(
        yield* LanguageModel.streamText({ prompt: "hi" }).pipe(Stream.runDrain, Effect.provide(model), Effect.exit)
      )
      assert.strictEqual(streamed.reason._tag, "InvalidResponseError")
      const whole = failureOf(
        yield* LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(model), Effect.exit)
      )
      assert.strictEqual(whole.reason._tag, "InvalidResponseError")
    }))
})

describe("AiSdkLanguageModel.generateText", () => {
  it.live("answers in one piece, as a whole response", () =>
    Effect.gen(function*() {
      const wire = wires[0]!
      const { model, server } = yield* setup(wire, () => ({
        status: 200,
        json: {
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1_760_000_000,
          model: "gpt-test",
          choices: [{ index: 0, message: { role: "assistant", content: "Bonjour" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
        }
      }))
      const response = yield* LanguageModel.generateText({ prompt: "hello in French" }).pipe(Effect.provide(model))
      assert.strictEqual(response.text, "Bonjour")
      assert.strictEqual(response.finishReason, "stop")
      assert.strictEqual(response.usage.outputTokens.total, 1)
      assert.notStrictEqual(server.requests[0]!.body["stream"], true)
    }))
})
