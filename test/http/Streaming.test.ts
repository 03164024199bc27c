/**
 * Streams end to end over real HTTP: the core RequestHandler with an agent the test steps by hand, several
 * subscribers per task, cancellation mid-stream, clients that leave, keep-alive comments.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Logger, Metric, Queue, Stream } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as Observability from "../../src/server/Observability.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import * as StubHandler from "./fixtures/StubHandler.ts"
import * as TestServer from "./fixtures/TestServer.ts"

type Step = "work" | "done"

/** An agent whose task advances one step per command the test offers. */
const gatedAgent = Effect.gen(function*() {
  const steps = yield* Queue.unbounded<Step>()
  const executor = AgentExecutor.task((task) =>
    Effect.gen(function*() {
      let n = 0
      for (;;) {
        const step = yield* Queue.take(steps)
        if (step === "done") return yield* task.complete("finished")
        yield* task.working(`step ${++n}`)
      }
    })
  )
  return { executor, steps }
})

const V1_JSON = { "content-type": "application/json", "a2a-version": "1.0" }

interface StreamResponse {
  readonly task?: { readonly id: string; readonly status: { readonly state: string } }
  readonly statusUpdate?: { readonly status: { readonly state: string } }
  readonly artifactUpdate?: unknown
}

const resultOf = (event: { readonly data: unknown }): StreamResponse =>
  (event.data as { result?: StreamResponse }).result ?? (event.data as StreamResponse)

const stateOf = (r: StreamResponse): string | undefined => r.statusUpdate?.status.state ?? r.task?.status.state

const rpcSubscribe = (url: string, taskId: string, id: number) =>
  TestServer.openSse(`${url}/`, {
    method: "POST",
    headers: V1_JSON,
    body: JSON.stringify(TestServer.call("SubscribeToTask", { id: taskId }, id))
  })

const createTask = (url: string) =>
  Effect.map(
    TestServer.request(`${url}/message:send`, {
      method: "POST",
      headers: V1_JSON,
      body: JSON.stringify({
        message: TestServer.userMessage("gated"),
        configuration: { returnImmediately: true }
      })
    }),
    (reply) => (reply.json as { task: { id: string } }).task.id
  )

