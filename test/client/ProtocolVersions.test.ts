/**
 * A2AClient and protocol versions: with the 0.3 wing (`A2A03.client`) it talks to A2A 0.3 agents too (a 0.3 card
 * is read into the 1.0 model and a 0.3 transport translates at the wire, so the user only sees 1.0 values), it
 * takes the first interface of the card it speaks (a 1.0 one where the agent lists it first), and
 * `protocolVersions` pins. Without the wing it speaks 1.0 only and says so. Peers: the official SDK's 0.3-only
 * server, and our server serving 1.0 and 0.3.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { A2ANoCompatibleInterface } from "../../src/client/A2AClientError.ts"
import * as AgentCardResolver from "../../src/client/AgentCardResolver.ts"
import * as InterfaceSelection from "../../src/client/InterfaceSelection.ts"
import * as JsonRpcTransport from "../../src/client/JsonRpcTransport.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import * as RestTransport from "../../src/client/RestTransport.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import * as V03ClientEdition from "../../src/v0_3/client/V03ClientEdition.ts"
import * as V03JsonRpcTransport from "../../src/v0_3/client/V03JsonRpcTransport.ts"
import * as V03RestTransport from "../../src/v0_3/client/V03RestTransport.ts"
import { SdkPeer03 } from "../interop/v0_3/SdkServer03.ts"
import { Ours, OursSecured, TOKEN } from "./OurServer.ts"
import { kinds, taskOf } from "./Results.ts"
import { cardFor } from "./TestServer.ts"

/** The JSON-RPC methods the SDK's server received since `from`. */
const methodsSince = (from: number) =>
  Effect.map(SdkPeer03, (peer) => peer.requests.slice(from).map((r) => (r.body as { method?: unknown }).method))

const requestCount = Effect.map(SdkPeer03, (peer) => peer.requests.length)

