/**
 * The machine's ceiling: a bare node:http server answering each request with a fixed,
 * precomputed JSON body of the shape an A2A server returns (a message, a completed task, the
 * card). It reads the request body but does not parse it: one substring test picks GetTask.
 */
import * as Http from "node:http"
import { AGENT_CARD_PATH, agentCardJson, REST_PATH } from "../TrivialAgent.ts"
import { announce, exitOnSignal, installGcOnSignal, installProfiler, listen } from "./lifecycle.ts"

const contextId = "00000000-0000-4000-8000-000000000001"
const message = {
  messageId: "00000000-0000-4000-8000-000000000000",
  contextId,
  role: "ROLE_AGENT",
  parts: [{ text: "echo hello" }]
}
const task = {
  id: "00000000-0000-4000-8000-000000000002",
  contextId,
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00.000Z" },
  artifacts: [{ artifactId: "result", parts: [{ text: "task hello" }] }],
  history: [{ messageId: "00000000-0000-4000-8000-000000000003", role: "ROLE_USER", parts: [{ text: "task hello" }] }]
}

const server = Http.createServer()
const origin = await listen(server)

const json = (value: unknown) => Buffer.from(JSON.stringify(value))
const cardBody = json(agentCardJson(origin))
const rpcMessageBody = json({ jsonrpc: "2.0", id: 1, result: { message } })
const rpcTaskBody = json({ jsonrpc: "2.0", id: 1, result: task })
const restMessageBody = json({ message })
const restTaskBody = json(task)
const getTaskMarker = Buffer.from("\"GetTask\"")

const pick = (url: string, method: string | undefined, body: Buffer): Buffer => {
  if (url === AGENT_CARD_PATH) return cardBody
  if (url.startsWith(REST_PATH)) return method === "GET" ? restTaskBody : restMessageBody
  return body.includes(getTaskMarker) ? rpcTaskBody : rpcMessageBody
}

server.on("request", (req: Http.IncomingMessage, res: Http.ServerResponse) => {
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    const body = pick(req.url ?? "/", req.method, Buffer.concat(chunks))
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length })
    res.end(body)
  })
})

installProfiler()
installGcOnSignal()
exitOnSignal(server)
announce(origin)
