/**
 * The bench server as `npm run bench` starts it (bench/servers/ours.ts: `NodeA2AServer.serve` over the memory stores,
 * the trivial agent, gRPC beside HTTP, API docs on; give node serve's V8 flags, `serveFlags` in src/cli/Relaunch.ts),
 * driven by a client in the same process over a loopback keep-alive connection, one request at a time: the
 * process's CPU per call (server and client), the best of 6 passes after a warm-up pass.
 * Where the load generator and the other processes on a shared machine move the HTTP bench's CPU per request by
 * more than the difference sought, the best of several quiet passes of the same process moves much less; and what
 * the server mounts around the routes (`serve`'s own composition) is in it, which bench/inprocessNode.ts leaves out.
 * `--no-api-docs` serves without the OpenAPI document and its page (`apiDocs: false`).
 *
 * When even the best pass moves with the machine's load, count instructions instead: run it under valgrind's
 * callgrind with instrumentation off at the start and `--callgrind`, and the last pass alone is counted (its
 * "Collected" divided by the calls per pass, one scenario named), a figure the other processes do not move.
 *
 *   node bench/inprocessServe.ts [--no-api-docs] [calls per pass] [name filter]
 *   valgrind --tool=callgrind --instr-atstart=no node --single-threaded bench/inprocessServe.ts --callgrind 1000 "JSON-RPC GetTask"
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as NetAddress from "effect/net/NetAddress"
import * as Scope from "effect/Scope"
import { exec } from "node:child_process"
import * as Net from "node:net"
import * as NodeA2AServer from "../src/node/NodeA2AServer.ts"
import * as A2AServer from "../src/server/A2AServer.ts"
import { rpcBody, sendMessageParams } from "./Requests.ts"
import { card } from "./servers/oursAgent.ts"
import { executor } from "./servers/oursLlm.ts"
import { AGENT_CARD_PATH, JSONRPC_PATH, REST_PATH, TASK } from "./TrivialAgent.ts"

const apiDocs = !process.argv.includes("--no-api-docs")
const callgrind = process.argv.includes("--callgrind")
const args = process.argv.slice(2).filter((a) => !a.startsWith("--"))

const scope = Effect.runSync(Scope.make())
const services = await Effect.runPromise(Layer.buildWithScope(
  NodeA2AServer.serve({
    host: "127.0.0.1",
    port: 0,
    jsonRpcPath: JSONRPC_PATH,
    restPath: REST_PATH,
    cardPath: AGENT_CARD_PATH,
    // gRPC beside HTTP, as the bench server runs
    grpcPort: 0,
    shutdownTimeout: 0,
    releaseMemoryWhenIdle: false,
    apiDocs
  }).pipe(Layer.provide(A2AServer.layer({ card, executor }))),
  scope
))
const address = Context.get(services, HttpServer.HttpServer).address
const port = NetAddress.isInetAddress(address) ? address.port : 0

/**
 * A keep-alive connection and how to ask on it, one request at a time: an answer is complete at its Content-Length.
 * One the server closes (left idle past its keep-alive timeout, as under valgrind) is opened again, and a request
 * it was asked is asked again.
 */
const connect = async (): Promise<{ ask: (bytes: Buffer) => Promise<string>; close: () => void }> => {
  let received = ""
  let pending: { readonly bytes: Buffer; readonly resolve: (text: string) => void } | undefined
  let closed = false
  let client: Net.Socket
  const open = () =>
    new Promise<void>((resolve) => {
      received = ""
      client = Net.connect({ port, host: "127.0.0.1" })
      client.setNoDelay(true)
      client.on("data", (chunk: Buffer) => {
        received += chunk.toString()
        const end = received.indexOf("\r\n\r\n")
        if (end === -1) return
        const length = Number(/content-length: (\d+)/i.exec(received.slice(0, end))?.[1] ?? 0)
        if (received.length < end + 4 + length) return
        const answer = received.slice(0, end + 4 + length)
        received = received.slice(end + 4 + length)
        const done = pending
        pending = undefined
        done?.resolve(answer)
      })
      // A reset is followed by "close", where the request is asked again.
      client.on("error", () => {})
      client.on("close", () => {
        if (closed) return
        void open().then(() => {
          if (pending !== undefined) client.write(pending.bytes)
        })
      })
      client.once("connect", () => resolve())
    })
  await open()
  return {
    ask: (bytes) =>
      new Promise<string>((resolve) => {
        pending = { bytes, resolve }
        client.write(bytes)
      }),
    close: () => {
      closed = true
      client.destroy()
    }
  }
}

const headers =
  `Host: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nConnection: keep-alive\r\n`
const post = (body: string) =>
  Buffer.from(`POST ${JSONRPC_PATH} HTTP/1.1\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
const get = (path: string) => Buffer.from(`GET ${path} HTTP/1.1\r\n${headers}\r\n`)

let sent = 0
const sendTask = () => post(rpcBody("SendMessage", sendMessageParams(`${TASK} hello`, `m-${sent++}`)))
const newTask = async () => {
  const { ask, close } = await connect()
  const id = /"id":"([^"]+)","contextId"/.exec(await ask(sendTask()))![1]!
  close()
  return id
}

// Each pass reads a task of its own: the memory store forgets the earliest ended tasks once it holds 10,000.
const scenarios: Array<[string, (id: string) => () => Buffer, string]> = [
  ["JSON-RPC GetTask", (id) => {
    const bytes = post(rpcBody("GetTask", { id }))
    return () => bytes
  }, "TASK_STATE_COMPLETED"],
  ["REST GetTask", (id) => {
    const bytes = get(`${REST_PATH}/tasks/${encodeURIComponent(id)}`)
    return () => bytes
  }, "TASK_STATE_COMPLETED"],
  ["JSON-RPC SendMessage task", () => sendTask, "TASK_STATE_COMPLETED"]
]
const calls = Number(args[0] ?? 5000)
const only = args[1]
const best = new Map<string, number>()
// Under callgrind, its instrumentation is turned on for the last pass only (callgrind_control answers while the
// event loop waits, so not with a synchronous call).
const instrument = (on: boolean) =>
  new Promise<void>((resolve, reject) =>
    exec(`callgrind_control --instr=${on ? "on" : "off"} ${process.pid}`, (error) => error ? reject(error) : resolve())
  )
const PASSES = 7
for (let pass = 0; pass < PASSES; pass++) {
  for (const [name, request, marker] of scenarios) {
    if (only !== undefined && !name.includes(only)) continue
    const bytes = request(await newTask())
    const counted = callgrind && pass === PASSES - 1
    if (counted) await instrument(true)
    const { ask, close } = await connect()
    const cpu = process.cpuUsage()
    for (let i = 0; i < calls; i++) {
      const answer = await ask(bytes())
      if (!answer.startsWith("HTTP/1.1 200") || !answer.includes(marker)) throw new Error(answer.slice(0, 300))
    }
    const used = process.cpuUsage(cpu)
    close()
    if (counted) await instrument(false)
    if (pass > 0) best.set(name, Math.min(best.get(name) ?? Infinity, (used.user + used.system) / calls))
  }
}
console.log(
  `api docs ${apiDocs ? "on" : "off"}:`,
  [...best].map(([name, micros]) => `${name}: ${micros.toFixed(2)}`).join(", "),
  "(CPU µs/call, best of 6)"
)
process.exit(0)