layer(
  Layer.mergeAll(SdkPeer03.layer, Ours.layer, OursSecured.layer, FetchHttpClient.layer, A2A03.client),
  { excludeTestServices: true }
)("A2AClient and protocol versions", (it) => {
  describe("against the official SDK's 0.3-only server", () => {
    it.effect("resolve reads the 0.3 card as a 1.0 card and selects its preferred 0.3 interface", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer03
        const client = yield* A2AClient.resolve(peer.url)
        expect(client.card.name).toBe("SDK 0.3 Agent")
        // The main `url` first, then `additionalInterfaces` without the duplicate of the main one.
        expect(client.card.supportedInterfaces).toStrictEqual([
          { url: peer.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
          { url: peer.restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
        ])
        expect(client.interface).toStrictEqual(client.card.supportedInterfaces[0])
        expect(client.url).toBe(peer.jsonRpcUrl)
      }))

    it.effect("send, stream and get over the 0.3 wire, 1.0 values out", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer03
        const client = yield* A2AClient.resolve(peer.url)
        const from = yield* requestCount

        const echo = yield* client.sendMessage({ message: userText("hi") })
        expect("message" in echo && echo.message.role).toBe("ROLE_AGENT")
        expect("message" in echo && textOf(echo.message.parts)).toBe("echo: hi")

        const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("task") }))
        const k = kinds(events)
        expect(k[0]).toMatch(/^task:TASK_STATE_/)
        expect(k).toContain("artifact:Hello, ")
        expect(k.at(-1)).toBe("status:TASK_STATE_COMPLETED")

        const taskId = events.flatMap((e) => ("task" in e ? [e.task.id] : []))[0]!
        const task = yield* client.getTask({ id: taskId })
        expect(task.id).toBe(taskId)
        expect(task.status.state).toBe("TASK_STATE_COMPLETED")
        expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual(["Hello, world"])

        const missing = yield* Effect.flip(client.getTask({ id: "no-such-task" }))
        expect(missing._tag).toBe("TaskNotFound")
        expect(yield* methodsSince(from)).toEqual(["message/send", "message/stream", "tasks/get", "tasks/get"])
        // A 0.3 call names its own version.
        expect(peer.requests.at(-1)?.headers["a2a-version"]).toBe("0.3")
      }))

    it.effect("restricted to HTTP+JSON: the 0.3 REST interface", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer03
        const client = yield* A2AClient.resolve(peer.url, { bindings: ["HTTP+JSON"] })
        expect(client.interface).toStrictEqual({
          url: peer.restUrl,
          protocolBinding: "HTTP+JSON",
          protocolVersion: "0.3"
        })
        const task = yield* Effect.flatMap(client.sendMessage({ message: userText("task") }), taskOf)
        expect(task.status.state).toBe("TASK_STATE_COMPLETED")
        expect((yield* client.getTask({ id: task.id })).id).toBe(task.id)
      }))

    it.effect("pinned to 1.0: A2ANoCompatibleInterface naming what the agent offers, without a call", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer03
        const from = yield* requestCount
        const error = yield* Effect.flip(A2AClient.resolve(peer.url, { protocolVersions: ["1.0"] }))
        if (!(error instanceof A2ANoCompatibleInterface)) return expect.fail(`unexpected ${error._tag}`)
        expect(error.offered).toStrictEqual([
          { url: peer.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
          { url: peer.restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
        ])
        expect(error.supported).toStrictEqual(["JSONRPC 1.0", "HTTP+JSON 1.0"])
        expect(error.message).toContain(`JSONRPC 0.3 at ${peer.jsonRpcUrl}`)
        expect(yield* requestCount).toBe(from)
      }))
  })

  describe("against our server (1.0 and 0.3)", () => {
    it.effect("unpinned, the card lists 1.0 first: JSON-RPC 1.0", () =>
      Effect.gen(function*() {
        const server = yield* Ours
        const client = yield* A2AClient.resolve(server.url)
        expect(client.card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
          "JSONRPC 1.0",
          "HTTP+JSON 1.0",
          "JSONRPC 0.3",
          "HTTP+JSON 0.3"
        ])
        expect(client.interface).toStrictEqual({
          url: `${server.url}/`,
          protocolBinding: "JSONRPC",
          protocolVersion: "1.0"
        })
        const echo = yield* client.sendMessage({ message: userText("hi") })
        expect("message" in echo && textOf(echo.message.parts)).toBe("Echo: hi")
        // ListTasks exists in 1.0 only: that it works shows the 1.0 wire.
        yield* client.listTasks({ pageSize: 1 })
      }))

    it.effect("pinned to 0.3 (JSON-RPC and HTTP+JSON): the 0.3 interfaces, 1.0 values out", () =>
      Effect.gen(function*() {
        const server = yield* Ours
        for (const binding of ["JSONRPC", "HTTP+JSON"]) {
          const client = yield* A2AClient.resolve(server.url, { protocolVersions: ["0.3"], bindings: [binding] })
          expect(client.interface.protocolBinding).toBe(binding)
          expect(client.interface.protocolVersion).toBe("0.3")
          const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("task report") }))
          expect(kinds(events).at(-1)).toBe("status:TASK_STATE_COMPLETED")
          const taskId = events.flatMap((e) => ("task" in e ? [e.task.id] : []))[0]!
          const task = yield* client.getTask({ id: taskId })
          expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual(["Chunk 1. Chunk 2. Chunk 3."])
          // 0.3 has no ListTasks: refused by the client, which proves the 0.3 wire.
          expect((yield* Effect.flip(client.listTasks()))._tag).toBe("UnsupportedOperation")
        }
      }))

    it.effect("pinned to 0.3 with credentials: the extended card arrives as a 1.0 card", () =>
      Effect.gen(function*() {
        const server = yield* OursSecured
        const client = yield* A2AClient.resolve(server.url, {
          protocolVersions: ["0.3"],
          credentials: { bearer: TOKEN }
        })
        expect(client.interface.protocolVersion).toBe("0.3")
        const extended = yield* client.getExtendedAgentCard()
        expect(extended.name).toBe("effect-a2a demo agent (for alice)")
        expect(extended.securitySchemes).toStrictEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } })
      }))

    it.effect("the hybrid card (what a request without A2A-Version gets) keeps the 1.0 interface list", () =>
      Effect.gen(function*() {
        const server = yield* OursSecured
        const httpClient = yield* HttpClient.HttpClient
        // Its security schemes are in 0.3 shapes, so it is read as a 0.3 card plus `supportedInterfaces`.
        const { card } = yield* AgentCardResolver.fetchCard(httpClient, server.url, { protocolVersion: "0.3" })
        expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
          "JSONRPC 1.0",
          "HTTP+JSON 1.0",
          "JSONRPC 0.3",
          "HTTP+JSON 0.3"
        ])
        expect(card.securitySchemes).toStrictEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } })
        expect(card.securityRequirements).toStrictEqual([{ schemes: { bearer: { list: [] } } }])
        const client = yield* A2AClient.make(card, { credentials: { bearer: TOKEN } })
        expect(client.interface.protocolVersion).toBe("1.0")
        expect((yield* client.getTask({ id: "missing" }).pipe(Effect.flip))._tag).toBe("TaskNotFound")
      }))
  })
})

