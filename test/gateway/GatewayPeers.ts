/**
 * What the gateway tests put behind the gateway and in front of it: the gateway itself (Gateway.routes on Node's
 * HTTP server, 127.0.0.1 and an ephemeral port) over a given store and Auth, and small helpers to call its admin API.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Context, Effect, Layer, Logger, Redacted, Schedule, type Scope } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import { createServer } from "node:http"
import * as Gateway from "../../src/gateway/Gateway.ts"
import type * as GatewayStore from "../../src/gateway/GatewayStore.ts"
import * as NodeNativeRelay from "../../src/node/NodeNativeRelay.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as A2A01 from "../../src/v0_1/A2A01.ts"

export const ADMIN = "admin-t0ken"

/** A key to seal credentials with (32 bytes). */
export const KEY = Redacted.make(Buffer.alloc(32, 7))

export interface RunningGateway {
  readonly url: string
}

/**
 * Where the byte relay runs: on Effect's generic HTTP server and the HttpClient (fetch), or on Node's native path
 * (NodeNativeRelay over undici's dispatcher, as `effect-a2a gateway` runs it).
 */
export type RelayPath = "generic" | "native"

/** Both relay paths, for the tests that run on each. */
export const relayPaths: ReadonlyArray<RelayPath> = ["generic", "native"]

const nativeClients = Layer.merge(NodeHttpClient.layerUndiciNoDispatcher, NodeNativeRelay.layer).pipe(
  Layer.provideMerge(NodeHttpClient.layerDispatcher)
)

/** The gateway for the scope, on `store`, its callers authenticated by `auth` (none by default). */
export const startGateway = (
  store: Layer.Layer<GatewayStore.GatewayStore, unknown>,
  options: Gateway.Options = {},
  auth: Auth.AuthService = Auth.none,
  relay: RelayPath = "generic"
): Effect.Effect<RunningGateway, never, Scope.Scope> =>
  Effect.gen(function*() {
    const layer = HttpRouter.serve(Gateway.routes({ adminToken: Redacted.make(ADMIN), ...options }), {
      disableLogger: true,
      disableListenLog: true
    }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
      Layer.provide(store),
      Layer.provide(Layer.succeed(Auth.Auth, auth)),
      Layer.provide(A2A01.layer),
      Layer.provide(relay === "native" ? nativeClients : FetchHttpClient.layer),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = NetAddress.isInetAddress(address) ? address.port : 0
    return { url: `http://127.0.0.1:${port}` }
  })

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field and asserted
type Json = any

export interface Answer {
  readonly status: number
  readonly body: Json
  readonly text: string
}

/** One call of the admin API (or of anything at the gateway), its body read as JSON when it is. */
export const call = (
  url: string,
  init: { readonly method?: string; readonly body?: unknown; readonly token?: string | null } = {}
): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { "content-type": "application/json", "a2a-version": "1.0" }
    const token = init.token === undefined ? ADMIN : init.token
    if (token !== null) headers["authorization"] = `Bearer ${token}`
    const response = await fetch(url, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {})
    })
    const text = await response.text()
    let body: unknown = undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, body, text }
  })

/**
 * Runs `effect` while the client has a call open (the demo agent's "slow" task, canceled after). Effect's streamable
 * HTTP transport has no standalone stream (GET is 405): a broadcast such as list_changed reaches the clients that
 * have a request open, on its response stream.
 */
export const whileCalling = <A, E, R>(client: Client, effect: Effect.Effect<A, E, R>, timeout = 20_000) =>
  Effect.gen(function*() {
    const controller = new AbortController()
    let started = false
    const pending = client.callTool({ name: "demo", arguments: { text: "slow" } }, undefined, {
      onprogress: () => {
        started = true
      },
      signal: controller.signal,
      timeout
    }).catch(() => undefined)
    yield* Effect.sync(() => started).pipe(
      Effect.repeat({ until: (s) => s, schedule: Schedule.spaced("20 millis"), times: 250 })
    )
    const result = yield* effect
    controller.abort("done")
    yield* Effect.promise(() => pending)
    return result
  })
