/**
 * gRPC beside the HTTP bindings in the Node server (NodeA2AServer `grpcPort`, A2A_GRPC_PORT): the card lists the
 * GRPC interface at the card's host and the port bound, after the HTTP ones or first when preferred, and a client
 * with the gRPC transport reaches the same agent through it. Off by default.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Logger } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import * as GrpcTransport from "../../src/grpc/GrpcTransport.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as TestServer from "../http/fixtures/TestServer.ts"

const cardOf = (url: string) =>
  Effect.promise(() => fetch(`${url}/.well-known/agent-card.json`).then((r) => r.json() as Promise<v1.AgentCard>))

const interfaces = (card: v1.AgentCard) =>
  card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)

const grpcUrl = (card: v1.AgentCard) => card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")?.url

describe("NodeA2AServer with gRPC", () => {
  it.live("off by default: no GRPC interface", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.startCore(DemoAgent.make(), {}, DemoAgent.card)
      const card = yield* cardOf(server.url)
      assert.isUndefined(grpcUrl(card))
    }).pipe(Effect.scoped))

  it.live("grpcPort: the card lists GRPC 1.0 after the HTTP interfaces; the client reaches the agent through it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.startCore(DemoAgent.make(), { grpcPort: 0 }, DemoAgent.card)
      const card = yield* cardOf(server.url)
      assert.deepStrictEqual(interfaces(card), [
        "JSONRPC 1.0",
        "HTTP+JSON 1.0",
        "GRPC 1.0",
        "JSONRPC 0.3",
        "HTTP+JSON 0.3"
      ])
      assert.match(grpcUrl(card)!, /^127\.0\.0\.1:\d+$/)
      assert.notStrictEqual(grpcUrl(card), "127.0.0.1:0")

      // listed after JSON-RPC: chosen when asked for
      const client = yield* A2AClient.resolve(server.url, { bindings: ["GRPC"] })
      assert.strictEqual(client.interface.protocolBinding, "GRPC")
      const reply = yield* client.sendMessage({ message: userText("over grpc") })
      assert.strictEqual("message" in reply ? textOf(reply.message.parts) : "", "Echo: over grpc")
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(FetchHttpClient.layer, GrpcTransport.layer))))

  it.live("preferredBinding GRPC lists it first, and the client picks it from the card alone", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.startCore(
        DemoAgent.make(),
        { grpcPort: 0, preferredBinding: "GRPC", versions: ["1.0"] },
        DemoAgent.card
      )
      const card = yield* cardOf(server.url)
      assert.deepStrictEqual(interfaces(card), ["GRPC 1.0", "JSONRPC 1.0", "HTTP+JSON 1.0"])
      const client = yield* A2AClient.resolve(server.url)
      assert.strictEqual(client.interface.protocolBinding, "GRPC")
      const result = yield* client.sendMessage({ message: userText("task via grpc") })
      assert.isTrue("task" in result && result.task.status.state === "TASK_STATE_COMPLETED")
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(FetchHttpClient.layer, GrpcTransport.layer))))

  it.live("A2A_GRPC_PORT turns it on from the environment", () =>
    Effect.gen(function*() {
      const layer = NodeA2AServer.layerConfig({ host: "127.0.0.1", port: 0 }).pipe(
        Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ A2A_GRPC_PORT: "0" }))),
        Layer.provide(Logger.layer([]))
      )
      const context = yield* Layer.build(layer)
      const address = Context.get(context, HttpServer.HttpServer).address
      const port = NetAddress.isInetAddress(address) ? address.port : 0
      const card = yield* cardOf(`http://127.0.0.1:${port}`)
      assert.match(grpcUrl(card) ?? "", /^127\.0\.0\.1:\d+$/)
    }).pipe(Effect.scoped))

  it.live("A2A_GRPC_PORT out of range is a configuration error", () =>
    Effect.gen(function*() {
      const layer = NodeA2AServer.layerConfig({ host: "127.0.0.1", port: 0 }).pipe(
        Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ A2A_GRPC_PORT: "70000" }))),
        Layer.provide(Logger.layer([]))
      )
      const error = yield* Effect.flip(Layer.build(layer))
      assert.include(String(error), "A2A_GRPC_PORT must be between 0 and 65535")
    }).pipe(Effect.scoped))
})
