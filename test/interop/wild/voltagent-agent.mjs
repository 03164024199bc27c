// A VoltAgent A2A server on 127.0.0.1, for the wild-agent interop test (test/interop/WildAgents.test.ts): VoltAgent
// as its users run it (@voltagent/core, the Hono server provider, @voltagent/a2a-server), with a scripted model
// from `ai/test` so nothing leaves the machine. Usage: node voltagent-agent.mjs PORT. Prints "READY <port>" once
// it listens.
import { A2AServer } from "@voltagent/a2a-server"
import { Agent, VoltAgent } from "@voltagent/core"
import { honoServer } from "@voltagent/server-hono"
import { MockLanguageModelV3, simulateReadableStream } from "ai/test"

const port = Number(process.argv[2])
const usage = { inputTokens: { total: 3 }, outputTokens: { total: 2 } }
const textOf = (prompt) =>
  prompt.flatMap((m) => Array.isArray(m.content) ? m.content : []).filter((p) => p.type === "text").map((p) => p.text)
    .join(" ")

const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => ({
    content: [{ type: "text", text: `echo: ${textOf(prompt)}` }],
    finishReason: { unified: "stop", raw: "stop" },
    usage,
    warnings: []
  }),
  doStream: async ({ prompt }) => ({
    stream: simulateReadableStream({
      chunks: [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "echo: " },
        { type: "text-delta", id: "t", delta: textOf(prompt) },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage }
      ]
    })
  })
})

const agent = new Agent({ id: "echo", name: "echo", instructions: "Repeat what the user says.", model })

new VoltAgent({
  agents: { echo: agent },
  a2aServers: { echo: new A2AServer({ id: "echo", name: "echo", version: "1.0.0" }) },
  server: honoServer({ port, hostname: "127.0.0.1", enableSwaggerUI: false })
})

// VoltAgent starts its server without telling when it listens: poll the card.
for (let i = 0; i < 200; i++) {
  const ok = await fetch(`http://127.0.0.1:${port}/.well-known/echo/agent-card.json`).then((r) => r.ok, () => false)
  if (ok) {
    console.log(`READY ${port}`)
    break
  }
  await new Promise((resolve) => setTimeout(resolve, 50))
}
