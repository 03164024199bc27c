/**
 * A2A 0.3 is a wing the 1.0 core does not know: without `A2A03.layer` the server serves 1.0 only (no 0.3 methods,
 * no /v1 routes, the 1.0 card for everyone) and the client speaks 1.0 only, saying what to add when it meets a 0.3
 * agent; with it, both speak 0.3 as well (the rest of test/v0_3 and test/interop/v0_3).
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import { SdkPeer03 } from "../interop/v0_3/SdkServer03.ts"
import { at, request } from "./fixtures/Server.ts"

/** Our server as a library user composes it, without the 0.3 wing (its default versions still name 0.3). */
class Without extends Context.Service<Without, { readonly url: string }>()("test/v0_3/Wing/Without") {
  static readonly layer = Layer.effect(
    Without,
    Effect.gen(function*() {
      const server = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
        Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
        Layer.provide(Logger.layer([]))
      )
      const context = yield* Layer.build(server).pipe(Effect.orDie)
      const address = Context.get(context, HttpServer.HttpServer).address
      return { url: `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}` }
    })
  )
}

const rpc = (url: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  request(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })

layer(Layer.mergeAll(Without.layer, SdkPeer03.layer, FetchHttpClient.layer), { excludeTestServices: true })(
  "the 0.3 wing",
  (it) => {
    it.effect("without it the server serves 1.0 only: no 0.3 methods, no /v1 routes, the 1.0 card", () =>
      Effect.gen(function*() {
        const { url } = yield* Without
        // No A2A-Version means 0.3 (spec 3.6.2), which is not served: VersionNotSupported naming what is.
        const legacy = yield* rpc(url, "message/send", {
          message: { kind: "message", messageId: "m", role: "user", parts: [] }
        })
        assert.strictEqual(at(legacy.json, "error", "code"), -32009)
        assert.include(at(legacy.json, "error", "message") as string, "1.0")
        // /v1/... is no 0.3 route here, only a 1.0 route under a tenant named "v1": a 1.0 Status body, not 0.3's.
        const rest = yield* request(`${url}/v1/tasks/x`)
        assert.strictEqual(rest.status, 400)
        assert.strictEqual(at(rest.json, "error", "details", 0, "reason"), "VERSION_NOT_SUPPORTED")
        const card = yield* request(`${url}/.well-known/agent-card.json`)
        assert.property(card.json, "supportedInterfaces")
        assert.notProperty(card.json, "url")
        assert.deepStrictEqual(
          (at(card.json, "supportedInterfaces") as ReadonlyArray<{ protocolVersion: string }>).map((i) =>
            i.protocolVersion
          ),
          ["1.0", "1.0"]
        )
        assert.isNull(card.headers.get("vary"))
        // 1.0 is served as ever.
        const modern = yield* rpc(url, "GetTask", { id: "nope" }, { "a2a-version": "1.0" })
        assert.strictEqual(at(modern.json, "error", "code"), -32001)
      }))

    it.effect("without it the client refuses a 0.3 agent's card, saying what to add; with it, it talks to it", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer03
        const error = yield* Effect.flip(A2AClient.resolve(peer.url, { retry: false }))
        assert.strictEqual(error._tag, "A2AResponseError")
        assert.include(error.message, "A2A 0.3.0 card")
        assert.include(error.message, "A2A03.layer")
        const client = yield* A2AClient.resolve(peer.url).pipe(Effect.provide(A2A03.client))
        assert.strictEqual(client.interface.protocolVersion, "0.3")
      }))
  }
)
