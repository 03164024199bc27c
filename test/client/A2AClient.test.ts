/**
 * What the client puts on the wire and how it chooses: card discovery, interface selection (spec 8.3.2),
 * service parameters (A2A-Version, A2A-Extensions), tenant (8.3.2 / 11), REST query parameters (11.5),
 * credentials from the card's security requirements (7.3), pagination, card verification, interceptors.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { A2ANoCompatibleInterface } from "../../src/client/A2AClientError.ts"
import * as InterfaceSelection from "../../src/client/InterfaceSelection.ts"
import * as JsonRpcTransport from "../../src/client/JsonRpcTransport.ts"
import { userText } from "../../src/client/Messages.ts"
import * as RestTransport from "../../src/client/RestTransport.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import { cardFor, json, rpcId, serve, task } from "./TestServer.ts"

const iface = (protocolBinding: string, url: string, protocolVersion = "1.0", tenant?: string): v1.AgentInterface => ({
  url,
  protocolBinding,
  protocolVersion,
  ...(tenant !== undefined ? { tenant } : {})
})

/** A peer answering JSON-RPC GetTask / ListTasks and REST GET /tasks/{id}, serving `card` at the well-known URL. */
const peer = (card: (base: string) => unknown) => {
  let base = ""
  return Effect.tap(
    serve((req, res) => {
      if (req.method === "GET" && req.url.endsWith(".json")) return json(res, 200, card(base))
      if (req.method === "POST" && req.body.includes("\"jsonrpc\"")) {
        const body = JSON.parse(req.body) as { method: string }
        const result = body.method === "ListTasks"
          ? { tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 }
          : body.method === "SendMessage"
          ? { task: task("t") }
          : task("t")
        return json(res, 200, { jsonrpc: "2.0", id: rpcId(req.body), result })
      }
      if (req.url.endsWith("/message:send")) return json(res, 200, { task: task("t") }, "application/a2a+json")
      if (req.url.includes("/tasks?") || req.url.endsWith("/tasks")) {
        return json(res, 200, { tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 }, "application/a2a+json")
      }
      return json(res, 200, task("t"), "application/a2a+json")
    }),
    (server) => Effect.sync(() => (base = server.url))
  )
}