describe("A2AClient: default transports and the card's order", () => {
  const iface = (protocolBinding: string, protocolVersion: string): v1.AgentInterface => ({
    url: `http://h/${protocolBinding}/${protocolVersion}`,
    protocolBinding,
    protocolVersion
  })
  // What the client tries with the 0.3 wing: the 1.0 defaults, then the wing's transports.
  const factories = [...A2AClient.defaultTransports, ...V03ClientEdition.edition.transports]
  const select = (interfaces: ReadonlyArray<v1.AgentInterface>, protocolVersions?: ReadonlyArray<string>) =>
    InterfaceSelection.select(cardFor(interfaces), { factories, protocolVersions })

  it("the defaults speak JSON-RPC and HTTP+JSON at 1.0; the 0.3 wing adds its own after them", () => {
    expect(A2AClient.defaultTransports).toStrictEqual([JsonRpcTransport.factory, RestTransport.factory])
    expect(factories).toStrictEqual([
      JsonRpcTransport.factory,
      RestTransport.factory,
      V03JsonRpcTransport.factory,
      V03RestTransport.factory
    ])
  })

  it("the first interface in the agent's order wins, whichever version it is", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<v1.AgentInterface>, unknown]> = [
      [[iface("JSONRPC", "1.0"), iface("JSONRPC", "0.3")], JsonRpcTransport.factory],
      [[iface("JSONRPC", "0.3"), iface("JSONRPC", "1.0")], V03JsonRpcTransport.factory],
      [[iface("GRPC", "1.0"), iface("HTTP+JSON", "0.3.0"), iface("JSONRPC", "1.0")], V03RestTransport.factory],
      [[iface("HTTP+JSON", "1.0.2"), iface("JSONRPC", "0.3")], RestTransport.factory]
    ]
    for (const [interfaces, factory] of cases) {
      const selection = select(interfaces)
      if (selection instanceof A2ANoCompatibleInterface) return expect.fail(selection.message)
      expect(selection.factory).toBe(factory)
      expect(selection.interface).toBe(interfaces.find((i) => i.url === selection.url))
    }
  })

  it("pinning skips the other version; a version nobody speaks is A2ANoCompatibleInterface", () => {
    const both = [iface("JSONRPC", "0.3"), iface("JSONRPC", "1.0")]
    const pinned = select(both, ["1.0"])
    if (pinned instanceof A2ANoCompatibleInterface) return expect.fail(pinned.message)
    expect(pinned.interface.protocolVersion).toBe("1.0")
    const old = select([iface("JSONRPC", "0.2")])
    if (!(old instanceof A2ANoCompatibleInterface)) return expect.fail("expected no interface")
    expect(old.supported).toStrictEqual(["JSONRPC 1.0", "HTTP+JSON 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3"])
  })
})
