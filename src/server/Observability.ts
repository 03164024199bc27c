/**
 * Tracing and metrics of the A2A server, on Effect's own Tracer and Metric.
 *
 * - A span per A2A operation (`A2A.<Operation>`, kind server: method, binding, protocol version, task and context
 *   ids, outcome) and one per agent execution (`A2A.execute`, its child), under the HTTP server's span, itself
 *   the child of the caller's W3C `traceparent` (Effect's HTTP server reads it). The client and webhook deliveries
 *   send a `traceparent` of their own span.
 * - Metrics: requests (`a2a_server_requests_total`), errors by code (`a2a_server_errors_total`; refusals before
 *   any operation ran, `a2a_server_refused_total`), durations
 *   (`a2a_server_request_duration_seconds`, `a2a_agent_execution_duration_seconds`), open streams
 *   (`a2a_server_open_streams`), task state transitions (`a2a_task_transitions_total`), executions by outcome
 *   (`a2a_agent_executions_total`).
 * - Exported over OTLP/HTTP (JSON) with Effect's own exporter: `layerOtlp` for library users, `layerOtlpConfig`
 *   (the standard `OTEL_*` variables) for `effect-a2a serve`.
 *
 * Free when off: the server decides once, when its RequestHandler is built, whether to instrument anything. It
 * does when `Enabled` is set (the OTLP layers set it) or a tracer other than Effect's built-in one is installed;
 * otherwise the operations run exactly as without this module.
 *
 * Provide the OTLP layer (or your tracer) to the whole server, its HTTP layer included: spans are made by the
 * tracer of the request's fiber.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import { A2AServer, DemoAgent, Observability } from "effect-a2a/server"
 *
 * // the server's spans and metrics sent to an OpenTelemetry collector
 * const server = NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.provide(Observability.layerOtlp({ url: "http://localhost:4318", serviceName: "my-agent" })),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as OtlpExporter from "effect/observability/OtlpExporter"
import type * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as Tracer from "effect/Tracer"
import { type A2AError, errorTable } from "../protocol/A2AError.ts"

/**
 * Instrument the server even without a tracer of its own (e.g. metrics read by another exporter).
 *
 * @since 0.1.0
 * @category services
 */
export const Enabled = Context.Reference<boolean>("effect-a2a/server/Observability/Enabled", {
  defaultValue: () => false
})

/**
 * Turns the server's instrumentation on (the OTLP layers include it).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEnabled: Layer.Layer<never> = Layer.succeed(Enabled, true)

/**
 * Whether the server instruments itself in this context: `Enabled`, or a tracer other than Effect's built-in one.
 *
 * @since 0.1.0
 * @category guards
 */
export const isEnabled: Effect.Effect<boolean> = Effect.withFiber((fiber) =>
  Effect.succeed(
    fiber.getRef(Enabled) ||
      (fiber.getRef(References.TracerEnabled) && fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer)
  )
)

/**
 * A span maker decided once, as `isEnabled` is: `traced(name)` wraps an effect in `Effect.withSpan(name)` where the
 * server instruments itself, and leaves it as it is otherwise. For services that make spans of their own on every
 * call (the SQL stores): an unused span still costs its stack trace and allocation.
 *
 * @since 0.1.0
 * @category utils
 */
export const spanMaker: Effect.Effect<
  (name: string) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
> = Effect.map(
  isEnabled,
  (observed) => (name) => (self) => observed ? Effect.withSpan(self, name) : self
)

// --- metrics ---

// Seconds, as OpenTelemetry's semantic conventions measure durations, with their HTTP server buckets.
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
const executionBuckets = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600]

/**
 * Operations called, by `method` (the operation's name), `binding` and protocol `version`.
 *
 * @since 0.1.0
 * @category utils
 */
export const requests = Metric.counter("a2a_server_requests_total", {
  description: "A2A operations called",
  incremental: true
})

/**
 * Operations answered with an error, by `method`, `binding`, `code` (JSON-RPC code) and `error` (its name).
 *
 * @since 0.1.0
 * @category utils
 */
export const errors = Metric.counter("a2a_server_errors_total", {
  description: "A2A operations answered with an error",
  incremental: true
})

/**
 * Requests refused before any operation ran (malformed JSON, an unknown method, params the schema rejects, an
 * unauthenticated caller, an unsupported version...), by `binding`, `code` (JSON-RPC code) and `error`.
 *
 * @since 0.1.0
 * @category utils
 */
