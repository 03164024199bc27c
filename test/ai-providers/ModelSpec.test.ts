/**
 * `provider:model` specs: what each provider takes from the environment, and the one-line errors for a spec that
 * names no provider, a missing key or base URL.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Stream } from "effect"
import { LanguageModel, Model } from "effect/ai"
import { type AddressInfo, createServer } from "node:net"
import * as ModelSpec from "../../src/ai-providers/ModelSpec.ts"
import * as ProviderServer from "../fixtures/ProviderServer.ts"

/** A port nothing listens on: one the system just gave out and took back. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))

const messageOf = (spec: string, env: Record<string, string>) =>
  ModelSpec.languageModel(spec).pipe(
    withEnv(env),
    Effect.flip,
    Effect.map((error) => error.message)
  )

describe("ModelSpec", () => {
  it.effect("parses PROVIDER:MODEL; the model may hold colons", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* ModelSpec.parse("openai:gpt-4o-mini"), { provider: "openai", model: "gpt-4o-mini" })
      assert.deepStrictEqual(yield* ModelSpec.parse("openai-compat:llama3.2:8b"), {
        provider: "openai-compat",
        model: "llama3.2:8b"
      })
      for (const bad of ["gpt-4o", "openai:", "mistral:large", ""]) {
        const exit = yield* Effect.exit(ModelSpec.parse(bad))
        assert.isTrue(Exit.isFailure(exit), bad)
      }
      const message = yield* messageOf("mistral:large", {})
      assert.strictEqual(
        message,
        "--model \"mistral:large\" is not PROVIDER:MODEL with PROVIDER one of openai, anthropic, openai-compat " +
          "(e.g. openai:gpt-4o-mini)"
      )
    }))

  it.effect("a missing key or base URL is one line naming the variable", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* messageOf("openai:gpt-4o-mini", {}),
        "--model openai:gpt-4o-mini needs OPENAI_API_KEY (your OpenAI API key)"
      )
      assert.strictEqual(
        yield* messageOf("anthropic:claude-x", { OPENAI_API_KEY: "sk-1" }),
        "--model anthropic:claude-x needs ANTHROPIC_API_KEY (your Anthropic API key)"
      )
      const compat = yield* messageOf("openai-compat:llama3", { OPENAI_API_KEY: "sk-1" })
      assert.match(compat, /^--model openai-compat:llama3 needs OPENAI_BASE_URL/)
      assert.notInclude(compat, "\n")
    }))

  it.live("openai-compat needs no key (a local server), and the layer names the provider and model", () =>
    Effect.gen(function*() {
      const server = yield* ProviderServer.serve(() => ProviderServer.OpenAi.text(["ok"]))
      const names = yield* Effect.gen(function*() {
        const parts = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(Stream.runCollect)
        assert.strictEqual(parts.flatMap((p) => p.type === "text-delta" ? [p.delta] : []).join(""), "ok")
        return [yield* Model.ProviderName, yield* Model.ModelName]
      }).pipe(
        Effect.provide(
          ModelSpec.layer("openai-compat:llama3:8b").pipe(
            Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ OPENAI_BASE_URL: server.baseUrl })))
          )
        )
      )
      assert.deepStrictEqual(names, ["openai-compat.chat", "llama3:8b"])
      const request = server.requests[0]!
      assert.strictEqual(request.headers["authorization"], undefined)
      assert.strictEqual(request.body["model"], "llama3:8b")
    }))

  it.live("a provider that cannot be reached is a NetworkError naming the cause", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() => freePort())
      const error = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
        Stream.runDrain,
        Effect.provide(ModelSpec.layer("openai:gpt-test")),
        withEnv({ OPENAI_API_KEY: "sk-1", OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }),
        Effect.flip
      )
      assert.strictEqual(error._tag, "AiError")
      if (error._tag === "AiError") {
        assert.strictEqual(error.reason._tag, "NetworkError")
        assert.include(error.message, "Cannot connect to API")
      }
    }))
})
