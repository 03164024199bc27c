import { NodeDns } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Result, Scope, Stream, Tracer } from "effect"
import * as PinnedDeliveryClient from "../../../src/node/push/PinnedDeliveryClient.ts"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as MemoryPushConfigStore from "../../../src/server/memory/MemoryPushConfigStore.ts"
import * as WebhookGuard from "../../../src/server/push/WebhookGuard.ts"
import * as WebhookPushNotifier from "../../../src/server/push/WebhookPushNotifier.ts"
import { type PushConfig, PushConfigStore } from "../../../src/server/PushConfigStore.ts"
import { PushNotifier } from "../../../src/server/PushNotifier.ts"
import { PushOutbox } from "../../../src/server/PushOutbox.ts"
import * as Receiver from "./receiver.ts"

const guardLayer = (allowlist: string) =>
  Layer.effect(
    WebhookGuard.WebhookGuard,
    Effect.suspend(() => {
      const parsed = WebhookGuard.parseAllowlist(allowlist)
      return Result.isSuccess(parsed) ? WebhookGuard.make({ allowlist: parsed.success }) : Effect.die(parsed.failure)
    })
  ).pipe(Layer.provide(NodeDns.layer))

const testOptions: WebhookPushNotifier.WebhookOptions = {
  timeout: "1 second",
  maxAttempts: 4,
  retryBaseDelay: "5 millis",
  retryMaxDelay: "20 millis"
}

const notifierLayer = (allowlist = "127.0.0.1,localhost", options = testOptions) =>
  WebhookPushNotifier.layer(options).pipe(
    Layer.provide(PinnedDeliveryClient.layer),
    Layer.provideMerge(guardLayer(allowlist)),
    Layer.provideMerge(MemoryPushConfigStore.layer)
  )

let n = 0
const taskId = () => `task-${++n}`

const status = (id: string, state: v1.TaskState, second: number): v1.StreamResponse => ({
  statusUpdate: {
    taskId: id,
    contextId: "ctx-1",
    status: { state, timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString() }
  }
})

const artifact = (id: string, text: string): v1.StreamResponse => ({
  artifactUpdate: { taskId: id, contextId: "ctx-1", artifact: { artifactId: "a1", parts: [{ text }] }, append: true }
})

const taskOf = (id: string): v1.Task => ({ id, contextId: "ctx-1", status: { state: "TASK_STATE_WORKING" } })

const notify = (id: string, event: v1.StreamResponse) =>
  Effect.gen(function*() {
    const notifier = yield* PushNotifier
    yield* notifier.notify({ taskId: id, event, task: taskOf(id) })
  })

const addConfig = (config: PushConfig) =>
  Effect.gen(function*() {
    const store = yield* PushConfigStore
    yield* store.set(config)
  })

const idle = Effect.gen(function*() {
  const deliveries = yield* WebhookPushNotifier.WebhookDeliveries
  yield* deliveries.idle
})

const statusOf = (id: string, configId: string) =>
  Effect.gen(function*() {
    const deliveries = yield* WebhookPushNotifier.WebhookDeliveries
    return Option.getOrUndefined(yield* deliveries.status(id, configId))
  })

