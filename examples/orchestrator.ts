// An orchestrator on http://127.0.0.1:8080: an LLM agent whose tools are two other A2A agents (served here by the
// same process, on 8081 and 8082). Its model is a scripted stand-in that asks one agent, then the other, then
// answers with what they said; for a real one provide a provider's layer instead (e.g. @effect/ai-openai's).
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { ScriptedModel } from "effect-a2a/ai"
import { Orchestrator } from "effect-a2a/mcp"
import { NodeA2AServer } from "effect-a2a/node"
import { A2AServer, AgentExecutor } from "effect-a2a/server"
import { FetchHttpClient } from "effect/http"

const card = (name: string, description: string) => ({
  name,
  description,
  version: "1.0.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "main", name, description, tags: ["example"] }]
})

const agent = (port: number, name: string, description: string, reply: (text: string) => string) =>
  NodeA2AServer.serve({ port }).pipe(
    Layer.provide(A2AServer.layer({ card: card(name, description), executor: AgentExecutor.replyWithText(reply) }))
  )

// the stand-in: one tool call per step, then the answer from the agents' results
const model = ScriptedModel.layer(({ prompt }) => {
  const said = prompt.content.flatMap((message) =>
    message.role === "tool"
      ? message.content.flatMap((part) => part.type === "tool-result" ? [(part.result as { text: string }).text] : [])
      : []
  )
  if (said.length === 0) return ScriptedModel.toolCall("Weather", { text: "Paris" })
  if (said.length === 1) return ScriptedModel.toolCall("Calendar", { text: "Friday" })
  return ScriptedModel.text(`${said.join(", and you are ")}.`)
})

// the tools are the agents at these URLs, named and described from their cards
const orchestrator = Orchestrator.layer({
  instructions: "You plan outings: ask the Weather agent, then the Calendar agent.",
  agents: ["http://127.0.0.1:8081", "http://127.0.0.1:8082"]
}).pipe(Layer.provide([model, FetchHttpClient.layer, NodeServices.layer]))

const planner = NodeA2AServer.serve({ port: 8080 }).pipe(
  Layer.provide(A2AServer.layer({ card: card("Planner", "Plans outings with other agents"), executor: orchestrator }))
)

// the agents listen before the orchestrator reads their cards; each server is built on its own
Effect.gen(function*() {
  yield* Layer.build(agent(8081, "Weather", "The weather in a city", (city) => `Sunny in ${city}`))
  yield* Layer.build(agent(8082, "Calendar", "Free time on a day", (day) => `free on ${day} after 2pm`))
  return yield* Layer.launch(planner)
}).pipe(Effect.scoped, NodeRuntime.runMain)
