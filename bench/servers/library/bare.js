/**
 * The floor: a bare node:http server, plain JavaScript, answering every request with a fixed JSON body of the shape
 * an A2A server returns (the card, a message, a completed task), reading the request body without parsing it. What
 * Node itself holds for a server under the same load. PORT picks the port.
 */
import { createServer } from "node:http"

const port = Number(process.env["PORT"] ?? 8080)
const origin = `http://127.0.0.1:${port}`

const json = (value) => Buffer.from(JSON.stringify(value))
const message = { messageId: "m-1", contextId: "c-1", role: "ROLE_AGENT", parts: [{ text: "echo hello" }] }
const task = {
  id: "t-1",
  contextId: "c-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00.000Z" },
  artifacts: [{ artifactId: "result", parts: [{ text: "task hello" }] }]
}
const card = json({
  name: "Echo agent",
  description: "Repeats what you say",
  supportedInterfaces: [
    { url: `${origin}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: `${origin}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }
  ],
  version: "1.0.0",
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: []
})
const rpcMessage = json({ jsonrpc: "2.0", id: 1, result: { message } })
const rpcTask = json({ jsonrpc: "2.0", id: 1, result: task })
const restMessage = json({ message })
const restTask = json(task)
const getTask = Buffer.from("\"GetTask\"")

const server = createServer((req, res) => {
  const chunks = []
  req.on("data", (chunk) => chunks.push(chunk))
  req.on("end", () => {
    const url = req.url ?? "/"
    const body = url === "/.well-known/agent-card.json"
      ? card
      : url.startsWith("/a2a/rest")
      ? (req.method === "GET" ? restTask : restMessage)
      : Buffer.concat(chunks).includes(getTask)
      ? rpcTask
      : rpcMessage
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length })
    res.end(body)
  })
})
server.listen(port, "127.0.0.1", () => console.log(`listening on ${origin}`))
