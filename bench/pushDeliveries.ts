/**
 * The webhook notifier's own cost, in process: `tasks` tasks, each with one webhook config, notified `events` events
 * each (interleaved across the tasks, a yield after each, as a server's executions interleave), delivered to a
 * receiver on 127.0.0.1 that answers 204 at once (Node's http server in this process, keep-alive). Reports
 * deliveries per second and CPU µs per delivery until the notifier is idle, then CPU µs per event for as many tasks
 * without a config (what the notifier costs almost every task). Compare two checkouts by running it in each,
 * alternated.
 *
 *   node bench/pushDeliveries.ts [tasks] [events] [rounds]
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as WebhookPush from "../src/node/push/WebhookPush.ts"
import * as MemoryPushConfigStore from "../src/server/memory/MemoryPushConfigStore.ts"
import { WebhookDeliveries } from "../src/server/push/WebhookPushNotifier.ts"
import { PushConfigStore } from "../src/server/PushConfigStore.ts"
import { PushNotifier } from "../src/server/PushNotifier.ts"

const tasks = Number(process.argv[2] ?? 200)
const events = Number(process.argv[3] ?? 10)
const rounds = Number(process.argv[4] ?? 5)

let received = 0
const server = Http.createServer((request, response) => {
  request.resume()
  request.on("end", () => {
    received++
    response.writeHead(204).end()
  })
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`

const push = WebhookPush.layer({ allowlist: { hosts: new Set(["127.0.0.1"]), networks: [] } }).pipe(
  Layer.provideMerge(MemoryPushConfigStore.layer)
)

const event = (taskId: string, i: number) => ({
  taskId,
  event: { artifactUpdate: { taskId, contextId: "c", artifact: { artifactId: "a", parts: [{ text: `chunk ${i}` }] } } },
  task: { id: taskId, contextId: "c", status: { state: "TASK_STATE_WORKING" as const } }
})

/** Notifies every event of `ids`, interleaved across tasks, and waits until all is delivered. */
const round = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const notifier = yield* PushNotifier
    const deliveries = yield* WebhookDeliveries
    const cpu = process.cpuUsage()
    const start = performance.now()
    for (let i = 0; i < events; i++) {
      for (const id of ids) {
        yield* notifier.notify(event(id, i))
        yield* Effect.yieldNow
      }
    }
    yield* deliveries.idle
    const used = process.cpuUsage(cpu)
    return { ms: performance.now() - start, cpuMicros: used.user + used.system }
  })

const program = Effect.gen(function*() {
  const store = yield* PushConfigStore
  let n = 0
  for (let r = 0; r < rounds; r++) {
    const withConfig = Array.from({ length: tasks }, () => `task-${n++}`)
    for (const id of withConfig) yield* store.set({ id: "c1", taskId: id, url })
    const before = received
    const delivered = yield* round(withConfig)
    const count = received - before
    if (count !== tasks * events) return yield* Effect.die(new Error(`delivered ${count} of ${tasks * events}`))
    const bare = yield* round(Array.from({ length: tasks }, () => `bare-${n++}`))
    console.log(
      `round ${r + 1}: ${Math.round(count / (delivered.ms / 1000))} deliveries/s, ` +
        `${Math.round(delivered.cpuMicros / count)} CPU µs/delivery; without configs ` +
        `${(bare.cpuMicros / (tasks * events)).toFixed(1)} CPU µs/event`
    )
  }
})

await Effect.runPromise(Effect.scoped(Effect.provide(program, push)))
server.close()