// Both ways of writing an event stream: straight to Node's response (what NodeA2AServer.serve does) and through the
// platform's response writer (what routes mounted on another router get).
for (const directStreams of [true, false]) {
  describe(`streaming over HTTP (${directStreams ? "written directly" : "through the platform's writer"})`, () => {
    it.effect("concurrent subscribers to one task receive the same events in the same order", () =>
      Effect.gen(function*() {
        const { executor, steps } = yield* gatedAgent
        const server = yield* TestServer.startCore(executor, { directStreams })
        const taskId = yield* createTask(server.url)

        const subscribers = [
          yield* rpcSubscribe(server.url, taskId, 1),
          yield* rpcSubscribe(server.url, taskId, 2),
          yield* TestServer.openSse(`${server.url}/tasks/${taskId}:subscribe`, { headers: { "a2a-version": "1.0" } })
        ]
        for (const s of subscribers) {
          assert.strictEqual(s.contentType, "text/event-stream")
          const first = yield* s.next
          assert.strictEqual(resultOf(first!).task?.id, taskId)
        }
        yield* Queue.offerAll(steps, ["work", "work", "work", "done"])
        const streams = yield* Effect.forEach(subscribers, TestServer.drain, { concurrency: "unbounded" })
        const updates = streams.map((events) => events.map((e) => resultOf(e)))
        assert.isAtLeast(updates[0]!.length, 4)
        assert.deepStrictEqual(updates[1], updates[0])
        assert.deepStrictEqual(updates[2], updates[0])
        assert.strictEqual(stateOf(updates[0]![updates[0]!.length - 1]!), "TASK_STATE_COMPLETED")
        const texts = updates[0]!.flatMap((u) => {
          const parts = (u.statusUpdate?.status as { message?: { parts: ReadonlyArray<{ text?: string }> } })?.message
            ?.parts
          return parts?.map((p) => p.text ?? "") ?? []
        })
        assert.deepStrictEqual(texts.filter((t) => t.startsWith("step")), ["step 1", "step 2", "step 3"])
      }).pipe(Effect.scoped))

    it.effect("cancelling a task ends its streams with CANCELED", () =>
      Effect.gen(function*() {
        const { executor, steps } = yield* gatedAgent
        const server = yield* TestServer.startCore(executor, { directStreams })
        const stream = yield* TestServer.openSse(`${server.url}/`, {
          method: "POST",
          headers: V1_JSON,
          body: JSON.stringify(TestServer.call("SendStreamingMessage", { message: TestServer.userMessage("gated") }, 7))
        })
        const first = resultOf((yield* stream.next)!)
        const taskId = first.task!.id
        yield* Queue.offer(steps, "work")
        const watcher = yield* rpcSubscribe(server.url, taskId, 8)
        assert.strictEqual(resultOf((yield* watcher.next)!).task?.id, taskId)

        const canceled = yield* TestServer.request(`${server.url}/tasks/${taskId}:cancel`, {
          method: "POST",
          headers: V1_JSON
        })
        assert.strictEqual(canceled.status, 200)
        assert.strictEqual((canceled.json as { status: { state: string } }).status.state, "TASK_STATE_CANCELED")

        for (const s of [stream, watcher]) {
          const rest = (yield* TestServer.drain(s)).map(resultOf)
          assert.strictEqual(stateOf(rest[rest.length - 1]!), "TASK_STATE_CANCELED")
        }
        const again = yield* TestServer.request(`${server.url}/tasks/${taskId}`, { headers: { "a2a-version": "1.0" } })
        assert.strictEqual((again.json as { status: { state: string } }).status.state, "TASK_STATE_CANCELED")
      }).pipe(Effect.scoped))

    it.effect("a client that leaves mid-stream stops neither the task nor the server", () =>
      Effect.gen(function*() {
        const { executor, steps } = yield* gatedAgent
        const server = yield* TestServer.startCore(executor, { directStreams })
        const taskId = yield* createTask(server.url)
        const leaving = yield* rpcSubscribe(server.url, taskId, 1)
        const staying = yield* rpcSubscribe(server.url, taskId, 2)
        yield* leaving.next
        yield* staying.next
        yield* Queue.offer(steps, "work")
        yield* leaving.next
        yield* leaving.abort

        yield* Queue.offerAll(steps, ["work", "done"])
        const rest = (yield* TestServer.drain(staying)).map(resultOf)
        assert.strictEqual(stateOf(rest[rest.length - 1]!), "TASK_STATE_COMPLETED")
        const task = yield* TestServer.request(`${server.url}/tasks/${taskId}`, { headers: { "a2a-version": "1.0" } })
        assert.strictEqual((task.json as { status: { state: string } }).status.state, "TASK_STATE_COMPLETED")
        const card = yield* TestServer.request(`${server.url}/.well-known/agent-card.json`)
        assert.strictEqual(card.status, 200)
      }).pipe(Effect.scoped))

    // Live clock: these wait for the server to act in real time (keep-alive ticks, finalizers).
    it.live("an aborted stream releases what it held on the server", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.start()
        const streams = yield* Effect.forEach([1, 2, 3], () =>
          TestServer.openSse(`${server.url}/message:stream`, {
            method: "POST",
            headers: V1_JSON,
            body: JSON.stringify({ message: TestServer.userMessage("hold") })
          }))
        const taskIds: Array<string> = []
        for (const s of streams) taskIds.push(resultOf((yield* s.next)!).task!.id)
        assert.deepStrictEqual(taskIds.map(server.stub.openStreams), [1, 1, 1])
        yield* Effect.forEach(streams, (s) => s.abort)
        // Wait (not time) for the server to notice: each held stream's finalizer runs on interruption.
        while (taskIds.some((id) => server.stub.openStreams(id) > 0)) yield* Effect.sleep("5 millis")
        assert.deepStrictEqual(taskIds.map(server.stub.openStreams), [0, 0, 0])
        const after = yield* TestServer.request(`${server.url}/tasks`, { headers: { "a2a-version": "1.0" } })
        assert.strictEqual(after.status, 200)
      }).pipe(Effect.scoped, Effect.timeout("10 seconds")))

    it.live("an idle stream carries keep-alive comments and ends when the task does", () =>
      Effect.gen(function*() {
        const server = yield* TestServer.start({ keepAliveInterval: "20 millis" })
        const stream = yield* TestServer.openSse(`${server.url}/message:stream`, {
          method: "POST",
          headers: V1_JSON,
          body: JSON.stringify({ message: TestServer.userMessage("hold") })
        })
        const taskId = resultOf((yield* stream.next)!).task!.id
        // Reading the next event pulls bytes; pings arrive while no event does.
        const pinged = Effect.sync(() => stream.received().includes(": ping"))
        const reading = yield* Effect.forkScoped(stream.next)
        while (!(yield* pinged)) yield* Effect.sleep("5 millis")
        yield* server.stub.emit(taskId, {
          statusUpdate: { taskId, contextId: "c", status: { state: "TASK_STATE_COMPLETED" } }
        })
        yield* server.stub.emit(taskId, "end")
        const event = yield* Fiber.join(reading)
        assert.strictEqual(stateOf(resultOf(event!)), "TASK_STATE_COMPLETED")
        assert.isUndefined(yield* stream.next)
      }).pipe(Effect.scoped, Effect.timeout("10 seconds")))

    it.live("100 subscribers that leave leave no subscription behind (1.0 JSON-RPC and REST, 0.3 JSON-RPC)", () =>
      Effect.gen(function*() {
        const { executor, steps } = yield* gatedAgent
        const { bus, live } = yield* countingBus
        const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0, versions: ["1.0", "0.3"], directStreams }).pipe(
          Layer.provide(
            coreWith(executor, bus)
          ),
          Layer.provide(A2A03.layer),
          Layer.provide(Logger.layer([]))
        )
        const address = Context.get(yield* Layer.build(layer).pipe(Effect.orDie), HttpServer.HttpServer).address
        const url = `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
        const taskIds = yield* Effect.forEach([1, 2, 3, 4], () => createTask(url))
        const open = (n: number) => {
          const taskId = taskIds[n % taskIds.length]!
          switch (n % 3) {
            case 0:
              return rpcSubscribe(url, taskId, n)
            case 1:
              return TestServer.openSse(`${url}/tasks/${taskId}:subscribe`, { headers: { "a2a-version": "1.0" } })
            default:
              return TestServer.openSse(`${url}/`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ jsonrpc: "2.0", id: n, method: "tasks/resubscribe", params: { id: taskId } })
              })
          }
        }
        const streams = yield* Effect.forEach(Array.from({ length: 100 }, (_, n) => n), open, { concurrency: 10 })
        for (const s of streams) assert.isDefined(yield* s.next)
        assert.strictEqual(live.count, 100)
        yield* Effect.forEach(streams, (s) => s.abort)
        // Wait (not time) for the server to notice every disconnection.
        while (live.count > 0) yield* Effect.sleep("5 millis")
        // The tasks go on, and a new subscriber still gets their events to the end.
        const watcher = yield* rpcSubscribe(url, taskIds[0]!, 1000)
        assert.strictEqual(resultOf((yield* watcher.next)!).task?.id, taskIds[0])
        yield* Queue.offerAll(steps, ["work", "done"])
        const rest = (yield* TestServer.drain(watcher)).map(resultOf)
        assert.strictEqual(stateOf(rest[rest.length - 1]!), "TASK_STATE_COMPLETED")
        while (live.count > 0) yield* Effect.sleep("5 millis")
      }).pipe(Effect.scoped, Effect.timeout("20 seconds")))

    it.live("idle SendStreamingMessage and SubscribeToTask streams whose clients leave: no open stream, no subscription left; the tasks go on", () =>
      Effect.gen(function*() {
        // Each execution emits the task, goes working and waits until it is canceled.
        const executor = AgentExecutor.task((task) => Effect.andThen(task.working(), Effect.never))
        const { bus, live } = yield* countingBus
        const registry: Metric.MetricRegistry = new Map()
        const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0, directStreams }).pipe(
          Layer.provide(
            coreWith(executor, bus)
          ),
          Layer.provide(Observability.layerEnabled),
          Layer.provide(Layer.succeed(Metric.MetricRegistry, registry)),
          Layer.provide(Logger.layer([]))
        )
        const address = Context.get(yield* Layer.build(layer).pipe(Effect.orDie), HttpServer.HttpServer).address
        const url = `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
        const openStreams = (method: string, binding: string) =>
          Metric.value(Metric.withAttributes(Observability.openStreams, { method, binding })).pipe(
            Effect.map((state) => state.value),
            Effect.provideService(Metric.MetricRegistry, registry)
          )
        const N = 40
        const sent = yield* Effect.forEach(
          Array.from({ length: N }, (_, n) => n),
          (n) =>
            TestServer.openSse(`${url}/`, {
              method: "POST",
              headers: V1_JSON,
              body: JSON.stringify(
                TestServer.call("SendStreamingMessage", {
                  // A message each: one messageId sent again would be a retry of the first (one task).
                  message: TestServer.userMessage("hold", { messageId: `m-hold-${n}` })
                }, n)
              )
            }),
          { concurrency: 10 }
        )
        const taskIds: Array<string> = []
        for (const s of sent) {
          const first = resultOf((yield* s.next)!)
          assert.strictEqual(first.task?.status.state, "TASK_STATE_SUBMITTED")
          taskIds.push(first.task!.id)
        }
        const subscribed = yield* Effect.forEach(
          taskIds,
          (taskId) => TestServer.openSse(`${url}/tasks/${taskId}:subscribe`, { headers: { "a2a-version": "1.0" } }),
          { concurrency: 10 }
        )
        for (const [i, s] of subscribed.entries()) assert.strictEqual(resultOf((yield* s.next)!).task?.id, taskIds[i])
        assert.strictEqual(yield* openStreams("SendStreamingMessage", "JSONRPC"), N)
        assert.strictEqual(yield* openStreams("SubscribeToTask", "HTTP+JSON"), N)
        assert.isAtLeast(live.count, N)

        yield* Effect.forEach([...sent, ...subscribed], (s) => s.abort)
        // Wait (not time) for the server to notice every disconnection.
        const open = Effect.map(
          Effect.all([openStreams("SendStreamingMessage", "JSONRPC"), openStreams("SubscribeToTask", "HTTP+JSON")]),
          ([a, b]) => a + b
        )
        while ((yield* open) > 0 || live.count > 0) yield* Effect.sleep("5 millis")

        // A stream's going away ends neither its task nor its execution: each is still there to cancel.
        for (const taskId of taskIds) {
          const canceled = yield* TestServer.request(`${url}/tasks/${taskId}:cancel`, {
            method: "POST",
            headers: V1_JSON
          })
          assert.strictEqual((canceled.json as { status: { state: string } }).status.state, "TASK_STATE_CANCELED")
        }
        assert.strictEqual(yield* open, 0)
      }).pipe(Effect.scoped, Effect.timeout("30 seconds")))
  })
}