export const refused = Metric.counter("a2a_server_refused_total", {
  description: "A2A requests refused before any operation ran",
  incremental: true
})

/**
 * What a binding calls for each request it refuses before any operation runs: counted in `context` when the
 * server instruments itself there (see `isEnabled`), nothing otherwise.
 *
 * @since 0.1.0
 * @category utils
 */
export const refusals: Effect.Effect<(binding: string, error: A2AError) => void> = Effect.flatMap(
  isEnabled,
  (enabled) =>
    enabled
      ? Effect.map(Effect.context<never>(), (context) => {
        const series = new Map<string, Metric.Metric<number, unknown>>()
        return (binding: string, error: A2AError) => {
          const key = `${binding}|${error._tag}`
          let metric = series.get(key)
          if (metric === undefined) {
            const code = String(errorTable[error._tag].jsonRpcCode)
            metric = Metric.withAttributes(refused, { binding, code, error: error._tag })
            series.set(key, metric)
          }
          metric.updateUnsafe(1, context)
        }
      })
      : Effect.succeed(ignore)
)

const ignore = (_binding: string, _error: A2AError): void => {}

/**
 * How long operations take, in seconds, by `method` and `binding`; a stream counts until it ends.
 *
 * @since 0.1.0
 * @category utils
 */
export const requestDuration = Metric.histogram("a2a_server_request_duration_seconds", {
  description: "Duration of A2A operations (streams: until they end), in seconds",
  boundaries: durationBuckets
})

/**
 * Event streams open now (SendStreamingMessage, SubscribeToTask), by `method` and `binding`.
 *
 * @since 0.1.0
 * @category utils
 */
export const openStreams = Metric.gauge("a2a_server_open_streams", {
  description: "A2A event streams open now"
})

/**
 * Task states reached, by `state` (`TASK_STATE_WORKING`...): one per status change published.
 *
 * @since 0.1.0
 * @category utils
 */
export const taskTransitions = Metric.counter("a2a_task_transitions_total", {
  description: "Task state changes, by the state reached",
  incremental: true
})

/**
 * Agent executions ended, by `outcome`: the state the task was left in, or `message` for a direct reply.
 *
 * @since 0.1.0
 * @category utils
 */
export const executions = Metric.counter("a2a_agent_executions_total", {
  description: "Agent executions ended, by outcome",
  incremental: true
})

/**
 * How long agent executions run, in seconds.
 *
 * @since 0.1.0
 * @category utils
 */
export const executionDuration = Metric.histogram("a2a_agent_execution_duration_seconds", {
  description: "Duration of agent executions, in seconds",
  boundaries: executionBuckets
})

// --- export over OTLP ---

/**
 * Where and how traces and metrics are exported over OTLP.
 *
 * @since 0.1.0
 * @category models
 */
export interface OtlpOptions {
  /** The collector's base URL (e.g. `http://localhost:4318`): traces go to `/v1/traces`, metrics to `/v1/metrics`. */
  readonly url: string
  /** Where traces go instead of `<url>/v1/traces`; `false`: not exported. */
  readonly tracesUrl?: string | false | undefined
  /** Where metrics go instead of `<url>/v1/metrics`; `false`: not exported. */
  readonly metricsUrl?: string | false | undefined
  /** `service.name` of the resource; default `OTEL_SERVICE_NAME`, else `effect-a2a`. */
  readonly serviceName?: string | undefined
  readonly serviceVersion?: string | undefined
  /** More resource attributes (besides those of `OTEL_RESOURCE_ATTRIBUTES`). */
  readonly attributes?: Record<string, unknown> | undefined
  /** Sent with every export (e.g. an API key). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** How often spans are sent; default 5 seconds. */
  readonly tracesInterval?: Duration.Input | undefined
  /** How often metrics are sent; default 10 seconds. */
  readonly metricsInterval?: Duration.Input | undefined
}