describe("WebhookPushNotifier", () => {
  it.live("POSTs every event in order, as StreamResponse JSON, with auth and token headers", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      yield* addConfig({
        id: "c1",
        taskId: id,
        url: receiver.url("/hook"),
        token: "tok-123",
        authentication: { scheme: "Bearer", credentials: "s3cret" }
      })
      const events = [
        status(id, "TASK_STATE_WORKING", 1),
        artifact(id, "one"),
        artifact(id, "two"),
        status(id, "TASK_STATE_INPUT_REQUIRED", 2),
        status(id, "TASK_STATE_COMPLETED", 3)
      ]
      yield* Effect.forEach(events, (e) => notify(id, e), { discard: true })
      yield* idle
      const got = receiver.on("/hook")
      assert.deepStrictEqual(got.map((r) => JSON.parse(r.body)), events)
      for (const r of got) {
        assert.strictEqual(r.headers["content-type"], "application/a2a+json")
        assert.strictEqual(r.headers["authorization"], "Bearer s3cret")
        assert.strictEqual(r.headers["x-a2a-notification-token"], "tok-123")
        assert.isUndefined(r.headers["traceparent"])
      }
      const s = yield* statusOf(id, "c1")
      assert.strictEqual(s?.delivered, 5)
      assert.strictEqual(s?.failed, 0)
    }).pipe(Effect.provide(notifierLayer())))

  it.live("sends no Authorization header without credentials, and no token header without a token", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/bare") })
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* idle
      const [r] = receiver.on("/bare")
      assert.isUndefined(r?.headers["authorization"])
      assert.isUndefined(r?.headers["x-a2a-notification-token"])
    }).pipe(Effect.provide(notifierLayer())))

  it.live("retries a receiver that fails twice, then delivers", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      receiver.script("/flaky", [503, 500])
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/flaky") })
      const event = status(id, "TASK_STATE_COMPLETED", 1)
      yield* notify(id, event)
      yield* idle
      const got = receiver.on("/flaky")
      assert.strictEqual(got.length, 3)
      for (const r of got) assert.deepStrictEqual(JSON.parse(r.body), event)
      const s = yield* statusOf(id, "c1")
      assert.strictEqual(s?.delivered, 1)
      assert.strictEqual(s?.failed, 0)
    }).pipe(Effect.provide(notifierLayer())))

  it.live("gives up after maxAttempts on 5xx, records the error, and keeps going with the next event", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      receiver.script("/down", [503, 503, 503, 503])
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/down") })
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* notify(id, status(id, "TASK_STATE_COMPLETED", 2))
      yield* idle
      const got = receiver.on("/down")
      assert.strictEqual(got.length, 5) // 4 attempts for the first event, then the second succeeds
      assert.strictEqual(JSON.parse(got[4]!.body).statusUpdate.status.state, "TASK_STATE_COMPLETED")
      const s = yield* statusOf(id, "c1")
      assert.strictEqual(s?.failed, 1)
      assert.strictEqual(s?.delivered, 1)
      assert.strictEqual(s?.consecutiveFailures, 0)
      assert.include(s?.lastError ?? "", "HTTP 503")
    }).pipe(Effect.provide(notifierLayer())))

  it.live("does not retry a final answer (4xx)", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      receiver.script("/gone", [404])
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/gone") })
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* idle
      assert.strictEqual(receiver.on("/gone").length, 1)
      const s = yield* statusOf(id, "c1")
      assert.strictEqual(s?.failed, 1)
      assert.include(s?.lastError ?? "", "HTTP 404")
    }).pipe(Effect.provide(notifierLayer())))

  it.live("times out a receiver that never answers, and retries it", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      receiver.script("/hang", ["hang", "hang"])
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/hang") })
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* idle
      assert.strictEqual(receiver.on("/hang").length, 2)
      const s = yield* statusOf(id, "c1")
      assert.strictEqual(s?.failed, 1)
      assert.include(s?.lastError ?? "", "no response within")
    }).pipe(Effect.provide(notifierLayer("127.0.0.1", { ...testOptions, timeout: "100 millis", maxAttempts: 2 }))))

  it.live("a deleted config receives nothing more, not even events already queued", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const store = yield* PushConfigStore
      const id = taskId()
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/del") })
      const release = yield* receiver.hold("/del")
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* notify(id, artifact(id, "queued"))
      yield* notify(id, status(id, "TASK_STATE_COMPLETED", 2))
      // The first event is in flight (held); the other two wait behind it.
      yield* receiver.waitFor("/del", 1)
      yield* store.delete(id, "c1")
      yield* release
      yield* idle
      yield* notify(id, status(id, "TASK_STATE_COMPLETED", 3))
      yield* idle
      assert.strictEqual(receiver.on("/del").length, 1)
    }).pipe(Effect.provide(notifierLayer())))

  it.live("a slow webhook does not delay another webhook of the same task", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      const release = yield* receiver.hold("/slow")
      yield* addConfig({ id: "a-slow", taskId: id, url: receiver.url("/slow") })
      yield* addConfig({ id: "b-fast", taskId: id, url: receiver.url("/fast") })
      const events = [status(id, "TASK_STATE_WORKING", 1), artifact(id, "x"), status(id, "TASK_STATE_COMPLETED", 2)]
      yield* Effect.forEach(events, (e) => notify(id, e), { discard: true })
      // All three reach the fast webhook while the slow one still holds its first answer.
      yield* receiver.waitFor("/fast", 3)
      assert.strictEqual(receiver.on("/slow").length, 1)
      yield* release
      yield* idle
      assert.deepStrictEqual(receiver.on("/fast").map((r) => JSON.parse(r.body)), events)
      assert.deepStrictEqual(receiver.on("/slow").map((r) => JSON.parse(r.body)), events)
    }).pipe(Effect.provide(notifierLayer())))

  it.live("notify returns at once: the task is never blocked by its webhooks", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      const release = yield* receiver.hold("/blocked")
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/blocked") })
      // 50 notifications complete while the receiver answers nothing.
      yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => artifact(id, `chunk ${i}`)), (e) => notify(id, e), {
        discard: true
      })
      yield* receiver.waitFor("/blocked", 1)
      assert.strictEqual(receiver.on("/blocked").length, 1)
      yield* release
      yield* idle
      assert.deepStrictEqual(
        receiver.on("/blocked").map((r) => JSON.parse(r.body).artifactUpdate.artifact.parts[0].text),
        Array.from({ length: 50 }, (_, i) => `chunk ${i}`)
      )
    }).pipe(Effect.provide(notifierLayer())))

  it.live("delivers to a host name through the guarded lookup when allowlisted", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      yield* addConfig({ id: "c1", taskId: id, url: `http://localhost:${receiver.port}/named` })
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* idle
      assert.strictEqual(receiver.on("/named").length, 1)
    }).pipe(Effect.provide(notifierLayer("localhost"))))

  it.live("refuses at delivery time a stored config that points inside (no request, no retry)", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      // Stored without the config-time check (e.g. the allowlist changed since): the delivery check still holds.
      yield* addConfig({ id: "literal", taskId: id, url: receiver.url("/inside") })
      yield* addConfig({ id: "named", taskId: id, url: `http://localhost:${receiver.port}/inside` })
      yield* addConfig({ id: "metadata", taskId: id, url: "http://169.254.169.254/latest/meta-data/" })
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* idle
      assert.strictEqual(receiver.on("/inside").length, 0)
      const literal = yield* statusOf(id, "literal")
      assert.include(literal?.lastError ?? "", "loopback")
      const named = yield* statusOf(id, "named")
      assert.include(named?.lastError ?? "", "resolves to")
      const metadata = yield* statusOf(id, "metadata")
      assert.include(metadata?.lastError ?? "", "cloud metadata")
      for (const s of [literal, named, metadata]) assert.strictEqual(s?.failed, 1)
    }).pipe(Effect.provide(notifierLayer("8.8.8.8"))))

  it.live("a task with no configs costs nothing and sends nothing", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
      yield* idle
      assert.strictEqual(receiver.received.length, 0)
      const all = yield* (yield* WebhookPushNotifier.WebhookDeliveries).all
      assert.isFalse(all.some((s) => s.taskId === id))
    }).pipe(Effect.provide(notifierLayer())))

  it.live("traced, each POST carries a traceparent of its own span, under the span that published the event", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      yield* Effect.gen(function*() {
        const receiver = yield* Receiver.make
        const id = taskId()
        yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/traced") })
        const publisher = yield* Effect.withSpan(
          Effect.andThen(notify(id, status(id, "TASK_STATE_COMPLETED", 1)), Effect.currentSpan),
          "publisher"
        )
        yield* idle
        const [r] = receiver.on("/traced")
        const header = r?.headers["traceparent"]
        assert.isString(header)
        const [version, trace, spanId, flags] = (header as string).split("-")
        assert.strictEqual(version, "00")
        assert.strictEqual(flags, "01")
        assert.strictEqual(trace, publisher.traceId)
        // The header names the POST's own (client) span, a child of the delivery, a child of the publisher.
        const post = spans.find((span) => span.spanId === spanId)
        assert.strictEqual(post?.kind, "client")
        const deliver = Option.getOrUndefined(post!.parent)
        assert.strictEqual(deliver?._tag === "Span" && deliver.name, "WebhookPushNotifier.deliver")
        assert.strictEqual(deliver?._tag === "Span" && Option.getOrUndefined(deliver.parent), publisher)
      }).pipe(Effect.provide(notifierLayer().pipe(Layer.provideMerge(Layer.succeed(Tracer.Tracer, tracer)))))
    }).pipe(Effect.scoped))

  it.live("reads a task's configs once for the events queued together, and delivers each of them in order", () => {
    let reads = 0
    // The memory store, counting its reads of a task's configs.
    const counted = Layer.effect(
      PushConfigStore,
      Effect.map(MemoryPushConfigStore.make, (store) =>
        PushConfigStore.of({
          ...store,
          forTask: (id) => Effect.andThen(Effect.sync(() => reads++), store.forTask(id))
        }))
    )
    const layer = WebhookPushNotifier.layer(testOptions).pipe(
      Layer.provide(PinnedDeliveryClient.layer),
      Layer.provideMerge(guardLayer("127.0.0.1")),
      Layer.provideMerge(counted)
    )
    return Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/batched") })
      const events = Array.from({ length: 6 }, (_, i) => artifact(id, `chunk ${i}`))
      yield* Effect.forEach(events, (e) => notify(id, e), { discard: true })
      yield* idle
      assert.strictEqual(reads, 1)
      // A later event is a new batch: read again.
      yield* notify(id, status(id, "TASK_STATE_COMPLETED", 1))
      yield* idle
      assert.strictEqual(reads, 2)
      assert.deepStrictEqual(receiver.on("/batched").map((r) => JSON.parse(r.body)), [
        ...events,
        status(id, "TASK_STATE_COMPLETED", 1)
      ])
    }).pipe(Effect.provide(layer))
  })

  it.live("drops what a task queues past maxQueuedPerTask, keeps the rest in order, and then takes new events", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const id = taskId()
      yield* addConfig({ id: "c1", taskId: id, url: receiver.url("/bounded") })
      const events = Array.from({ length: 10 }, (_, i) => artifact(id, `chunk ${i}`))
      yield* Effect.forEach(events, (e) => notify(id, e), { discard: true })
      yield* idle
      const later = status(id, "TASK_STATE_COMPLETED", 1)
      yield* notify(id, later)
      yield* idle
      assert.deepStrictEqual(receiver.on("/bounded").map((r) => JSON.parse(r.body)), [...events.slice(0, 3), later])
    }).pipe(Effect.provide(notifierLayer("127.0.0.1,localhost", { ...testOptions, maxQueuedPerTask: 3 }))))
  it.live("at shutdown, what the drain timeout cuts short stays written down; what was made is forgotten", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const release = yield* receiver.hold("/stuck")
      // An outbox in memory: the deliveries written down and not yet made, by id.
      const pending = new Map<string, string>()
      let ids = 0
      const outbox = Layer.succeed(PushOutbox, {
        add: (delivery) =>
          Effect.sync(() => {
            const id = String(++ids)
            pending.set(id, `${delivery.configId} ${JSON.parse(delivery.body).statusUpdate.status.state}`)
            return id
          }),
        done: (id) => Effect.sync(() => void pending.delete(id)),
        orphans: Stream.empty
      })
      const scope = yield* Scope.make()
      const services = yield* Layer.buildWithScope(
        notifierLayer("127.0.0.1", { ...testOptions, drainTimeout: "100 millis" }).pipe(Layer.provide(outbox)),
        scope
      )
      const id = taskId()
      yield* Effect.gen(function*() {
        yield* addConfig({ id: "fast", taskId: id, url: receiver.url("/fast") })
        yield* addConfig({ id: "stuck", taskId: id, url: receiver.url("/stuck") })
        yield* notify(id, status(id, "TASK_STATE_WORKING", 1))
        yield* notify(id, status(id, "TASK_STATE_COMPLETED", 2))
      }).pipe(Effect.provide(services))
      yield* receiver.waitFor("/fast", 2)
      yield* receiver.waitFor("/stuck", 1)
      yield* Scope.close(scope, Exit.void)
      // The first POST to /stuck is in flight, the second waits behind it: both are left for the next start.
      assert.deepStrictEqual(Array.from(pending.values()), ["stuck TASK_STATE_WORKING", "stuck TASK_STATE_COMPLETED"])
      yield* release
      assert.strictEqual(receiver.on("/stuck").length, 1)
    }))
})
