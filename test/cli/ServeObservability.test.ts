/**
 * `effect-a2a serve` with the standard OpenTelemetry variables: a real serve process exporting over OTLP/HTTP to a
 * collector on 127.0.0.1 (the webhook test receiver), and the configuration errors said in one line.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Observability from "../../src/server/Observability.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"
import * as Receiver from "../server/push/receiver.ts"

interface OtlpTraces {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: unknown }> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<{ readonly name: string }> }>
  }>
}

describe("serve with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it.live(
    "exports the operations' spans and the metrics to the collector, named by OTEL_SERVICE_NAME",
    () =>
      Effect.gen(function*() {
        const collector = yield* Receiver.make
        const serve = yield* ServeProcess.start({
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url("/collector"),
          OTEL_SERVICE_NAME: "serve-under-test",
          OTEL_BSP_SCHEDULE_DELAY: "50",
          OTEL_METRIC_EXPORT_INTERVAL: "100"
        }, ["--memory"])
        const response = yield* Effect.promise(() =>
          fetch(`${serve.base}/message:send`, {
            method: "POST",
            headers: { "content-type": "application/json", "a2a-version": "1.0" },
            body: JSON.stringify({
              message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "quick 1" }] }
            })
          })
        )
        assert.strictEqual(response.status, 200)
        yield* collector.waitFor("/collector/v1/metrics", 1)
        const names = new Set<string>()
        for (let i = 0; i < 300 && !names.has("A2A.execute"); i++) {
          for (const r of collector.on("/collector/v1/traces")) {
            const traces = JSON.parse(r.body) as OtlpTraces
            for (const rs of traces.resourceSpans) {
              assert.deepInclude(rs.resource.attributes, {
                key: "service.name",
                value: { stringValue: "serve-under-test" }
              })
              for (const ss of rs.scopeSpans) for (const span of ss.spans) names.add(span.name)
            }
          }
          if (!names.has("A2A.execute")) yield* Effect.sleep("20 millis")
        }
        assert.isTrue(names.has("A2A.SendMessage"), [...names].join(", "))
        assert.isTrue(names.has("A2A.execute"), [...names].join(", "))
        assert.include(collector.on("/collector/v1/metrics").map((r) => r.body).join(""), "a2a_server_requests_total")
      }).pipe(Effect.scoped),
    30_000
  )
})

describe("Observability.layerOtlpConfig", () => {
  const build = (env: Record<string, string>) =>
    Layer.build(Observability.layerOtlpConfig).pipe(
      Effect.provide(FetchHttpClient.layer),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))),
      Effect.scoped,
      Effect.flip
    )

  it.effect("an endpoint that is not a URL is a ConfigError naming the variable", () =>
    Effect.gen(function*() {
      const error = yield* build({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })
      assert.strictEqual(error._tag, "ConfigError")
      assert.include(String(error), "OTEL_EXPORTER_OTLP_ENDPOINT")
    }))

  it.live("no endpoint, or OTEL_SDK_DISABLED, or exporters set to none: the server stays uninstrumented", () =>
    Effect.gen(function*() {
      for (
        const env of [
          {},
          { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" },
          {
            OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
            OTEL_TRACES_EXPORTER: "none",
            OTEL_METRICS_EXPORTER: "none"
          }
        ]
      ) {
        const enabled = yield* Effect.scoped(
          Layer.build(Observability.layerOtlpConfig).pipe(
            Effect.flatMap((context) => Effect.provideContext(Observability.isEnabled, context)),
            Effect.provide(FetchHttpClient.layer),
            Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
          )
        )
        assert.isFalse(enabled, JSON.stringify(env))
      }
      const collector = yield* Receiver.make
      const on = yield* Effect.scoped(
        Layer.build(Observability.layerOtlpConfig).pipe(
          Effect.flatMap((context) => Effect.provideContext(Observability.isEnabled, context)),
          Effect.provide(FetchHttpClient.layer),
          Effect.provide(
            ConfigProvider.layer(ConfigProvider.fromEnv({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url("/c") } }))
          )
        )
      )
      assert.isTrue(on)
    }).pipe(Effect.scoped))
})
