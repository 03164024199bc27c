/**
 * An orchestrator end to end, every part real but the model: an LLM agent (LlmAgent over a scripted model) served
 * by our server on 127.0.0.1, whose tools are our demo agent's server, a server built with @a2a-js/sdk and an MCP
 * server of the official SDK (stdio). A client sends it a message; the model delegates to all three in one step and
 * answers with their results. A second run shows the model answering an agent's question with its task id.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Prompt } from "effect/ai"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { resolve } from "node:path"
import * as ScriptedModel from "../../src/ai/ScriptedModel.ts"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import * as Orchestrator from "../../src/mcp/Orchestrator.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { Ours, serveDemo } from "../client/OurServer.ts"
import { taskOf } from "../client/Results.ts"
import { SdkPeer } from "../interop/client/SdkServer.ts"
import { toolCalls } from "./ModelCalls.ts"

const fixture = resolve(import.meta.dirname, "..", "fixtures", "McpStdioServer.ts")

/** The results of the tool calls in a prompt, by tool name (as the model reads them: encoded). */
const resultsIn = (prompt: Prompt.Prompt): Record<string, unknown> =>
  Object.fromEntries(prompt.content.flatMap((message) =>
    message.role === "tool"
      ? message.content.flatMap((part) => part.type === "tool-result" ? [[part.name, part.result] as const] : [])
      : []
  ))

/** Serves an orchestrator over our server and the SDK's, with this model; returns a client of it. */
const orchestrator = (respond: (request: ScriptedModel.Request) => ScriptedModel.Reply) =>
  Effect.gen(function*() {
    const ours = yield* Ours
    const sdk = yield* SdkPeer
    const executor = Orchestrator.layer({
      instructions: "You delegate to the agents you have as tools.",
      agents: [ours.url, sdk.url],
      mcpServers: [{ command: process.execPath, args: [fixture], prefix: "math" }]
    }).pipe(
      Layer.provide([ScriptedModel.layer(respond), FetchHttpClient.layer, NodeServices.layer]),
      Layer.orDie
    )
    const served = yield* serveDemo({ card: { ...DemoAgent.card, name: "Orchestrator" }, executor })
    return yield* A2AClient.resolve(served.url)
  })

layer(Layer.mergeAll(Ours.layer, SdkPeer.layer, FetchHttpClient.layer), { excludeTestServices: true })(
  "Orchestrator",
  (it) => {
    describe("an LLM agent whose tools are A2A agents and an MCP server", () => {
      it.effect("delegates to our agent, the SDK's agent and the MCP tool, and answers with all three results", () =>
        Effect.gen(function*() {
          const prompts: Array<Prompt.Prompt> = []
          const tools: Array<ReadonlyArray<string>> = []
          const client = yield* orchestrator((request) => {
            prompts.push(request.prompt)
            tools.push(request.tools.map((tool) => tool.name))
            if (prompts.length === 1) {
              return toolCalls([
                { name: "effect-a2a_demo_agent", params: { text: "task write a report" } },
                { name: "SDK_Interop_Agent", params: { text: "hello" } },
                { name: "math__add", params: { a: 20, b: 22 } }
              ])
            }
            const results = resultsIn(request.prompt)
            const textOfResult = (name: string) => (results[name] as { text: string }).text
            return ScriptedModel.text([
              `Report: ${textOfResult("effect-a2a_demo_agent")}`,
              ` | SDK: ${textOfResult("SDK_Interop_Agent")}`,
              ` | sum: ${String(results["math__add"])}`
            ])
          })
          const task = yield* Effect.flatMap(client.sendMessage({ message: userText("Do the three things") }), taskOf)
          expect(task.status.state).toBe("TASK_STATE_COMPLETED")
          expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual([
            "Report: Chunk 1. Chunk 2. Chunk 3.\n\nDone: step 3 of 3 | SDK: echo: hello | sum: 42"
          ])
          expect(tools[0]).toEqual([
            "effect-a2a_demo_agent",
            "SDK_Interop_Agent",
            "math__add",
            "math__weather_lookup",
            "math__broken",
            "math__forever",
            "math__stats"
          ])
          expect(prompts).toHaveLength(2)
        }))

      it.effect("reads what an agent asks and answers it with the task id; an agent's error is read too", () =>
        Effect.gen(function*() {
          const seen: Array<Record<string, unknown>> = []
          const client = yield* orchestrator((request) => {
            const results = resultsIn(request.prompt)
            seen.push(results)
            const asked = results["effect-a2a_demo_agent"] as { _tag: string; taskId: string } | undefined
            if (asked === undefined) {
              return toolCalls([
                { name: "effect-a2a_demo_agent", params: { text: "ask" } },
                { name: "SDK_Interop_Agent", params: { text: "x", taskId: "nope" } }
              ])
            }
            if (asked._tag === "InputRequired") {
              return toolCalls([{ name: "effect-a2a_demo_agent", params: { text: "Ada", taskId: asked.taskId } }])
            }
            const error = seen[1]!["SDK_Interop_Agent"] as { reason: string; code: string }
            return ScriptedModel.text(`${(asked as unknown as { text: string }).text} (${error.reason} ${error.code})`)
          })
          const task = yield* Effect.flatMap(client.sendMessage({ message: userText("Greet Ada") }), taskOf)
          expect(task.status.state).toBe("TASK_STATE_COMPLETED")
          expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual([
            "Hello, Ada!\n\nNice to meet you, Ada. (A2AError TaskNotFound)"
          ])
          expect(seen[1]!["effect-a2a_demo_agent"]).toMatchObject({
            _tag: "InputRequired",
            question: "What is your name?"
          })
        }))
    })
  }
)
