// The echo agent as a module for `effect-a2a serve --agent examples/echo-agent-module.ts`: the command brings
// the server (stores, auth, push notifications, A2A 0.3, card URLs); the module brings the agent and its card.
import { AgentExecutor } from "effect-a2a/server"

export const agent = AgentExecutor.replyWithText((text) => `You said: ${text}`)

export const card = {
  name: "Echo agent",
  description: "Repeats what you say",
  version: "1.0.0",
  skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
}
