/**
 * GetTask through the real routes, in process: the A2A routes as a web handler (`HttpRouter.toWebHandler`), no
 * socket, so what is measured is the handler's own cost (routing, decoding, the RequestHandler, encoding) without
 * the kernel's loopback that dominates a profile over HTTP. Compare two checkouts by running it in each.
 *
 *   node bench/inprocess.ts [calls]
 */
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as A2AServer from "../src/server/A2AServer.ts"
import * as DemoAgent from "../src/server/DemoAgent.ts"
import * as A2AHttp from "../src/server/http/A2AHttp.ts"

const calls = Number(process.argv[2] ?? 20_000)

const app = Layer.mergeAll(A2AHttp.routes({}), A2AHttp.notFound).pipe(
  Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }))
)
const { dispose, handler } = HttpRouter.toWebHandler(app, { disableLogger: true })

const headers = { "content-type": "application/json", "a2a-version": "1.0" }
const post = (body: unknown) =>
  handler(new Request("http://127.0.0.1/", { method: "POST", headers, body: JSON.stringify(body) }))

const sent = await post({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "task report" }] } }
})
const id = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id

const scenarios: ReadonlyArray<readonly [string, () => Promise<Response>]> = [
  ["REST GetTask", () => handler(new Request(`http://127.0.0.1/tasks/${id}`, { headers }))],
  ["JSON-RPC GetTask", () => post({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id } })]
]

// Two passes: the first warms the JIT, the second is reported.
for (const pass of [1, 2]) {
  for (const [name, call] of scenarios) {
    for (let i = 0; i < calls / 5; i++) await (await call()).text()
    const start = performance.now()
    for (let i = 0; i < calls; i++) await (await call()).text()
    const micros = ((performance.now() - start) * 1000) / calls
    if (pass === 2) console.log(`${name}: ${micros.toFixed(2)} µs/call`)
  }
}
await dispose()
