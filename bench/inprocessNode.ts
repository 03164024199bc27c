/**
 * GetTask through Node's HTTP server, the platform's Node handler and the routes as `NodeA2AServer.serve` mounts them
 * (with NodeNativeHttp), in one process and without the kernel: each request is pushed into a socket of our own (a
 * Duplex, which Node's server takes through its documented `connection` event) and its answer read back from what
 * the server writes to it, one request at a time. Over HTTP the loopback's send and the load generator sharing the
 * cores move the CPU per request by more than a few µs; this does not, so a change of 1-3 µs shows. Node's parser
 * is driven from JavaScript here (`socketOnData`), where a real socket feeds it from C++ (one callback scope per
 * parser event): the cost of a POST's body over a GET's is smaller here than over HTTP.
 *
 * With `--tcp` the requests go over a real loopback connection instead, from a client in the same process: the
 * figures then include the kernel and the client, and Node's parser is fed as in a server.
 *
 *   node bench/inprocessNode.ts [--tcp] [calls per pass] [name filter]   # the best of 6 passes (after a warm-up pass)
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Net from "node:net"
import { Duplex } from "node:stream"
import * as A2AHttp from "../src/http/A2AHttp.ts"
import { http } from "../src/node/internal/NodeHttpModule.ts"
import * as NodeNativeHttp from "../src/node/NodeNativeHttp.ts"
import * as A2AServer from "../src/server/A2AServer.ts"
import * as DemoAgent from "../src/server/DemoAgent.ts"

const scope = Effect.runSync(Scope.make())
const services = await Effect.runPromise(Layer.buildWithScope(
  A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }),
  scope
))
const handler = await Effect.runPromise(
  Effect.gen(function*() {
    const app = yield* HttpRouter.toHttpEffect(Layer.mergeAll(
      A2AHttp.routes({ directStreams: true }).pipe(Layer.provide(NodeNativeHttp.layer)),
      A2AHttp.notFound
    ))
    return yield* NodeHttpServer.makeHandler(app, { scope })
  }).pipe(Effect.provide(Context.add(services, Scope.Scope, scope)))
)

const server = http.createServer()
server.on("request", handler)

/** One keep-alive connection: what is pushed is what the server reads; an answer is complete at its Content-Length. */
class FakeSocket extends Duplex {
  received = ""
  onAnswer: ((text: string) => void) | undefined
  // What the server and the platform read of a TCP socket.
  remoteAddress = "127.0.0.1"
  remotePort = 5555
  encrypted = false
  override _read() {}
  override _write(chunk: Buffer, _: string, cb: () => void) {
    this.collect(chunk)
    cb()
  }
  override _writev(chunks: Array<{ chunk: Buffer }>, cb: () => void) {
    for (const c of chunks) this.collect(c.chunk)
    cb()
  }
  setTimeout() {
    return this
  }
  setNoDelay() {
    return this
  }
  setKeepAlive() {
    return this
  }
  collect(chunk: Buffer | string) {
    this.received += chunk.toString()
    const end = this.received.indexOf("\r\n\r\n")
    if (end === -1) return
    const length = Number(/content-length: (\d+)/i.exec(this.received.slice(0, end))?.[1] ?? 0)
    if (this.received.length < end + 4 + length) return
    const answer = this.received.slice(0, end + 4 + length)
    this.received = this.received.slice(end + 4 + length)
    const done = this.onAnswer
    this.onAnswer = undefined
    done?.(answer)
  }
}
// With --tcp: a real loopback connection instead (the kernel's cost in the figures, Node's parser fed from C++).
const tcp = process.argv.includes("--tcp")
const args = process.argv.slice(2).filter((a) => a !== "--tcp")
let ask: (bytes: Buffer) => Promise<string>
if (tcp) {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const client = Net.connect({
    port: typeof address === "object" && address !== null ? address.port : 0,
    host: "127.0.0.1"
  })
  client.setNoDelay(true)
  const reader = new FakeSocket()
  client.on("data", (chunk: Buffer) => reader.collect(chunk))
  ask = (bytes) =>
    new Promise<string>((resolve) => {
      reader.onAnswer = resolve
      client.write(bytes)
    })
} else {
  const socket = new FakeSocket()
  server.emit("connection", socket)
  ask = (bytes) =>
    new Promise<string>((resolve) => {
      socket.onAnswer = resolve
      socket.push(bytes)
    })
}

const headers = "Host: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nConnection: keep-alive\r\n"
const post = (body: string) =>
  Buffer.from(`POST / HTTP/1.1\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
const get = (path: string) => Buffer.from(`GET ${path} HTTP/1.1\r\n${headers}\r\n`)

const sent = await ask(post(JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "task report" }] } }
})))
const id = /"id":"([^"]+)","contextId"/.exec(sent)![1]!

const scenarios: Array<[string, Buffer, string]> = [
  ["REST GetTask", get(`/tasks/${id}`), "\"status\""],
  ["JSON-RPC GetTask", post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id } })), "\"result\""]
]
const calls = Number(args[0] ?? 5000)
const only = args[1]
const best = new Map<string, number>()
for (let pass = 0; pass < 7; pass++) {
  for (const [name, bytes, marker] of scenarios) {
    if (only !== undefined && !name.includes(only)) continue
    const count = calls
    const cpu = process.cpuUsage()
    for (let i = 0; i < count; i++) {
      const answer = await ask(bytes)
      if (!answer.includes(marker) || !answer.startsWith("HTTP/1.1 200")) throw new Error(answer.slice(0, 300))
    }
    const used = process.cpuUsage(cpu)
    const micros = (used.user + used.system) / count
    if (pass > 0) best.set(name, Math.min(best.get(name) ?? Infinity, micros))
  }
}
console.log([...best].map(([name, micros]) => `${name}: ${micros.toFixed(2)}`).join(", "), "(CPU µs/call, best of 6)")
process.exit(0)
