/**
 * The front door's byte relay, with real parts: our secured agent behind a recording HTTP proxy (every request the
 * agent got, and the bytes of every answer it gave), the gateway in front. A 1.0 call in a binding the agent serves
 * reaches it as the caller sent it (the same bytes), with the agent's credentials and not the caller's, and the
 * caller gets the agent's own answer byte for byte, event streams included; access is decided before anything is
 * sent; an agent that echoes its secret has it masked; the official SDK's client goes through it in both bindings.
 */
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as OurServer from "../client/OurServer.ts"
import { cardFor, json, serve } from "../client/TestServer.ts"
import { request as sdkRequest, textOf as sdkTextOf } from "../fixtures/SdkClientCalls.ts"
import { call, relayPaths, startGateway } from "./GatewayPeers.ts"

interface Exchange {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
  answer: string
}

/**
 * A proxy in front of `target` that records every request and the bytes of every answer; the agent's card is
 * rewritten to point at the proxy.
 */
const recordingProxy = (target: string) =>
  Effect.gen(function*() {
    const exchanges: Array<Exchange> = []
    let self = ""
    const server = yield* serve((recorded, res) => {
      const exchange: Exchange = { ...recorded, answer: "" }
      exchanges.push(exchange)
      const card = recorded.url.includes("agent-card")
      const upstream = httpRequest(`${target}${recorded.url}`, {
        method: recorded.method,
        headers: { ...recorded.headers, host: new URL(target).host }
      }, (answer) => {
        if (card) {
          let text = ""
          answer.on("data", (chunk: Buffer) => text += chunk.toString("utf8"))
          answer.on("end", () => json(res, answer.statusCode ?? 500, text.split(target).join(self)))
          return
        }
        res.writeHead(answer.statusCode ?? 500, answer.headers)
        answer.on("data", (chunk: Buffer) => {
          exchange.answer += chunk.toString("utf8")
          res.write(chunk)
        })
        answer.on("end", () => res.end())
      })
      upstream.end(recorded.body)
    })
    self = server.url
    return { url: server.url, exchanges: () => exchanges.filter((e) => !e.url.includes("agent-card")) }
  })

const msg = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] })

/** A raw call at the gateway: the exact body sent, and the exact bytes answered. */
const raw = (url: string, init: { method?: string; body?: string; headers?: Record<string, string> }) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { "content-type": "application/json", "a2a-version": "1.0", ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {})
    })
    return { status: response.status, text: await response.text(), type: response.headers.get("content-type") }
  })

