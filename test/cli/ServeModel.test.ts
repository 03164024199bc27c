/**
 * `effect-a2a serve --model PROVIDER:MODEL` as a real child process, driven by the official SDK's client, the
 * model a local server speaking the provider's wire format (ProviderServer): the LLM agent streams the model's
 * answer, its card comes from the flags, its instructions from a file; refused credentials end the task
 * AUTH_REQUIRED, an error in the provider's stream FAILED (naming the cause, never the key); CancelTask closes the
 * provider request. A missing key or provider package is one line and exit 1.
 */
import { type Task, TaskState } from "@a2a-js/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as ProviderServer from "../fixtures/ProviderServer.ts"
import { collect, message, request, textOf } from "../fixtures/SdkClientCalls.ts"
import { connect } from "../fixtures/SdkHttpClient.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

const KEY = "sk-cli-test-0123456789"
const HIDE_PACKAGES = fileURLToPath(new URL("../fixtures/HidePackages.ts", import.meta.url))

/** `serve --model` on the provider server, with the flags given (`--memory` unless `env` names a data directory). */
const serveModel = (
  script: (request: ProviderServer.RecordedRequest, index: number) => ProviderServer.Reply,
  args: ReadonlyArray<string> = [],
  env: Record<string, string> = {}
) =>
  Effect.gen(function*() {
    const provider = yield* ProviderServer.serve(script)
    const served = yield* ServeProcess.startServe(
      [...("A2A_DATA_DIR" in env ? [] : ["--memory"]), "--model", "openai-compat:llama-test", ...args],
      ProviderServer.cleanEnv({ OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: KEY, ...env })
    )
    const { client } = yield* connect(served.base, "JSONRPC")
    return { provider, served, client }
  })

/** A run expected to end by itself: its exit code and everything it printed. */
const runToExit = (args: ReadonlyArray<string>, env: Record<string, string>, nodeArgs: ReadonlyArray<string> = []) =>
  ServeProcess.runToExit(args, ProviderServer.cleanEnv(env), nodeArgs)

const lastStatus = (events: ReadonlyArray<{ payload?: { $case: string; value: unknown } | undefined }>) => {
  const last = events[events.length - 1]?.payload
  return last?.$case === "statusUpdate"
    ? (last.value as { status?: { state: TaskState; message?: { parts: ReadonlyArray<never> } } }).status
    : undefined
}

