/**
 * `effect-a2a serve --model ... --mcp-server "CMD ARGS" --delegate URL` as a real child process: the model (a local
 * server speaking OpenAI's wire format) gets the tools of an MCP server of the official SDK (stdio) and of our demo
 * agent's server, calls one of each, and answers with their results. Misused or failing flags are one line and exit 1.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { resolve } from "node:path"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import { Ours } from "../client/OurServer.ts"
import { taskOf } from "../client/Results.ts"
import * as ProviderServer from "../fixtures/ProviderServer.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

const MCP_SERVER = `"${process.execPath}" "${resolve(import.meta.dirname, "..", "fixtures", "McpStdioServer.ts")}"`

/** What the model was given as the result of each tool call, by tool call id. */
const toolResults = (body: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    (body["messages"] as Array<{ role: string; tool_call_id?: string; content?: unknown }>)
      .filter((m) => m.role === "tool")
      .map((m) => [m.tool_call_id ?? "", typeof m.content === "string" ? m.content : JSON.stringify(m.content)])
  )

const runToExit = (args: ReadonlyArray<string>) =>
  ServeProcess.runToExit(
    args,
    ProviderServer.cleanEnv({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "sk-test-0123456789" })
  )

layer(Layer.mergeAll(Ours.layer, FetchHttpClient.layer), { excludeTestServices: true })(
  "effect-a2a serve --model with --mcp-server and --delegate",
  (it) => {
    it.effect("the model calls an MCP tool and a delegate agent, then answers with both results", () =>
      Effect.gen(function*() {
        const ours = yield* Ours
        const provider = yield* ProviderServer.serve((request, index) => {
          if (index === 0) return ProviderServer.OpenAi.toolCall("call-add", "add", ["{\"a\":2,", "\"b\":3}"])
          if (index === 1) {
            return ProviderServer.OpenAi.toolCall("call-agent", "effect-a2a_demo_agent", ["{\"text\":\"hi\"}"])
          }
          const results = toolResults(request.body)
          const echoed = (JSON.parse(results["call-agent"]!) as { text: string }).text
          return ProviderServer.OpenAi.text([`sum ${JSON.parse(results["call-add"]!)}`, ` and ${echoed}`])
        })
        const served = yield* ServeProcess.startServe(
          ["--memory", "--model", "openai-compat:llama-test", "--mcp-server", MCP_SERVER, "--delegate", ours.url],
          ProviderServer.cleanEnv({ OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: "sk-test-0123456789" })
        )
        const client = yield* A2AClient.resolve(served.base)
        const task = yield* Effect.flatMap(client.sendMessage({ message: userText("add, then greet") }), taskOf)
        expect(task.status.state, served.output()).toBe("TASK_STATE_COMPLETED")
        expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual(["sum 5 and Echo: hi"])
        const offered = (provider.requests[0]!.body["tools"] as Array<{ function: { name: string } }>)
          .map((tool) => tool.function.name)
        expect(offered).toEqual(
          expect.arrayContaining(["add", "weather_lookup", "broken", "forever", "stats", "effect-a2a_demo_agent"])
        )
        expect(provider.requests).toHaveLength(3)
      }).pipe(Effect.scoped))

    describe("one line and exit 1", () => {
      for (
        const [args, expected] of [
          [["--mcp-server", "npx x"], "--mcp-server goes with --model PROVIDER:MODEL"],
          [["--delegate", "http://127.0.0.1:9"], "--delegate goes with --model PROVIDER:MODEL"],
          [
            ["--model", "openai-compat:m", "--mcp-server", "cat | grep"],
            "--mcp-server \"cat | grep\":"
          ],
          [
            ["--model", "openai-compat:m", "--delegate", "http://127.0.0.1:9"],
            "The tools of --delegate / --mcp-server: A2ATransportError: Could not reach http://127.0.0.1:9"
          ]
        ] as const
      ) {
        it.effect(`${args.join(" ")}`, () =>
          Effect.gen(function*() {
            const run = yield* runToExit(args)
            expect(run.code, run.output).toBe(1)
            expect(run.output).toContain(expected)
            expect(run.output).not.toMatch(/\n\s+at |\.ts:\d+:\d+/)
          }))
      }
    })
  }
)
