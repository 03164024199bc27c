/**
 * The floor of an idle stream on Node: a bare node:http server that answers SendStreamingMessage with an SSE
 * response holding one event (a submitted task) and keeps it open, with nothing else per stream than the response
 * in a map, until CancelTask for that task ends it. No A2A logic, no task store, no parsing beyond JSON.parse:
 * what any Node server pays per idle SSE connection (the socket, the parser, the request and response objects),
 * measured the same way as the A2A servers (bench/idleSpaces.ts).
 */
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import { AGENT_CARD_PATH, agentCardJson } from "../TrivialAgent.ts"
import { announce, exitOnSignal, installGcOnSignal, listen } from "./lifecycle.ts"

const server = Http.createServer()
const origin = await listen(server)
const cardBody = Buffer.from(JSON.stringify(agentCardJson(origin)))
const held = new Map<string, Http.ServerResponse>()

const task = (id: string, state: string) => ({ id, contextId: id, status: { state } })

server.on("request", (req: Http.IncomingMessage, res: Http.ServerResponse) => {
  if (req.url === AGENT_CARD_PATH) {
    res.writeHead(200, { "content-type": "application/json", "content-length": cardBody.length })
    res.end(cardBody)
    return
  }
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      id: unknown
      method: string
      params: { id?: string }
    }
    if (request.method === "SendStreamingMessage") {
      const id = randomUUID()
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      res.write(
        `data: ${
          JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { task: task(id, "TASK_STATE_SUBMITTED") } })
        }\n\n`
      )
      held.set(id, res)
      res.on("close", () => held.delete(id))
      return
    }
    const id = request.params.id ?? ""
    held.get(id)?.end()
    const body = Buffer.from(
      JSON.stringify({ jsonrpc: "2.0", id: request.id, result: task(id, "TASK_STATE_CANCELED") })
    )
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length })
    res.end(body)
  })
})

installGcOnSignal()
exitOnSignal(server)
announce(origin)