describe("effect-a2a serve --model", () => {
  it.live(
    "serves an LLM agent on the SQLite store: the card from a file and flags, the instructions from a file, the answer streamed",
    () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(join(tmpdir(), "a2a-serve-model-"))
        const instructions = join(dir, "prompt.md")
        writeFileSync(instructions, "You are the weather desk. Answer in one line.")
        const cardFile = join(dir, "card.json")
        writeFileSync(cardFile, JSON.stringify({ name: "From the file", description: "Forecasts, from the card file" }))
        const { client, provider, served } = yield* serveModel(
          () => ProviderServer.OpenAi.text(["Sunny ", "all ", "day"]),
          [
            "--instructions",
            instructions,
            "--card",
            cardFile,
            "--name",
            "Weather desk",
            "--skill",
            "forecast: Tells the weather"
          ],
          { A2A_DATA_DIR: join(dir, "data") }
        )
        const card = yield* Effect.promise(() =>
          fetch(`${served.base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) =>
            r.json()
          )
        ) as Effect.Effect<
          { name: string; description: string; skills: ReadonlyArray<{ id: string; description: string }> }
        >
        assert.strictEqual(card.name, "Weather desk")
        assert.strictEqual(card.description, "Forecasts, from the card file")
        assert.deepStrictEqual(card.skills.map((s) => [s.id, s.description]), [["forecast", "Tells the weather"]])

        const events = yield* collect(client.sendMessageStream(request("Weather in Paris?")))
        const artifactText = events.flatMap((e) =>
          e.payload?.$case === "artifactUpdate" ? [textOf(e.payload.value.artifact?.parts ?? [])] : []
        ).join("")
        assert.strictEqual(artifactText, "Sunny all day")
        assert.strictEqual(lastStatus(events)?.state, TaskState.TASK_STATE_COMPLETED)

        const sent = provider.requests[0]!
        assert.strictEqual(sent.headers["authorization"], `Bearer ${KEY}`)
        assert.strictEqual(sent.body["model"], "llama-test")
        const messages = sent.body["messages"] as Array<{ role: string; content: unknown }>
        assert.deepStrictEqual(messages[0], {
          role: "system",
          content: "You are the weather desk. Answer in one line."
        })
        assert.include(JSON.stringify(messages[messages.length - 1]), "Weather in Paris?")

        // the next message in that context continues the conversation: the model sees the first turn
        const contextId = events[0]?.payload?.$case === "task" ? events[0].payload.value.contextId : ""
        assert.notStrictEqual(contextId, "")
        yield* collect(
          client.sendMessageStream({ ...request("And tomorrow?"), message: message("And tomorrow?", { contextId }) })
        )
        const history = JSON.stringify(provider.requests[1]!.body["messages"])
        for (const said of ["Weather in Paris?", "Sunny all day", "And tomorrow?"]) assert.include(history, said)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a conversation survives a restart: serve killed (SIGKILL) after an answer, started again on its data directory",
    () =>
      Effect.gen(function*() {
        const env = { A2A_DATA_DIR: join(mkdtempSync(join(tmpdir(), "a2a-serve-model-restart-")), "data") }
        const contextId = yield* Effect.scoped(Effect.gen(function*() {
          const { client } = yield* serveModel(() => ProviderServer.OpenAi.text(["Snow ", "in Oslo"]), [], env)
          const events = yield* collect(client.sendMessageStream(request("Weather in Oslo?")))
          assert.strictEqual(lastStatus(events)?.state, TaskState.TASK_STATE_COMPLETED)
          return events[0]?.payload?.$case === "task" ? events[0].payload.value.contextId : ""
        }))
        assert.notStrictEqual(contextId, "")
        // a new process on the same SQLite file (the first was killed when its scope closed)
        const { client, provider } = yield* serveModel(() => ProviderServer.OpenAi.text(["Rain"]), [], env)
        yield* collect(
          client.sendMessageStream({ ...request("And tomorrow?"), message: message("And tomorrow?", { contextId }) })
        )
        const history = JSON.stringify(provider.requests[0]!.body["messages"])
        for (const said of ["Weather in Oslo?", "Snow in Oslo", "And tomorrow?"]) assert.include(history, said)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "refused credentials end the task AUTH_REQUIRED; an error in the stream FAILED, naming it, never the key",
    () =>
      Effect.gen(function*() {
        const { client } = yield* serveModel((_, index) =>
          index === 0
            ? ProviderServer.OpenAi.error(
              401,
              `Incorrect API key provided: ${KEY}`,
              "invalid_request_error",
              "invalid_api_key"
            )
            : ProviderServer.OpenAi.errorMidStream(["Par", "tial"], `the upstream model crashed (key ${KEY})`)
        )
        const refused = yield* collect(client.sendMessageStream(request("hi")))
        assert.strictEqual(lastStatus(refused)?.state, TaskState.TASK_STATE_AUTH_REQUIRED)
        assert.notInclude(JSON.stringify(refused), KEY)

        const failed = yield* collect(client.sendMessageStream(request("hi again")))
        const status = lastStatus(failed)
        assert.strictEqual(status?.state, TaskState.TASK_STATE_FAILED)
        assert.include(JSON.stringify(status), "the upstream model crashed")
        assert.notInclude(JSON.stringify(failed), KEY)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("CancelTask interrupts the model call: the provider sees its request closed", () =>
    Effect.gen(function*() {
      const { client, provider } = yield* serveModel(() => ProviderServer.OpenAi.hanging(["Thinking"]))
      const started = yield* Effect.promise(() => client.sendMessage(request("think hard", true)))
      const taskId = (started as Task).id
      for (let i = 0; i < 500 && provider.requests.length === 0; i++) yield* Effect.sleep("10 millis")
      assert.strictEqual(provider.requests.length, 1, "the model was called")
      const canceled = yield* Effect.promise(() => client.cancelTask({ tenant: "", id: taskId, metadata: undefined }))
      assert.strictEqual(canceled.status?.state, TaskState.TASK_STATE_CANCELED)
      const closed = yield* Effect.promise(() => provider.requests[0]!.closedEarly).pipe(
        Effect.timeoutOption("10 seconds")
      )
      assert.strictEqual(closed._tag, "Some", "the provider request was closed")
    }).pipe(Effect.scoped), 60_000)

  it.live(
    "a missing key, base URL or provider package, a bad spec: one line each, exit 1",
    () =>
      Effect.gen(function*() {
        const oneLine = (run: { code: number | null; output: string }, expected: string) => {
          assert.strictEqual(run.code, 1, run.output)
          assert.include(run.output, expected)
          assert.notMatch(run.output, /\n\s+at |\.ts:\d+:\d+/)
          assert.notInclude(run.output, "listening on")
        }
        oneLine(
          yield* runToExit(["--model", "openai:gpt-4o-mini"], {}),
          "--model openai:gpt-4o-mini needs OPENAI_API_KEY (your OpenAI API key)"
        )
        oneLine(
          yield* runToExit(["--model", "anthropic:claude-x"], { OPENAI_API_KEY: KEY }),
          "--model anthropic:claude-x needs ANTHROPIC_API_KEY"
        )
        oneLine(
          yield* runToExit(["--model", "openai-compat:llama3"], {}),
          "--model openai-compat:llama3 needs OPENAI_BASE_URL"
        )
        oneLine(yield* runToExit(["--model", "gpt-4o"], {}), "--model \"gpt-4o\" is not PROVIDER:MODEL")
        oneLine(
          yield* runToExit(
            ["--model", "anthropic:claude-x"],
            { ANTHROPIC_API_KEY: KEY, A2A_TEST_HIDE_PACKAGES: "@ai-sdk/anthropic" },
            ["--import", HIDE_PACKAGES]
          ),
          "--model anthropic:claude-x needs the package @ai-sdk/anthropic: npm install @ai-sdk/anthropic zod"
        )
        oneLine(
          yield* runToExit(["--instructions", "prompt.md"], {}),
          "--instructions goes with --model PROVIDER:MODEL"
        )
        oneLine(
          yield* runToExit(["--model", "openai-compat:llama3", "--card", "no-such-card.json"], {
            OPENAI_BASE_URL: "http://127.0.0.1:9/v1"
          }),
          "--card no-such-card.json: no such file"
        )
      }),
    90_000
  )
})
