/**
 * The ceiling of any gateway on this machine: a bare node:http reverse proxy (no Effect, no A2A, no access check)
 * in front of the same upstream the `gateway` server starts (`ours.ts`, the trivial agent over the memory stores,
 * with the V8 flags the harness gives our servers), forwarding every request's bytes over keep-alive connections
 * and streaming the answer back. Only the agent card is rewritten (its URLs point at the proxy), so the harness
 * calls through it. What it keeps of the direct throughput is the most an extra HTTP hop on the same cores can keep.
 */
import { spawn } from "node:child_process"
import * as Http from "node:http"
import * as Path from "node:path"
import * as V8 from "node:v8"
import { serveFlags } from "../../src/cli/Relaunch.ts"
import { AGENT_CARD_PATH, ALLOCATION_PROFILE_ENV, PROFILE_ENV, READY_PREFIX } from "../TrivialAgent.ts"
import { announce, exitOnSignal, installGcOnSignal, installProfiler, listen } from "./lifecycle.ts"

/** Starts the upstream agent as this process's child; its origin once it is ready. */
const startUpstream = (): Promise<string> =>
  new Promise((resolve, reject) => {
    const env = { ...process.env }
    delete env[PROFILE_ENV]
    delete env[ALLOCATION_PROFILE_ENV]
    const child = spawn(
      process.execPath,
      ["--expose-gc", ...serveFlags(V8.getHeapStatistics().heap_size_limit), Path.join(import.meta.dirname, "ours.ts")],
      { env, stdio: ["ignore", "pipe", "inherit"] }
    )
    process.once("exit", () => child.kill("SIGKILL"))
    let buffered = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk
      const line = buffered.split("\n").find((l) => l.startsWith(READY_PREFIX))
      if (line !== undefined) resolve((JSON.parse(line.slice(READY_PREFIX.length)) as { origin: string }).origin)
    })
    child.once("exit", (code) => reject(new Error(`the upstream agent exited with ${code}`)))
  })

const upstream = new URL(await startUpstream())
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
