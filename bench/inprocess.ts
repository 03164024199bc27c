/**
 * The real routes, in process: the A2A routes as a web handler (`HttpRouter.toWebHandler`), no socket, so what is
 * measured is the handler's own cost (routing, decoding, the RequestHandler, the task runner, encoding) without the
 * kernel's loopback that dominates a profile over HTTP. GetTask runs against the demo agent; the event scenarios
 * against the benchmark's trivial agent (bench/servers/oursAgent.ts): a direct reply, a blocking task with one
 * artifact, and a stream of 12 events read to its end. Compare two checkouts by running it in each, alternated.
 *
 * With BENCH_STORE=sqlite (or sqlite-full) the trivial agent's server runs over what `effect-a2a serve` runs, the
 * SQLite store (a file in a fresh temporary directory, synchronous NORMAL or FULL), and each figure also says how
 * many task saves a call made; BENCH_COALESCE=0 turns coalescing off (one save per event, as before);
 * BENCH_RECEIPTS=0 keeps no message receipts (idempotency window zero: what a send cost before safe retries).
 *
 *   node bench/inprocess.ts [calls] [name filter, e.g. "Stream"]
 */
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as V8 from "node:v8"
import * as A2AHttp from "../src/http/A2AHttp.ts"
import * as WebhookPush from "../src/node/push/WebhookPush.ts"
import * as A2AServer from "../src/server/A2AServer.ts"
import * as DemoAgent from "../src/server/DemoAgent.ts"
import { TaskStore } from "../src/server/TaskStore.ts"
import * as DurableServer from "../src/sql/DurableServer.ts"
import * as SqlStore from "../src/sql/SqlStore.ts"
import { executor } from "./servers/oursAgent.ts"
import { agentCardJson, STREAM_EVENTS } from "./TrivialAgent.ts"

const calls = Number(process.argv[2] ?? 20_000)
const only = process.argv[3]

const routes = Layer.mergeAll(A2AHttp.routes({}), A2AHttp.notFound)
const demo = HttpRouter.toWebHandler(
  routes.pipe(Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }))),
  { disableLogger: true }
)
const { supportedInterfaces: _, ...card } = agentCardJson("")

// BENCH_RECEIPTS=0: no message receipts, on either store.
const noReceipts = process.env.BENCH_RECEIPTS === "0" ? { idempotencyWindow: 0 } : {}

/** Task saves made so far (counted on the SQLite store only). */
let saves = 0
const sqlite = (() => {
  const store = process.env.BENCH_STORE
  if (store !== "sqlite" && store !== "sqlite-full") return undefined
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "a2a-inprocess-"))
  process.on("exit", () => Fs.rmSync(dir, { recursive: true, force: true }))
  const counted = Layer.effect(
    TaskStore,
    Effect.map(TaskStore, (inner) =>
      TaskStore.of({
        ...inner,
        // BENCH_COALESCE=0: one save per event, as a store that does not coalesce saves.
        coalesceSaves: process.env.BENCH_COALESCE === "0" ? false : inner.coalesceSaves,
        save: (record) => Effect.andThen(Effect.sync(() => saves++), inner.save(record))
      }))
  )
  const stores = counted.pipe(Layer.provideMerge(SqlStore.layerSqlite({
    filename: Path.join(dir, "a2a.db"),
    synchronous: store === "sqlite-full" ? "FULL" : "NORMAL",
    ...noReceipts
  })))
  return DurableServer.layerWithStores(stores, { card, executor, push: WebhookPush.layerConfig })
})()
const trivial = HttpRouter.toWebHandler(
  routes.pipe(Layer.provide(sqlite ?? A2AServer.layer({ card, executor, ...noReceipts }))),
  { disableLogger: true }
)

const headers = { "content-type": "application/json", "a2a-version": "1.0" }
const postRequest = (body: unknown) =>
  new Request("http://127.0.0.1/", { method: "POST", headers, body: JSON.stringify(body) })
const post = (handler: typeof demo.handler, body: unknown) => handler(postRequest(body))

let messages = 0
const sendRequest = (method: string, text: string) =>
  postRequest({
    jsonrpc: "2.0",
    id: 3,
    method,
    params: { message: { messageId: `m-${messages++}`, role: "ROLE_USER", parts: [{ text }] } }
  })

const sent = await post(demo.handler, {
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "task report" }] } }
})
const id = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id

