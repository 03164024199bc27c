// An LLM agent with one tool on http://127.0.0.1:8080. Its model is a scripted stand-in, so this runs anywhere;
// for a real one provide a provider's layer instead, e.g. OpenAiLanguageModel.model("gpt-5.2") (@effect/ai-openai).
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { LlmAgent, ScriptedModel } from "effect-a2a/ai"
import { NodeA2AServer } from "effect-a2a/node"
import { A2AServer } from "effect-a2a/server"
import { Tool, Toolkit } from "effect/ai"

const Tools = Toolkit.make(Tool.make("get_time", { description: "The time now (ISO 8601)", success: Schema.String }))

// the stand-in: calls get_time, then answers with its result
const model = ScriptedModel.layer(({ prompt }) => {
  const result = prompt.content.at(-1)?.content[0]
  return typeof result === "object" && result.type === "tool-result"
    ? ScriptedModel.text(["It is ", `${result.result}.`])
    : ScriptedModel.toolCall("get_time", {})
})

const agent = LlmAgent.layer({ instructions: "You tell the time.", toolkit: Tools }).pipe(
  Layer.provide(Tools.toLayer({ get_time: () => Effect.sync(() => new Date().toISOString()) })),
  Layer.provide(model)
)

NodeA2AServer.serve({ port: 8080 }).pipe(
  Layer.provide(A2AServer.layer({
    card: {
      name: "Clock agent",
      description: "Tells the time",
      version: "1.0.0",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "time", name: "Time", description: "Tells the time", tags: ["llm"] }]
    },
    executor: agent
  })),
  Layer.launch,
  NodeRuntime.runMain
)