describe.each(relayPaths)("the gateway's byte relay, on the %s path", (path) => {
  it.live("a 1.0 call goes on as bytes with the agent's credentials, and the agent's answer comes back as it was", () =>
    Effect.gen(function*() {
      const agent = yield* OurServer.start({ secured: true })
      const proxy = yield* recordingProxy(agent.url)
      const gateway = yield* startGateway(Gateway.layerMemory, {}, Auth.none, path)
      const registered = yield* call(`${gateway.url}/admin/agents`, {
        body: { url: proxy.url, name: "demo", credentials: { bearer: OurServer.TOKEN } }
      })
      assert.strictEqual(registered.status, 201, registered.text)
      const caller = { authorization: "Bearer the-callers-own", cookie: "session=callers" }

      // JSON-RPC, unary
      const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendMessage", params: { message: msg("hi") } })
      const unary = yield* raw(`${gateway.url}/agents/demo`, { body, headers: caller })
      assert.strictEqual(unary.status, 200)
      assert.include(unary.text, "Echo: hi", unary.text)
      let seen = proxy.exchanges()
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0]!.body, body)
      assert.strictEqual(seen[0]!.answer, unary.text)
      assert.strictEqual(seen[0]!.headers["authorization"], `Bearer ${OurServer.TOKEN}`)
      assert.isUndefined(seen[0]!.headers["cookie"])

      // JSON-RPC, a stream: the same events, the same bytes
      const streamBody = JSON.stringify({
        jsonrpc: "2.0",
        id: "s-1",
        method: "SendStreamingMessage",
        params: { message: msg("task") }
      })
      const streamed = yield* raw(`${gateway.url}/agents/demo`, { body: streamBody, headers: caller })
      assert.include(streamed.type ?? "", "text/event-stream")
      assert.include(streamed.text, "TASK_STATE_COMPLETED")
      seen = proxy.exchanges()
      assert.strictEqual(seen[1]!.body, streamBody)
      assert.strictEqual(seen[1]!.answer, streamed.text)

      // HTTP+JSON: the path mapped below the agent's interface, the query kept
      const restBody = JSON.stringify({ message: msg("rest") })
      const sent = yield* raw(`${gateway.url}/agents/demo/message:send`, {
        body: restBody,
        headers: caller
      })
      assert.strictEqual(sent.status, 200, sent.text)
      seen = proxy.exchanges()
      assert.strictEqual(seen[2]!.url, "/message:send")
      assert.strictEqual(seen[2]!.body, restBody)
      assert.strictEqual(seen[2]!.answer, sent.text)
      assert.strictEqual(seen[2]!.headers["authorization"], `Bearer ${OurServer.TOKEN}`)
      const taskId = (JSON.parse(streamed.text.split("\n").find((l) => l.startsWith("data:"))!.slice(5)) as {
        result: { task: { id: string } }
      }).result.task.id
      const got = yield* raw(`${gateway.url}/agents/demo/tasks/${taskId}?historyLength=1`, {
        headers: caller
      })
      assert.strictEqual(got.status, 200, got.text)
      seen = proxy.exchanges()
      assert.strictEqual(seen[3]!.url, `/tasks/${taskId}?historyLength=1`)
      assert.strictEqual(seen[3]!.answer, got.text)

      // what the relay leaves to the full path: a 0.3 method, the extended card (rendered at the gateway)
      const legacy = yield* raw(`${gateway.url}/agents/demo`, {
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: {
            message: { kind: "message", messageId: "m-03", role: "user", parts: [{ kind: "text", text: "x" }] }
          }
        }),
        headers: { "a2a-version": "0.3" }
      })
      assert.include(legacy.text, "Echo: x")
      const full = proxy.exchanges()[4]!
      assert.notInclude(full.body, "message/send")
      // the body the relay read is replayed to the full path: it reads the call (and refuses the anonymous caller)
      const extended = yield* raw(`${gateway.url}/agents/demo`, {
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "GetExtendedAgentCard", params: {} })
      })
      assert.include(extended.text, "requires an authenticated client", extended.text)
      assert.include(extended.text, "\"id\":9")
      assert.strictEqual(proxy.exchanges().length, 5)
    }).pipe(Effect.scoped))

  it.live("access is decided before anything is sent: 401 for no credentials, 404 for the unseen", () =>
    Effect.gen(function*() {
      const agent = yield* OurServer.start()
      const proxy = yield* recordingProxy(agent.url)
      const auth = Auth.bearer({ tokens: { "alice-t": "alice", "bob-t": "bob" } })
      const gateway = yield* startGateway(Gateway.layerMemory, {}, auth, path)
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents`, { body: { url: proxy.url, name: "open" } })).status,
        201
      )
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents`, { body: { url: proxy.url, name: "private", allow: ["alice"] } }))
          .status,
        201
      )
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: msg("hi") } })
      const anonymous = yield* raw(`${gateway.url}/agents/open/message:send`, {
        body: JSON.stringify({ message: msg("hi") }),
        headers: {}
      })
      assert.strictEqual(anonymous.status, 401, anonymous.text)
      const anonymousRpc = yield* raw(`${gateway.url}/agents/open`, { body })
      assert.include(anonymousRpc.text, "error")
      const bob = yield* raw(`${gateway.url}/agents/private`, { body, headers: { authorization: "Bearer bob-t" } })
      assert.strictEqual(bob.status, 404)
      assert.strictEqual(proxy.exchanges().length, 0)
      const alice = yield* raw(`${gateway.url}/agents/private`, { body, headers: { authorization: "Bearer alice-t" } })
      assert.include(alice.text, "Echo: hi")
      assert.strictEqual(proxy.exchanges().length, 1)
      assert.strictEqual(proxy.exchanges()[0]!.body, body)
      assert.isUndefined(proxy.exchanges()[0]!.headers["authorization"])
    }).pipe(Effect.scoped))

  it.live("an agent that echoes its secret: masked in the answer and in the stream, split across chunks or not", () =>
    Effect.gen(function*() {
      const secret = "very-s3cret-key-0123456789"
      const upstream = yield* serve((request, res) => {
        if (request.method === "GET") {
          const card = cardFor([{ url: "", protocolBinding: "JSONRPC", protocolVersion: "1.0" }], {
            securitySchemes: { key: { apiKeySecurityScheme: { location: "header", name: "x-key" } } },
            securityRequirements: [{ schemes: { key: { list: [] } } }]
          })
          return json(res, 200, card)
        }
        const key = String(request.headers["x-key"])
        const id = (JSON.parse(request.body) as { id: number }).id
        const reply = (text: string) =>
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            result: { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text }] } }
          })
        if (request.body.includes("SendStreamingMessage")) {
          res.writeHead(200, { "content-type": "text/event-stream" })
          const event = `data: ${reply(`you sent ${key}`)}\n\n`
          const half = event.indexOf(key) + 5
          res.write(event.slice(0, half))
          setTimeout(() => res.end(event.slice(half)), 20)
          return
        }
        json(res, 200, reply(`you sent ${key}`))
      })
      const gateway = yield* startGateway(Gateway.layerMemory, {}, Auth.none, path)
      const registered = yield* call(`${gateway.url}/admin/agents`, {
        body: { url: upstream.url, name: "leaky", credentials: { apiKey: secret } }
      })
      assert.strictEqual(registered.status, 201, registered.text)
      for (const method of ["SendMessage", "SendStreamingMessage"]) {
        const answer = yield* raw(`${gateway.url}/agents/leaky`, {
          body: JSON.stringify({ jsonrpc: "2.0", id: 3, method, params: { message: msg("hi") } })
        })
        assert.include(answer.text, "you sent ***", method)
        assert.notInclude(answer.text, secret, method)
      }
      // it was the relay that answered: the agent got the key, and the caller's bodies as they were
      assert.strictEqual(upstream.requests.filter((r) => r.headers["x-key"] === secret).length, 2)
      assert.isTrue(upstream.requests.some((r) => r.body.includes("\"id\":3")))
    }).pipe(Effect.scoped))

  it.live("an agent answering a 5xx page that is not JSON is down: UNAVAILABLE for the caller, its error recorded", () =>
    Effect.gen(function*() {
      const upstream = yield* serve((request, res) => {
        if (request.method === "GET") {
          return json(res, 200, cardFor([{ url: "", protocolBinding: "JSONRPC", protocolVersion: "1.0" }]))
        }
        res.writeHead(502, { "content-type": "text/html" })
        res.end("<html><body>Bad gateway</body></html>")
      })
      const gateway = yield* startGateway(Gateway.layerMemory, {}, Auth.none, path)
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url, name: "flaky" } })).status,
        201
      )
      const before = upstream.requests.length
      const answer = yield* raw(`${gateway.url}/agents/flaky`, {
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "SendMessage", params: { message: msg("hi") } })
      })
      assert.strictEqual(answer.status, 200, answer.text)
      const error = JSON.parse(answer.text) as { id: number; error: { code: number; message: string } }
      assert.strictEqual(error.id, 9)
      assert.include(error.error.message, "Agent flaky is unavailable: it answered HTTP 502")
      assert.notInclude(answer.text, "Bad gateway")
      assert.strictEqual(upstream.requests.length, before + 1)
      const health = (yield* call(`${gateway.url}/admin/agents/flaky`)).body.health
      // (inspecting it fetches its card again, which answers: reachable again, the call's error kept)
      assert.strictEqual(health.lastError.at, health.lastCall)
      assert.include(health.lastError.message, "UnexpectedStatus: is unavailable: it answered HTTP 502")
    }).pipe(Effect.scoped))

  it.live("a caller that leaves mid-stream: the agent's stream is dropped too", () =>
    Effect.gen(function*() {
      let closed = 0
      let opened = 0
      const upstream = yield* serve((request, res) => {
        if (request.method === "GET") {
          return json(res, 200, cardFor([{ url: "", protocolBinding: "JSONRPC", protocolVersion: "1.0" }]))
        }
        // an event every 20 ms, for as long as the gateway reads
        opened++
        res.writeHead(200, { "content-type": "text/event-stream" })
        const id = (JSON.parse(request.body) as { id: number }).id
        const event = JSON.stringify({
          jsonrpc: "2.0",
          id,
          result: { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "tick" }] } }
        })
        const ticks = setInterval(() => res.write(`data: ${event}\n\n`), 20)
        res.on("close", () => {
          clearInterval(ticks)
          closed++
        })
      })
      const gateway = yield* startGateway(Gateway.layerMemory, {}, Auth.none, path)
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url, name: "endless" } })).status,
        201
      )
      const first = yield* Effect.promise(async () => {
        const abort = new AbortController()
        const response = await fetch(`${gateway.url}/agents/endless`, {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 4,
            method: "SendStreamingMessage",
            params: { message: msg("x") }
          }),
          signal: abort.signal
        })
        const reader = response.body!.getReader()
        const chunk = await reader.read()
        abort.abort()
        return new TextDecoder().decode(chunk.value)
      })
      assert.include(first, "tick")
      assert.strictEqual(opened, 1)
      // the gateway lets go of the agent's stream within a moment of the caller's leaving
      for (let i = 0; i < 100 && closed === 0; i++) yield* Effect.sleep("20 millis")
      assert.strictEqual(closed, 1)
    }).pipe(Effect.scoped))

  it.live("the agent refusing the gateway's credentials is the gateway's error, not a 401 for the caller", () =>
    Effect.gen(function*() {
      const agent = yield* OurServer.start({ secured: true })
      const proxy = yield* recordingProxy(agent.url)
      const gateway = yield* startGateway(Gateway.layerMemory, {}, Auth.none, path)
      const registered = yield* call(`${gateway.url}/admin/agents`, {
        body: { url: proxy.url, name: "demo", credentials: { bearer: "not-the-token" } }
      })
      assert.strictEqual(registered.status, 201, registered.text)
      const body = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "SendMessage", params: { message: msg("hi") } })
      const answer = yield* raw(`${gateway.url}/agents/demo`, { body })
      assert.strictEqual(answer.status, 200)
      assert.include(answer.text, "Agent demo refused the gateway's credentials", answer.text)
      assert.notInclude(answer.text, "not-the-token")
      assert.strictEqual(proxy.exchanges().length, 1)
      assert.strictEqual(proxy.exchanges()[0]!.body, body)
      const rest = yield* raw(`${gateway.url}/agents/demo/message:send`, {
        body: JSON.stringify({ message: msg("x") })
      })
      assert.strictEqual(rest.status, 500, rest.text)
    }).pipe(Effect.scoped))

  it.live("the official SDK's client through the relay, in both bindings", () =>
    Effect.gen(function*() {
      const agent = yield* OurServer.start()
      const proxy = yield* recordingProxy(agent.url)
      const gateway = yield* startGateway(Gateway.layerMemory, {}, Auth.none, path)
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents`, { body: { url: proxy.url, name: "demo" } })).status,
        201
      )
      for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
        // the SDK's client, each body it sends recorded
        const sent: Array<string> = []
        const fetchImpl: typeof fetch = (input, init) => {
          if (typeof init?.body === "string") sent.push(init.body)
          return fetch(input, init)
        }
        const client = yield* Effect.promise(() =>
          new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
            transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
            preferredTransports: [binding]
          })).createFromUrl(`${gateway.url}/agents/demo/`)
        )
        const reply = yield* Effect.promise(() => client.sendMessage(sdkRequest("hi")))
        assert.strictEqual(sdkTextOf((reply as { parts: Parameters<typeof sdkTextOf>[0] }).parts), "Echo: hi")
        // relayed: the agent got the SDK's own request, byte for byte, at the binding's own path
        const last = proxy.exchanges().at(-1)!
        assert.strictEqual(last.body, sent.at(-1), binding)
        assert.strictEqual(last.url, binding === "JSONRPC" ? "/" : "/message:send")
      }
    }).pipe(Effect.scoped))
})