describe("A2AClient: card discovery", () => {
  it.effect("fetches /.well-known/agent-card.json under the base URL, or a card URL as given", () =>
    Effect.gen(function*() {
      const server = yield* peer((base) => cardFor([iface("JSONRPC", `${base}/rpc`)]))
      const a = yield* A2AClient.resolve(server.url)
      const b = yield* A2AClient.resolve(`${server.url}/agents/x/`)
      const c = yield* A2AClient.resolve(`${server.url}/cards/custom.json`)
      expect([a.card.name, b.card.name, c.card.name]).toEqual(["Test Agent", "Test Agent", "Test Agent"])
      expect(server.requests.map((r) => r.url)).toEqual([
        "/.well-known/agent-card.json",
        "/agents/x/.well-known/agent-card.json",
        "/cards/custom.json"
      ])
      expect(a.url).toBe(`${server.url}/rpc`)
      expect(server.requests.map((r) => r.headers["a2a-version"])).toEqual(["1.0", "1.0", "1.0"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("A2AClient.layer provides the client as a service", () =>
    Effect.gen(function*() {
      const server = yield* peer((base) => cardFor([iface("JSONRPC", `${base}/rpc`)]))
      const task = yield* Effect.gen(function*() {
        const client = yield* A2AClient.A2AClient
        return yield* client.getTask({ id: "t" })
      }).pipe(Effect.provide(A2AClient.layer(server.url)))
      expect(task.id).toBe("t")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("a relative interface URL resolves against the card URL", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => cardFor([iface("HTTP+JSON", "/api/v1")]))
      const client = yield* A2AClient.resolve(server.url)
      expect(client.url).toBe(`${server.url}/api/v1`)
      yield* client.getTask({ id: "t" })
      expect(server.requests.at(-1)?.url).toBe("/api/v1/tasks/t")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("a missing card is an A2AResponseError, an incomplete 0.3 card and a broken card A2AAgentCardInvalid", () =>
    Effect.gen(function*() {
      const server = yield* serve((req, res) =>
        req.url.startsWith("/v03/")
          ? json(res, 200, {
            name: "Old",
            url: "http://x/rpc",
            protocolVersion: "0.3.0",
            preferredTransport: "JSONRPC"
          })
          : req.url.startsWith("/broken/")
          ? json(res, 200, { name: "Broken" })
          : json(res, 404, "Not Found", "text/plain")
      )
      const missing = yield* Effect.flip(A2AClient.resolve(server.url, { retry: false }))
      expect(missing._tag === "A2AResponseError" && missing.reason).toBe("UnexpectedStatus")
      expect(missing.message).toContain("/.well-known/agent-card.json")
      // It looks like a 0.3 card, so the 0.3 schema says what it lacks.
      const old = yield* Effect.flip(A2AClient.resolve(`${server.url}/v03`))
      expect(old._tag).toBe("A2AAgentCardInvalid")
      expect(old.message).toContain("an A2A 0.3 AgentCard")
      expect(old.message).toContain("skills")
      const broken = yield* Effect.flip(A2AClient.resolve(`${server.url}/broken`))
      expect(broken._tag).toBe("A2AAgentCardInvalid")
      expect(broken.message).toContain("an A2A 1.0 AgentCard")
      expect(broken.message).toContain("supportedInterfaces")
    }).pipe(Effect.provide(Layer.mergeAll(FetchHttpClient.layer, A2A03.client))))

  it.effect("verifyCard runs on the fetched card; its failure is the resolve failure", () =>
    Effect.gen(function*() {
      class Unsigned extends Schema.TaggedError<Unsigned>()("Unsigned", { name: Schema.String }) {}
      const server = yield* peer((base) => cardFor([iface("JSONRPC", `${base}/rpc`)]))
      const seen: Array<string> = []
      yield* A2AClient.resolve(server.url, { verifyCard: (card) => Effect.sync(() => seen.push(card.name)) })
      expect(seen).toEqual(["Test Agent"])
      const error = yield* Effect.flip(
        A2AClient.resolve(server.url, { verifyCard: (card) => Effect.fail(new Unsigned({ name: card.name })) })
      )
      expect(error._tag).toBe("Unsigned")
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

describe("A2AClient: interface selection", () => {
  const factories = [JsonRpcTransport.factory, RestTransport.factory]
  const card = cardFor([
    iface("GRPC", "http://h/grpc"),
    iface("JSONRPC", "http://h/old", "0.3"),
    iface("HTTP+JSON", "http://h/rest", "1.0.1"),
    iface("JSONRPC", "http://h/rpc")
  ])

  it("takes the first interface, in the card's order, that a transport speaks (patch version ignored)", () => {
    const selection = InterfaceSelection.select(card, { factories })
    if (selection instanceof A2ANoCompatibleInterface) return expect.fail(selection.message)
    expect(selection.url).toBe("http://h/rest")
    expect(selection.factory).toBe(RestTransport.factory)
  })

  it("honours a bindings restriction", () => {
    const selection = InterfaceSelection.select(card, { factories, bindings: ["jsonrpc"] })
    if (selection instanceof A2ANoCompatibleInterface) return expect.fail(selection.message)
    expect(selection.url).toBe("http://h/rpc")
  })

  it("fails with A2ANoCompatibleInterface listing what was offered", () => {
    const selection = InterfaceSelection.select(
      cardFor([iface("GRPC", "http://h/grpc"), iface("JSONRPC", "http://h/old", "0.3")]),
      { factories }
    )
    if (!(selection instanceof A2ANoCompatibleInterface)) return expect.fail("expected no interface")
    expect(selection.message).toContain("GRPC 1.0 at http://h/grpc")
    expect(selection.message).toContain("JSONRPC 0.3")
    expect(selection.supported).toEqual(["JSONRPC 1.0", "HTTP+JSON 1.0"])
  })
})

describe("A2AClient: what goes on the wire", () => {
  it.effect("A2A-Version on every request; A2A-Extensions from client and call; user headers", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => null)
      const client = yield* A2AClient.make(cardFor([iface("JSONRPC", server.url)]), {
        extensions: ["https://ext/a"],
        headers: { "x-trace": "abc" }
      })
      yield* client.getTask({ id: "t" })
      yield* client.getTask({ id: "t" }, { extensions: ["https://ext/b", "https://ext/a"] })
      const [first, second] = server.requests
      expect(first?.headers["a2a-version"]).toBe("1.0")
      expect(first?.headers["a2a-extensions"]).toBe("https://ext/a")
      expect(first?.headers["x-trace"]).toBe("abc")
      expect(first?.headers["content-type"]).toBe("application/json")
      expect(second?.headers["a2a-extensions"]).toBe("https://ext/a,https://ext/b")
      expect(JSON.parse(first?.body ?? "")).toMatchObject({ jsonrpc: "2.0", method: "GetTask", params: { id: "t" } })
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("tenant: in JSON-RPC params, as a REST path prefix; absent when the interface has none", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => null)
      const rpc = yield* A2AClient.make(cardFor([iface("JSONRPC", server.url, "1.0", "acme")]))
      const rest = yield* A2AClient.make(cardFor([iface("HTTP+JSON", `${server.url}/a2a/`, "1.0", "acme corp")]))
      const plain = yield* A2AClient.make(cardFor([iface("JSONRPC", server.url)]))
      yield* rpc.getTask({ id: "t" })
      yield* rest.getTask({ id: "t" })
      yield* rest.sendMessage({ message: userText("x", { messageId: "m1" }) })
      yield* plain.getTask({ id: "t" })
      const [a, b, c, d] = server.requests
      expect(JSON.parse(a?.body ?? "").params).toEqual({ id: "t", tenant: "acme" })
      expect(b?.url).toBe("/a2a/acme%20corp/tasks/t")
      expect(c?.url).toBe("/a2a/acme%20corp/message:send")
      expect(JSON.parse(c?.body ?? "")).toEqual({
        message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "x" }] }
      })
      expect(c?.headers["content-type"]).toBe("application/a2a+json")
      expect(JSON.parse(d?.body ?? "").params).toEqual({ id: "t" })
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("REST: request fields not in the path become query parameters (spec 11.5)", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => null)
      const client = yield* A2AClient.make(cardFor([iface("HTTP+JSON", server.url)]))
      yield* client.getTask({ id: "a/b", historyLength: 0 })
      yield* client.listTasks({
        contextId: "c 1",
        status: "TASK_STATE_WORKING",
        pageSize: 2,
        includeArtifacts: true,
        statusTimestampAfter: "2025-01-01T00:00:00Z"
      })
      const [get, list] = server.requests
      expect(get?.method).toBe("GET")
      expect(get?.url).toBe("/tasks/a%2Fb?historyLength=0")
      const query = new URL(list?.url ?? "", "http://x").searchParams
      expect(Object.fromEntries(query)).toEqual({
        contextId: "c 1",
        status: "TASK_STATE_WORKING",
        pageSize: "2",
        includeArtifacts: "true",
        statusTimestampAfter: "2025-01-01T00:00:00Z"
      })
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("an invalid request is InvalidParams before anything is sent", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => null)
      const client = yield* A2AClient.make(cardFor([iface("JSONRPC", server.url)]))
      const error = yield* Effect.flip(
        client.sendMessage({ message: { messageId: "m", role: "ROLE_USER", parts: [] } })
      )
      expect(error._tag).toBe("InvalidParams")
      expect(server.requests.length).toBe(0)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

describe("A2AClient: credentials", () => {
  const secured = (url: string, extra: Partial<v1.AgentCard>) => cardFor([iface("HTTP+JSON", url)], extra)

  it.effect("sends the credentials of the first requirement it can satisfy, where the scheme says", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => null)
      const card = secured(server.url, {
        securitySchemes: {
          oauth: {
            oauth2SecurityScheme: {
              flows: { clientCredentials: { tokenUrl: "https://auth/token", scopes: {} } }
            }
          },
          key: { apiKeySecurityScheme: { location: "query", name: "api_key" } },
          bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } }
        },
        securityRequirements: [
          { schemes: { oauth: { list: ["read"] } } },
          { schemes: { key: { list: [] }, bearer: { list: [] } } }
        ]
      })
      let refreshed = 0
      const client = yield* A2AClient.make(card, {
        credentials: {
          key: "k-1",
          bearer: Effect.sync(() => `token-${++refreshed}`),
          unrelated: "never-sent"
        }
      })
      yield* client.getTask({ id: "t" })
      yield* client.getTask({ id: "t" })
      const [a, b] = server.requests
      expect(a?.url).toBe("/tasks/t?api_key=k-1")
      expect(a?.headers["authorization"]).toBe("Bearer token-1")
      expect(b?.headers["authorization"]).toBe("Bearer token-2")
      expect(JSON.stringify(server.requests)).not.toContain("never-sent")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("header API keys and HTTP Basic; nothing is sent to an agent that asks for nothing", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => null)
      const withKey = yield* A2AClient.make(
        secured(server.url, {
          securitySchemes: { key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } } },
          securityRequirements: [{ schemes: { key: { list: [] } } }]
        }),
        { credentials: { key: "k-2" } }
      )
      const withBasic = yield* A2AClient.make(
        secured(server.url, {
          securitySchemes: { basic: { httpAuthSecurityScheme: { scheme: "basic" } } },
          securityRequirements: [{ schemes: { basic: { list: [] } } }]
        }),
        { credentials: { basic: "alice:s3cret" } }
      )
      const open = yield* A2AClient.make(secured(server.url, {}), { credentials: { key: "k-3" } })
      yield* withKey.getTask({ id: "t" })
      yield* withBasic.getTask({ id: "t" })
      yield* open.getTask({ id: "t" })
      const [a, b, c] = server.requests
      expect(a?.headers["x-api-key"]).toBe("k-2")
      expect(b?.headers["authorization"]).toBe(`Basic ${Buffer.from("alice:s3cret").toString("base64")}`)
      expect(c?.headers["authorization"]).toBeUndefined()
      expect(c?.headers["x-api-key"]).toBeUndefined()
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

describe("A2AClient: pagination and interceptors", () => {
  it.effect("listAllTasks walks every page and stops at an empty (or repeated) token", () =>
    Effect.gen(function*() {
      const pages: Record<string, { readonly ids: ReadonlyArray<string>; readonly next: string }> = {
        "": { ids: ["a", "b"], next: "p2" },
        p2: { ids: ["c"], next: "p3" },
        p3: { ids: ["d"], next: "" },
        loop: { ids: ["x"], next: "loop" }
      }
      const server = yield* serve((req, res) => {
        const body = JSON.parse(req.body) as { params: { pageToken?: string; contextId?: string } }
        const page = pages[body.params.contextId === "loop" ? "loop" : body.params.pageToken ?? ""]!
        json(res, 200, {
          jsonrpc: "2.0",
          id: rpcId(req.body),
          result: { tasks: page.ids.map((id) => task(id)), nextPageToken: page.next, pageSize: 2, totalSize: 4 }
        })
      })
      const client = yield* A2AClient.make(cardFor([iface("JSONRPC", server.url)]))
      const all = yield* Stream.runCollect(client.listAllTasks({ pageSize: 2 }))
      expect(all.map((t) => t.id)).toEqual(["a", "b", "c", "d"])
      expect(server.requests.length).toBe(3)
      const looped = yield* Stream.runCollect(client.listAllTasks({ contextId: "loop" }))
      expect(looped.map((t) => t.id)).toEqual(["x", "x"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("transformClient intercepts every request", () =>
    Effect.gen(function*() {
      const server = yield* peer((base) => cardFor([iface("JSONRPC", `${base}/rpc`)]))
      const seen: Array<string> = []
      const client = yield* A2AClient.resolve(server.url, {
        transformClient: (c) =>
          c.pipe(
            HttpClient.mapRequest(HttpClientRequest.setHeader("x-intercepted", "yes")),
            HttpClient.tapRequest((r) => Effect.sync(() => seen.push(`${r.method} ${new URL(r.url).pathname}`)))
          )
      })
      yield* client.getTask({ id: "t" })
      expect(seen).toEqual(["GET /.well-known/agent-card.json", "POST /rpc"])
      expect(server.requests.every((r) => r.headers["x-intercepted"] === "yes")).toBe(true)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
