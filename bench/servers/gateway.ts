/**
 * The gateway in front of our server: what the gateway's cost is read against. The process starts `ours.ts` (the
 * trivial agent over the memory stores, with the V8 flags the harness gives our servers) as its child, runs the
 * gateway as `effect-a2a gateway --memory` does (Gateway.routes on Node's HTTP server, the registry in memory),
 * registers the child through the admin API, and announces the agent's base URL at the gateway
 * (`/agents/bench`) as its origin: the harness finds the gateway's card there and calls the gateway's interfaces.
 * The CPU the harness reads is the gateway's own; the upstream's is apart, in its child.
 *
 * Its upstream calls go through undici's pooled client, as `effect-a2a gateway` makes them; with
 * BENCH_GATEWAY_CLIENT=fetch (the `gateway-fetch` server) through fetch, as the command made them before. With
 * BENCH_GATEWAY_RELAY=off (the `gateway-full` server) the byte relay is off: every call takes the full path. Its
 * relay runs on Node's native path (NodeNativeRelay, on the same undici pool), as the command runs it; with
 * BENCH_GATEWAY_NATIVE=off (the `gateway-generic` server) on Effect's generic HTTP server and HttpClient.
 *
 * The child is stopped when the gateway stops (SIGTERM first, SIGKILL when the process exits anyway).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as NetAddress from "effect/net/NetAddress"
import * as Redacted from "effect/Redacted"
import { createServer } from "node:http"
import * as ByteRelay from "../../src/gateway/ByteRelay.ts"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as NodeNativeRelay from "../../src/node/NodeNativeRelay.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as A2A01 from "../../src/v0_1/A2A01.ts"
import { announce, installAllocationSampler, installGcOnSignal, installProfiler, startUpstream } from "./lifecycle.ts"

const ADMIN_TOKEN = "bench-admin"
const AGENT = "bench"

/** Starts the upstream agent; its origin once it is ready. */
const upstream = Effect.acquireRelease(
  Effect.tryPromise({
    try: startUpstream,
    catch: (cause) => cause instanceof Error ? cause : new Error(String(cause))
  }),
  ({ child }) =>
    Effect.callback<void>((resume) => {
      if (child.exitCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
      child.kill("SIGTERM")
    })
)

/** Registers the upstream with the gateway, then announces the agent's base URL at the gateway. */
const register = Layer.effectDiscard(Effect.gen(function*() {
  const { origin } = yield* upstream
  const server = yield* HttpServer.HttpServer
  const address = server.address
  if (!NetAddress.isInetAddress(address)) return yield* Effect.die("the gateway has no TCP address")
  const gateway = `http://127.0.0.1:${address.port}`
  yield* Effect.tryPromise(async () => {
    const response = await fetch(`${gateway}/admin/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ url: origin, name: AGENT })
    })
    if (response.status !== 201) throw new Error(`registration: HTTP ${response.status} ${await response.text()}`)
  }).pipe(Effect.orDie)
  yield* Effect.sync(() => announce(`${gateway}/agents/${AGENT}`))
}))

const main = register.pipe(
  Layer.provideMerge(
    HttpRouter.serve(Gateway.routes({ adminToken: Redacted.make(ADMIN_TOKEN) }), {
      disableListenLog: true,
      disableLogger: true
    }).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })))
  ),
  Layer.provide(Gateway.layerMemory),
  Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
  Layer.provide(Layer.merge(A2A01.client, A2A01.server)),
  Layer.provide(
    process.env.BENCH_GATEWAY_CLIENT === "fetch"
      ? FetchHttpClient.layer
      : process.env.BENCH_GATEWAY_NATIVE === "off"
      ? NodeHttpClient.layerUndici
      : Layer.merge(NodeHttpClient.layerUndiciNoDispatcher, NodeNativeRelay.layer).pipe(
        Layer.provideMerge(NodeHttpClient.layerDispatcher)
      )
  ),
  Layer.provide(Layer.succeed(ByteRelay.Enabled, process.env.BENCH_GATEWAY_RELAY !== "off"))
)

installProfiler()
installAllocationSampler()
installGcOnSignal()
Layer.launch(main).pipe(NodeRuntime.runMain)