/** Each call's body, read whole; a wrong answer stops the run instead of being measured fast. */
const expect = (marker: string, count?: number) => async (response: Response) => {
  const body = await response.text()
  const found = body.split(marker).length - 1
  if ((count === undefined ? found === 0 : found !== count) || body.includes("\"error\":{")) {
    throw new Error(`unexpected answer: ${body.slice(0, 300)}`)
  }
}

/**
 * A call: the Request built (as a client of the web handler builds it), the handler, the check of the answer. The
 * Request is measured on its own too: a POST's body stream costs the caller ~7 µs more than a GET, which is not the
 * routes' cost (compare the routes' figures of a GET and a POST with it taken out).
 */
type Scenario = readonly [
  name: string,
  count: number,
  request: () => Request,
  handler: typeof demo.handler,
  check: (response: Response) => Promise<void>
]

const scenarios = ([
  [
    "REST GetTask",
    calls,
    () => new Request(`http://127.0.0.1/tasks/${id}`, { headers }),
    demo.handler,
    expect("\"id\"")
  ],
  [
    "JSON-RPC GetTask",
    calls,
    () => postRequest({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id } }),
    demo.handler,
    expect("\"result\"")
  ],
  [
    "JSON-RPC SendMessage -> Message",
    calls,
    () => sendRequest("SendMessage", "echo hi"),
    trivial.handler,
    expect("\"message\"")
  ],
  [
    "REST SendMessage -> Message",
    calls,
    () =>
      new Request("http://127.0.0.1/message:send", {
        method: "POST",
        headers,
        body: JSON.stringify({
          message: { messageId: `m-${messages++}`, role: "ROLE_USER", parts: [{ text: "echo hi" }] }
        })
      }),
    trivial.handler,
    expect("\"message\"")
  ],
  [
    "JSON-RPC SendMessage -> Task (blocking)",
    calls / 2,
    () => sendRequest("SendMessage", "task hi"),
    trivial.handler,
    expect("TASK_STATE_COMPLETED")
  ],
  [
    `JSON-RPC SendStreamingMessage (${STREAM_EVENTS} events)`,
    calls / 5,
    () => sendRequest("SendStreamingMessage", "stream hi"),
    trivial.handler,
    expect("data: ", STREAM_EVENTS)
  ]
] satisfies ReadonlyArray<Scenario>).filter(([name]) => only === undefined || name.includes(only))

/** CPU µs per Request built, the body left unread. */
const building = (count: number, request: () => Request): number => {
  const cpu = process.cpuUsage()
  for (let i = 0; i < count; i++) request()
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / count
}

// Two passes: the first warms the JIT, the second is reported.
for (const pass of [1, 2]) {
  for (const [name, count, request, handler, check] of scenarios) {
    const call = () => handler(request()).then(check)
    for (let i = 0; i < count / 5; i++) await call()
    const start = performance.now()
    const cpu = process.cpuUsage()
    const saved = saves
    for (let i = 0; i < count; i++) await call()
    const micros = ((performance.now() - start) * 1000) / count
    const used = process.cpuUsage(cpu)
    // CPU time barely depends on what else runs on the machine: the figure to trust on a shared one.
    const cpuMicros = (used.user + used.system) / count
    const built = building(count, request)
    const perCall = sqlite === undefined ? "" : `, ${((saves - saved) / count).toFixed(2)} task saves/call`
    if (pass === 2) {
      console.log(
        `${name}: ${micros.toFixed(2)} µs/call, CPU ${cpuMicros.toFixed(2)} µs/call (the Request ${
          built.toFixed(2)
        }, the rest ${(cpuMicros - built).toFixed(2)})${perCall}`
      )
    }
  }
}
// What the run grew: RSS and V8's young (new) and old spaces, as they are when the calls end.
const spaces = Object.fromEntries(V8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]))
const mib = (bytes = 0) => (bytes / 1048576).toFixed(1)
console.log(
  `at the end: RSS ${mib(process.memoryUsage.rss())} MiB, new space ${mib(spaces.new_space)} MiB, old space ${
    mib(spaces.old_space)
  } MiB`
)
// With --expose-gc: what the run left alive (e.g. message receipts), after a full collection.
const gc = (globalThis as { gc?: () => void }).gc
if (gc !== undefined) {
  gc()
  console.log(`heap used after the run and a full GC: ${(process.memoryUsage().heapUsed / 1048576).toFixed(1)} MiB`)
}
await demo.dispose()
await trivial.dispose()
