/**
 * The ceiling of any gateway on this machine: a bare node:http reverse proxy (no Effect, no A2A, no access check)
 * in front of the same upstream the `gateway` server starts (`ours.ts`, the trivial agent over the memory stores,
 * with the V8 flags the harness gives our servers), forwarding every request's bytes over keep-alive connections
 * and streaming the answer back. Only the agent card is rewritten (its URLs point at the proxy), so the harness
 * calls through it. What it keeps of the direct throughput is the most an extra HTTP hop on the same cores can keep.
 */
import * as Http from "node:http"
import { AGENT_CARD_PATH } from "../TrivialAgent.ts"
import { announce, exitOnSignal, installGcOnSignal, installProfiler, listen, startUpstream } from "./lifecycle.ts"

const upstream = new URL((await startUpstream()).origin)
const agent = new Http.Agent({ keepAlive: true, maxSockets: 256 })
const server = Http.createServer()
let origin = ""

server.on("request", (req, res) => {
  const outgoing = Http.request({
    host: upstream.hostname,
    port: upstream.port,
    method: req.method,
    path: req.url,
    headers: { ...req.headers, host: upstream.host },
    agent
  }, (answer) => {
    if (req.url === AGENT_CARD_PATH) {
      // The card, its URLs the proxy's.
      const chunks: Array<Buffer> = []
      answer.on("data", (chunk: Buffer) => chunks.push(chunk))
      answer.on("end", () => {
        const body = Buffer.from(Buffer.concat(chunks).toString("utf8").replaceAll(upstream.origin, origin))
        res.writeHead(answer.statusCode ?? 502, { "content-type": "application/json", "content-length": body.length })
        res.end(body)
      })
      return
    }
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  outgoing.on("error", () => {
    if (!res.headersSent) res.writeHead(502)
    res.end()
  })
  req.pipe(outgoing)
})

origin = await listen(server)
installProfiler()
installGcOnSignal()
exitOnSignal(server)
announce(origin)
