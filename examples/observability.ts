// The echo agent on http://127.0.0.1:$PORT (default 8080), traced and measured: its spans and metrics go over
// OTLP/HTTP to the collector at $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318).
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { NodeA2AServer } from "effect-a2a/node"
import { A2AServer, AgentExecutor, Observability } from "effect-a2a/server"
import { FetchHttpClient } from "effect/http"

NodeA2AServer.serve({ port: Number(process.env["PORT"] ?? 8080) }).pipe(
  Layer.provide(A2AServer.layer({
    card: {
      name: "Echo agent",
      description: "Repeats what you say",
      version: "1.0.0",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
    },
    executor: AgentExecutor.replyWithText((text) => `You said: ${text}`)
  })),
  // provided to the whole server, its HTTP layer included: each request's fiber traces with this tracer
  Layer.provide(Observability.layerOtlp({
    url: process.env["OTEL_EXPORTER_OTLP_ENDPOINT"] ?? "http://localhost:4318",
    serviceName: "echo-agent"
  })),
  Layer.provide(FetchHttpClient.layer),
  Layer.launch,
  NodeRuntime.runMain
)
