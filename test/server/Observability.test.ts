/**
 * The server's spans and metrics, seen from outside: a real server on 127.0.0.1 with the demo agent, a tracer
 * that keeps its spans in memory, a registry of its own for the metrics, and real HTTP requests (fetch, and our
 * client). Spans are checked by name, parent and attributes; metrics by value after known traffic.
 */
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Context, Duration, Effect, Exit, Layer, Logger, Metric, Option, type Scope, Stream, Tracer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as OtlpExporter from "effect/observability/OtlpExporter"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as Messages from "../../src/client/Messages.ts"
import * as GrpcServer from "../../src/grpc/GrpcServer.ts"
import * as GrpcTransport from "../../src/grpc/GrpcTransport.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as Observability from "../../src/server/Observability.ts"
import * as Receiver from "./push/receiver.ts"

/** A tracer keeping every span it makes. */
const makeRecorder = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

type Recorder = ReturnType<typeof makeRecorder>

interface Served {
  readonly url: string
  readonly registry: Metric.MetricRegistry
}

/** The demo agent served on 127.0.0.1 for the scope, with the tracer (if any) and a registry of its own. */
const serve = (tracer: Tracer.Tracer | undefined): Effect.Effect<Served, never, Scope.Scope> =>
  Effect.gen(function*() {
    const registry: Metric.MetricRegistry = new Map()
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(A2AServer.layer({
        card: DemoAgent.card,
        executor: DemoAgent.make({ stepDelay: Duration.millis(1), slowSteps: 100_000 })
      })),
      Layer.provide(Logger.layer([])),
      Layer.provide(Layer.succeed(Metric.MetricRegistry, registry)),
      Layer.provide(tracer === undefined ? Layer.empty : Layer.succeed(Tracer.Tracer, tracer))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = NetAddress.isInetAddress(address) ? address.port : 0
    return { url: `http://127.0.0.1:${port}`, registry }
  })

/** The same, served over gRPC (our GrpcServer) on 127.0.0.1; `target` is its `host:port`. */
const serveGrpc = (tracer: Tracer.Tracer): Effect.Effect<Served & { readonly target: string }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const registry: Metric.MetricRegistry = new Map()
    const layer = GrpcServer.layer({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(A2AServer.layer({
        card: DemoAgent.card,
        executor: DemoAgent.make({ stepDelay: Duration.millis(1), slowSteps: 100_000 })
      })),
      Layer.provide(Logger.layer([])),
      Layer.provide(Layer.succeed(Metric.MetricRegistry, registry)),
      Layer.provide(Layer.succeed(Tracer.Tracer, tracer))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const target = `127.0.0.1:${Context.get(context, GrpcServer.GrpcServer).port}`
    return { url: target, target, registry }
  })

/** A GetTask over gRPC with no `a2a-version` (a call that asks for 0.3, which gRPC does not speak): its status code. */
const grpcWithoutVersion = (target: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => new grpc.Client(target, grpc.credentials.createInsecure())),
    (client) =>
      Effect.callback<number>((resume) => {
        client.makeUnaryRequest(
          "/lf.a2a.v1.A2AService/GetTask",
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.alloc(0),
          new grpc.Metadata(),
          (error) => resume(Effect.succeed(error?.code ?? 0))
        )
      }),
    (client) => Effect.sync(() => client.close())
  )

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
const callerSpanId = "00f067aa0ba902b7"
const traceparent = `00-${traceId}-${callerSpanId}-01`

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body)
    })
    return { status: response.status, text: await response.text() }
  })

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers: { "a2a-version": "1.0" } })
    return { status: response.status, json: (await response.json()) as Record<string, unknown> }
  })

const rpc = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: 1, method, params })

const userText = (text: string) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] }
})

/** Waits (a bounded number of short sleeps) until `find` finds an ended span. */
const ended = (recorder: Recorder, find: (span: Tracer.NativeSpan) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const span = recorder.spans.find((s) => find(s) && s.status._tag === "Ended")
      if (span !== undefined) return span
      yield* Effect.sleep("10 millis")
    }
    return assert.fail(`no such span ended; spans: ${recorder.spans.map((s) => s.name).join(", ")}`)
  })

const named = (name: string, attributes: Record<string, unknown> = {}) => (span: Tracer.NativeSpan) =>
  span.name === name && Object.entries(attributes).every(([k, v]) => span.attributes.get(k) === v)

const parentOf = (span: Tracer.AnySpan) => span._tag === "Span" ? Option.getOrUndefined(span.parent) : undefined

const exitOf = (span: Tracer.NativeSpan) => span.status._tag === "Ended" ? span.status.exit : undefined