describe("event streams written straight to Node's response", () => {
  it.live("are open for the client once the first-event window is over, before any event", () =>
    Effect.gen(function*() {
      const quiet = AgentExecutor.make(() => Stream.never)
      // An option left undefined, as a spread configuration carries it, is serve's default: written directly.
      const server = yield* TestServer.startCore(quiet, {
        firstEventWindow: "50 millis",
        keepAliveInterval: 0,
        directStreams: undefined
      })
      // Through the platform's writer the head would wait for the first event (or ping): this would time out.
      const stream = yield* TestServer.openSse(`${server.url}/message:stream`, {
        method: "POST",
        headers: V1_JSON,
        body: JSON.stringify({ message: TestServer.userMessage("quiet") })
      }).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(stream.status, 200)
      assert.strictEqual(stream.contentType, "text/event-stream")
      assert.strictEqual(stream.received(), "")
      yield* stream.abort
    }).pipe(Effect.scoped))
})

/** The in-process EventBus, counting its live subscriptions (each one's scope). */
/** The server core over the memory stores with this agent and event bus, no auth. */
const coreWith = (executor: AgentExecutor.AgentExecutor["Service"], bus: EventBus.EventBus["Service"]) =>
  A2AServer.layerCore({ card: StubHandler.card }).pipe(
    Layer.provide(AgentExecutor.layer(executor)),
    Layer.provide(Layer.succeed(EventBus.EventBus, bus)),
    Layer.provide(A2AServer.memoryServices),
    Layer.provideMerge(Layer.succeed(Auth.Auth, Auth.none))
  )

const countingBus = Effect.gen(function*() {
  const inner = yield* EventBus.makeInProcess
  const live = { count: 0 }
  const bus = EventBus.EventBus.of({
    publish: inner.publish,
    // The subscription's stream is passed on as it is (a PushStream, which SSE responses read without a fiber).
    subscribe: (taskId) =>
      Effect.tap(
        inner.subscribe(taskId),
        () => Effect.acquireRelease(Effect.sync(() => live.count++), () => Effect.sync(() => live.count--))
      )
  })
  return { bus, live }
})