const joinPath = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`

type Exporter = Layer.Layer<OtlpExporter.Flusher, never, HttpClient.HttpClient | OtlpSerialization.OtlpSerialization>

/**
 * Spans and metrics exported over OTLP/HTTP as JSON, with the instrumentation on. Needs an HttpClient (e.g.
 * `FetchHttpClient.layer`); exports go out with tracing off, so they never trace themselves. What is still buffered
 * is sent when the layer is released; `OtlpExporter.Flusher` sends it at once.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOtlp = (
  options: OtlpOptions
): Layer.Layer<OtlpExporter.Flusher, never, HttpClient.HttpClient> =>
  Layer.unwrap(Effect.gen(function*() {
    const serviceName = options.serviceName ??
      Option.getOrElse(yield* Effect.orDie(Config.option(Config.String("OTEL_SERVICE_NAME"))), () => "effect-a2a")
    const resource = {
      serviceName,
      serviceVersion: options.serviceVersion,
      ...(options.attributes !== undefined ? { attributes: options.attributes } : {})
    }
    const tracesUrl = options.tracesUrl ?? joinPath(options.url, "/v1/traces")
    const metricsUrl = options.metricsUrl ?? joinPath(options.url, "/v1/metrics")
    // Loaded when an exporter is built: every server imports this module (its metrics), few export over OTLP.
    const [otlpTracer, otlpMetrics, otlpSerialization] = yield* Effect.promise(() =>
      Promise.all([
        import("effect/observability/OtlpTracer"),
        import("effect/observability/OtlpMetrics"),
        import("effect/observability/OtlpSerialization")
      ])
    )
    const traces: Exporter = tracesUrl === false ? OtlpExporter.layerFlusher : otlpTracer.layer({
      url: tracesUrl,
      resource,
      headers: options.headers,
      exportInterval: options.tracesInterval
    })
    const metrics: Exporter = metricsUrl === false ? OtlpExporter.layerFlusher : otlpMetrics.layer({
      url: metricsUrl,
      resource,
      headers: options.headers,
      exportInterval: options.metricsInterval
    })
    return Layer.mergeAll(traces, metrics, layerEnabled).pipe(Layer.provide(otlpSerialization.layerJson))
  }))

const exporterList = (name: string): Config.Config<ReadonlyArray<string>> =>
  Config.String(name).pipe(
    Config.map((list) => list.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0)),
    Config.withDefault<ReadonlyArray<string>>(["otlp"])
  )

/**
 * `layerOtlp` from the standard OpenTelemetry variables, when an endpoint is set; otherwise nothing at all (and
 * the server stays uninstrumented). `OTEL_EXPORTER_OTLP_ENDPOINT` (the collector's base URL) or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (full URLs), `OTEL_SERVICE_NAME`
 * (default `effect-a2a`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,...`),
 * `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` (`none` turns one off), `OTEL_BSP_SCHEDULE_DELAY` and
 * `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds), `OTEL_SDK_DISABLED`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOtlpConfig: Layer.Layer<OtlpExporter.Flusher, Config.ConfigError, HttpClient.HttpClient> = Layer
  .unwrap(
    Effect.gen(function*() {
      const env = yield* Config.all({
        disabled: Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
        endpoint: Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT")),
        tracesEndpoint: Config.option(Config.URL("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
        metricsEndpoint: Config.option(Config.URL("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")),
        tracesExporter: exporterList("OTEL_TRACES_EXPORTER"),
        metricsExporter: exporterList("OTEL_METRICS_EXPORTER"),
        serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("effect-a2a")),
        headers: Config.Record(Schema.String, Schema.StringFromUriComponent, "OTEL_EXPORTER_OTLP_HEADERS").pipe(
          Config.withDefault(undefined)
        ),
        tracesInterval: Config.option(Config.Int("OTEL_BSP_SCHEDULE_DELAY")),
        metricsInterval: Config.option(Config.Int("OTEL_METRIC_EXPORT_INTERVAL"))
      })
      const base = Option.getOrUndefined(env.endpoint)?.toString()
      const urlOf = (specific: Option.Option<URL>, exporter: ReadonlyArray<string>, path: string) =>
        !exporter.includes("otlp")
          ? false
          : Option.isSome(specific)
          ? specific.value.toString()
          : base !== undefined
          ? joinPath(base, path)
          : false
      const tracesUrl = urlOf(env.tracesEndpoint, env.tracesExporter, "/v1/traces")
      const metricsUrl = urlOf(env.metricsEndpoint, env.metricsExporter, "/v1/metrics")
      if (env.disabled || (tracesUrl === false && metricsUrl === false)) return OtlpExporter.layerFlusher
      return layerOtlp({
        url: base ?? "",
        tracesUrl,
        metricsUrl,
        serviceName: env.serviceName,
        headers: env.headers,
        tracesInterval: Option.getOrUndefined(Option.map(env.tracesInterval, Duration.millis)),
        metricsInterval: Option.getOrUndefined(Option.map(env.metricsInterval, Duration.millis))
      })
    })
  )