const counter = (
  registry: Metric.MetricRegistry,
  metric: Metric.Counter<number>,
  attributes: Metric.Metric.Attributes
) =>
  Metric.value(Metric.withAttributes(metric, attributes)).pipe(
    Effect.map((state) => state.count),
    Effect.provideService(Metric.MetricRegistry, registry)
  )

const gauge = (registry: Metric.MetricRegistry, metric: Metric.Gauge<number>, attributes: Metric.Metric.Attributes) =>
  Metric.value(Metric.withAttributes(metric, attributes)).pipe(
    Effect.map((state) => state.value),
    Effect.provideService(Metric.MetricRegistry, registry)
  )

describe("Observability", () => {
  it.live("a JSON-RPC SendMessage: its span under the HTTP server's, under the caller's traceparent; the execution under it", () =>
    Effect.gen(function*() {
      const recorder = makeRecorder()
      const server = yield* serve(recorder.tracer)
      const reply = yield* post(server.url, rpc("SendMessage", userText("task write a report")), { traceparent })
      assert.strictEqual(reply.status, 200)
      const task = (JSON.parse(reply.text) as { result: { task: { id: string; contextId: string } } }).result.task

      const operation = yield* ended(recorder, named("A2A.SendMessage"))
      assert.strictEqual(operation.kind, "server")
      assert.strictEqual(operation.attributes.get("a2a.method"), "SendMessage")
      assert.strictEqual(operation.attributes.get("a2a.binding"), "JSONRPC")
      assert.strictEqual(operation.attributes.get("a2a.protocol.version"), "1.0")
      assert.strictEqual(operation.attributes.get("a2a.task.id"), task.id)
      assert.strictEqual(operation.attributes.get("a2a.context.id"), task.contextId)
      assert.strictEqual(operation.attributes.get("a2a.task.state"), "TASK_STATE_COMPLETED")
      assert.strictEqual(operation.attributes.get("a2a.outcome"), "success")
      assert.isTrue(Exit.isSuccess(exitOf(operation)!))

      // The HTTP server's span continues the caller's trace; the operation is its child.
      const http = parentOf(operation)
      assert.isDefined(http)
      assert.strictEqual(http!._tag === "Span" && `${http.kind} ${http.name}`, "server POST")
      const caller = parentOf(http!)
      assert.strictEqual(caller?._tag, "ExternalSpan")
      assert.strictEqual(caller?.spanId, callerSpanId)
      assert.strictEqual(operation.traceId, traceId)

      const execution = yield* ended(recorder, named("A2A.execute", { "a2a.task.id": task.id }))
      assert.strictEqual(parentOf(execution), operation)
      assert.strictEqual(execution.attributes.get("a2a.context.id"), task.contextId)
      assert.strictEqual(execution.attributes.get("a2a.binding"), "JSONRPC")
      assert.strictEqual(execution.attributes.get("a2a.outcome"), "TASK_STATE_COMPLETED")
      assert.strictEqual(execution.traceId, traceId)
    }).pipe(Effect.scoped))

  it.live("REST calls: the binding is HTTP+JSON; an error is the span's outcome, with its code", () =>
    Effect.gen(function*() {
      const recorder = makeRecorder()
      const server = yield* serve(recorder.tracer)
      const sent = yield* post(`${server.url}/message:send`, userText("task quick"))
      const taskId = (JSON.parse(sent.text) as { task: { id: string } }).task.id
      const got = yield* get(`${server.url}/tasks/${taskId}`)
      assert.strictEqual(got.status, 200)

      const getTask = yield* ended(recorder, named("A2A.GetTask", { "a2a.outcome": "success" }))
      assert.strictEqual(getTask.attributes.get("a2a.binding"), "HTTP+JSON")
      assert.strictEqual(getTask.attributes.get("a2a.task.id"), taskId)
      assert.strictEqual(getTask.attributes.get("a2a.task.state"), "TASK_STATE_COMPLETED")

      const missing = yield* get(`${server.url}/tasks/no-such-task`)
      assert.strictEqual(missing.status, 404)
      const failed = yield* ended(recorder, named("A2A.GetTask", { "a2a.task.id": "no-such-task" }))
      assert.strictEqual(failed.attributes.get("a2a.outcome"), "TaskNotFound")
      assert.strictEqual(failed.attributes.get("a2a.error.code"), -32001)
      assert.isTrue(Exit.isFailure(exitOf(failed)!))
    }).pipe(Effect.scoped))

  it.live("gRPC calls: the binding is GRPC on the spans, the request metrics and the refusals", () =>
    Effect.gen(function*() {
      const recorder = makeRecorder()
      const { registry, target } = yield* serveGrpc(recorder.tracer)
      const card = {
        ...DemoAgent.card,
        supportedInterfaces: [{ url: target, protocolBinding: "GRPC", protocolVersion: "1.0" }]
      }
      const client = yield* A2AClient.make(card, { transports: [yield* GrpcTransport.makeFactory], retry: false })
      const sent = yield* client.sendMessage({ message: Messages.userText("task quick") })
      if (!("task" in sent)) return assert.fail("expected a task")
      yield* client.getTask({ id: sent.task.id })

      const send = yield* ended(recorder, named("A2A.SendMessage"))
      assert.strictEqual(send.attributes.get("a2a.binding"), "GRPC")
      assert.strictEqual(send.attributes.get("a2a.task.id"), sent.task.id)
      const getTask = yield* ended(recorder, named("A2A.GetTask", { "a2a.task.id": sent.task.id }))
      assert.strictEqual(getTask.attributes.get("a2a.binding"), "GRPC")
      assert.strictEqual(getTask.attributes.get("a2a.outcome"), "success")
      const execution = yield* ended(recorder, named("A2A.execute", { "a2a.task.id": sent.task.id }))
      assert.strictEqual(execution.attributes.get("a2a.binding"), "GRPC")

      assert.strictEqual(
        yield* counter(registry, Observability.requests, { method: "SendMessage", binding: "GRPC", version: "1.0" }),
        1
      )
      assert.strictEqual(
        yield* counter(registry, Observability.requests, { method: "GetTask", binding: "GRPC", version: "1.0" }),
        1
      )
      // nothing is counted under no binding
      assert.strictEqual(
        yield* counter(registry, Observability.requests, { method: "GetTask", binding: "none", version: "1.0" }),
        0
      )

      // refused before any operation ran: counted by binding and code, as over HTTP
      assert.strictEqual(yield* grpcWithoutVersion(target), grpc.status.FAILED_PRECONDITION)
      assert.strictEqual(
        yield* counter(registry, Observability.refused, {
          binding: "GRPC",
          code: "-32009",
          error: "VersionNotSupported"
        }),
        1
      )
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("a stream's span lasts until its last event, and names the task and the state it ended in", () =>
    Effect.gen(function*() {
      const recorder = makeRecorder()
      const server = yield* serve(recorder.tracer)
      const reply = yield* post(server.url, rpc("SendStreamingMessage", userText("task write a report")))
      const events = reply.text.split("\n").filter((line) => line.startsWith("data: "))
      assert.isAbove(events.length, 2)
      const first = JSON.parse(events[0]!.slice(6)) as { result: { task: { id: string } } }
      const taskId = first.result.task.id

      const stream = yield* ended(recorder, named("A2A.SendStreamingMessage"))
      assert.strictEqual(stream.attributes.get("a2a.binding"), "JSONRPC")
      assert.strictEqual(stream.attributes.get("a2a.task.id"), taskId)
      assert.strictEqual(stream.attributes.get("a2a.task.state"), "TASK_STATE_COMPLETED")
      assert.strictEqual(stream.attributes.get("a2a.outcome"), "success")
      const execution = yield* ended(recorder, named("A2A.execute", { "a2a.task.id": taskId }))
      assert.strictEqual(parentOf(execution), stream)
    }).pipe(Effect.scoped))

  it.live("metrics after known traffic: requests, errors by code, durations, task states, executions, open streams", () =>
    Effect.gen(function*() {
      const server = yield* serve(makeRecorder().tracer)
      const { registry } = server
      yield* post(server.url, rpc("SendMessage", userText("task one")))
      yield* post(server.url, rpc("SendMessage", userText("task two")))
      yield* post(server.url, rpc("SendMessage", userText("hello")))
      yield* get(`${server.url}/tasks/missing-1`)
      yield* get(`${server.url}/tasks/missing-2`)

      assert.strictEqual(
        yield* counter(registry, Observability.requests, { method: "SendMessage", binding: "JSONRPC", version: "1.0" }),
        3
      )
      assert.strictEqual(
        yield* counter(registry, Observability.requests, { method: "GetTask", binding: "HTTP+JSON", version: "1.0" }),
        2
      )
      assert.strictEqual(
        yield* counter(registry, Observability.errors, {
          method: "GetTask",
          binding: "HTTP+JSON",
          code: "-32001",
          error: "TaskNotFound"
        }),
        2
      )
      // Requests refused before any operation ran are counted apart, by binding and code.
      yield* post(server.url, "{not json")
      yield* post(server.url, rpc("NoSuchMethod", {}))
      yield* post(server.url, rpc("GetTask", {}))
      yield* post(`${server.url}/message:send`, { message: "not a message" })
      assert.strictEqual(
        yield* counter(registry, Observability.refused, { binding: "JSONRPC", code: "-32700", error: "ParseError" }),
        1
      )
      assert.strictEqual(
        yield* counter(registry, Observability.refused, {
          binding: "JSONRPC",
          code: "-32601",
          error: "MethodNotFound"
        }),
        1
      )
      assert.strictEqual(
        yield* counter(registry, Observability.refused, { binding: "JSONRPC", code: "-32602", error: "InvalidParams" }),
        1
      )
      assert.strictEqual(
        yield* counter(registry, Observability.refused, {
          binding: "HTTP+JSON",
          code: "-32602",
          error: "InvalidParams"
        }),
        1
      )
      // ...and not as the operations' requests.
      assert.strictEqual(
        yield* counter(registry, Observability.requests, { method: "GetTask", binding: "JSONRPC", version: "1.0" }),
        0
      )
      const durations = yield* Metric.value(
        Metric.withAttributes(Observability.requestDuration, { method: "SendMessage", binding: "JSONRPC" })
      ).pipe(Effect.provideService(Metric.MetricRegistry, registry))
      assert.strictEqual(durations.count, 3)
      assert.isAbove(durations.sum, 0)
      // Two tasks completed; the plain "hello" is answered with a message and makes none.
      assert.strictEqual(yield* counter(registry, Observability.taskTransitions, { state: "TASK_STATE_COMPLETED" }), 2)
      assert.strictEqual(yield* counter(registry, Observability.executions, { outcome: "TASK_STATE_COMPLETED" }), 2)
      assert.strictEqual(yield* counter(registry, Observability.executions, { outcome: "message" }), 1)

      // A subscription open counts as an open stream until the client leaves.
      const slow = yield* post(
        server.url,
        rpc("SendMessage", { ...userText("slow"), configuration: { returnImmediately: true } })
      )
      const slowId = (JSON.parse(slow.text) as { result: { task: { id: string } } }).result.task.id
      const open = { method: "SubscribeToTask", binding: "HTTP+JSON" }
      const controller = new AbortController()
      const response = yield* Effect.promise(() =>
        fetch(`${server.url}/tasks/${slowId}:subscribe`, {
          method: "POST",
          headers: { "a2a-version": "1.0", "content-type": "application/json" },
          body: "{}",
          signal: controller.signal
        })
      )
      const reader = response.body!.getReader()
      yield* Effect.promise(() => reader.read())
      assert.strictEqual(yield* gauge(registry, Observability.openStreams, open), 1)
      controller.abort()
      yield* Effect.promise(() => reader.cancel().catch(() => undefined))
      for (let i = 0; i < 200 && (yield* gauge(registry, Observability.openStreams, open)) !== 0; i++) {
        yield* Effect.sleep("10 millis")
      }
      assert.strictEqual(yield* gauge(registry, Observability.openStreams, open), 0)
    }).pipe(Effect.scoped))

  it.live("nothing is recorded when no tracer is installed and Enabled is not set", () =>
    Effect.gen(function*() {
      const server = yield* serve(undefined)
      const reply = yield* post(server.url, rpc("SendMessage", userText("task one")))
      assert.strictEqual(reply.status, 200)
      yield* post(server.url, rpc("NoSuchMethod", {}))
      // Not one series (reading a metric would register it: the registry is looked at first).
      assert.strictEqual(server.registry.size, 0)
      assert.strictEqual(
        yield* counter(server.registry, Observability.requests, {
          method: "SendMessage",
          binding: "JSONRPC",
          version: "1.0"
        }),
        0
      )
    }).pipe(Effect.scoped))

  it.live("our client sends the traceparent of its span: the server's span is its child, in the same trace", () =>
    Effect.gen(function*() {
      const recorder = makeRecorder()
      const server = yield* serve(recorder.tracer)
      yield* Effect.gen(function*() {
        const client = yield* A2AClient.resolve(server.url)
        yield* client.sendMessage({ message: Messages.userText("hello") })
        yield* Stream.runDrain(client.sendStreamingMessage({ message: Messages.userText("task streamed") }))
      }).pipe(Effect.provide(FetchHttpClient.layer), Effect.withTracer(recorder.tracer))

      const clientSpan = yield* ended(recorder, named("A2AClient.SendMessage"))
      const operation = yield* ended(recorder, named("A2A.SendMessage"))
      const serverSpan = parentOf(operation)
      assert.strictEqual(serverSpan?._tag === "Span" && `${serverSpan.kind} ${serverSpan.name}`, "server POST")
      // The server's parent is the client's HTTP span (what went out in traceparent), a child of the client call.
      const sentFrom = parentOf(serverSpan!)
      assert.strictEqual(sentFrom?._tag, "ExternalSpan")
      const httpClient = recorder.spans.find((s) => s.spanId === sentFrom!.spanId)
      assert.isDefined(httpClient)
      assert.strictEqual(httpClient!.kind, "client")
      assert.strictEqual(parentOf(httpClient!), clientSpan)
      assert.strictEqual(operation.traceId, clientSpan.traceId)

      // A stream too: the client's span lasts until the last event, and the server's operation is in its trace.
      const clientStream = yield* ended(recorder, named("A2AClient.SendStreamingMessage"))
      const streamOperation = yield* ended(recorder, named("A2A.SendStreamingMessage"))
      const streamSentFrom = parentOf(parentOf(streamOperation)!)
      const streamHttp = recorder.spans.find((s) => s.spanId === streamSentFrom?.spanId)
      assert.strictEqual(parentOf(streamHttp!), clientStream)
      assert.strictEqual(streamOperation.attributes.get("a2a.task.state"), "TASK_STATE_COMPLETED")
    }).pipe(Effect.scoped))

  it.live("exports over OTLP/HTTP: a collector on 127.0.0.1 receives the spans and the metrics as OTLP JSON", () =>
    Effect.gen(function*() {
      const collector = yield* Receiver.make
      const registry: Metric.MetricRegistry = new Map()
      const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
        Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
        Layer.provide(Logger.layer([])),
        Layer.provideMerge(
          Observability.layerOtlp({
            url: collector.url("/otlp"),
            serviceName: "observability-test",
            // Sent when flushed below, not on a timer.
            tracesInterval: "1 hour",
            metricsInterval: "1 hour"
          })
        ),
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(Layer.succeed(Metric.MetricRegistry, registry))
      )
      const context = yield* Layer.build(layer).pipe(Effect.orDie)
      const address = Context.get(context, HttpServer.HttpServer).address
      const url = `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
      const reply = yield* post(url, rpc("SendMessage", userText("task exported")), { traceparent })
      const taskId = (JSON.parse(reply.text) as { result: { task: { id: string } } }).result.task.id

      const flusher = Context.get(context, OtlpExporter.Flusher)
      let spans: Array<OtlpSpan> = []
      for (let i = 0; i < 100 && !spans.some((s) => s.name === "A2A.SendMessage"); i++) {
        yield* flusher.flush
        spans = collector.on("/otlp/v1/traces").flatMap((r) => spansOf(r.body))
        if (!spans.some((s) => s.name === "A2A.SendMessage")) yield* Effect.sleep("10 millis")
      }
      const traces = collector.on("/otlp/v1/traces")
      assert.isAbove(traces.length, 0)
      assert.strictEqual(traces[0]!.headers["content-type"], "application/json")
      const resource = (JSON.parse(traces[0]!.body) as OtlpTraces).resourceSpans[0]!.resource
      assert.deepInclude(resource.attributes, { key: "service.name", value: { stringValue: "observability-test" } })

      const operation = spans.find((s) => s.name === "A2A.SendMessage")
      assert.isDefined(operation)
      assert.strictEqual(operation!.traceId, traceId)
      assert.strictEqual(attribute(operation!, "a2a.binding"), "JSONRPC")
      assert.strictEqual(attribute(operation!, "a2a.task.id"), taskId)
      assert.strictEqual(attribute(operation!, "a2a.outcome"), "success")
      const execution = spans.find((s) => s.name === "A2A.execute")
      assert.strictEqual(execution?.parentSpanId, operation!.spanId)
      // Exports go out untraced: the exporter's own requests are not among the spans.
      assert.isFalse(spans.some((s) => attribute(s, "url.path")?.startsWith("/otlp") === true))

      const metrics = collector.on("/otlp/v1/metrics").map((r) => r.body).join("\n")
      assert.include(metrics, "a2a_server_requests_total")
      assert.include(metrics, "a2a_agent_executions_total")
    }).pipe(Effect.scoped))
})

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: { readonly stringValue?: string } }>
}

interface OtlpTraces {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<unknown> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
}

const spansOf = (body: string): Array<OtlpSpan> =>
  (JSON.parse(body) as OtlpTraces).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))

const attribute = (span: OtlpSpan, key: string): string | undefined =>
  span.attributes.find((a) => a.key === key)?.value.stringValue
