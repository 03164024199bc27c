/**
 * The public agent card: interfaces that match what is mounted, URLs at the origin the client used (Host
 * header, trusted X-Forwarded-*, or a configured public URL), caching per spec 8.6.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as IpNetwork from "effect/net/IpNetwork"
import * as http from "node:http"
import * as Auth from "../../../src/server/Auth.ts"
import * as TestServer from "./fixtures/TestServer.ts"

const CARD = "/.well-known/agent-card.json"

interface Card {
  readonly name: string
  readonly supportedInterfaces: ReadonlyArray<{ url: string; protocolBinding: string; protocolVersion: string }>
  readonly securitySchemes?: unknown
}

/** A GET with headers fetch would not send (Host, X-Forwarded-*), over node:http. */
const rawGet = (port: number, path: string, headers: Record<string, string>) =>
  Effect.callback<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resume) => {
    const req = http.get({ host: "127.0.0.1", port, path, headers, setHost: headers["host"] === undefined }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body })))
    })
    req.on("error", (e) => resume(Effect.die(e)))
  })

const urls = (card: Card) => card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])

describe("agent card", () => {
  it.effect("lists exactly the mounted bindings, JSON-RPC first, version 1.0, with caching headers", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const reply = yield* TestServer.request(`${server.url}${CARD}`)
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(reply.headers.get("content-type"), "application/json")
      assert.strictEqual(reply.headers.get("cache-control"), "public, max-age=300")
      assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
      const card = reply.json as Card
      assert.strictEqual(card.name, "Stub Agent")
      assert.deepStrictEqual(urls(card), [
        ["JSONRPC", `${server.url}/`, "1.0"],
        ["HTTP+JSON", server.url, "1.0"]
      ])

      const etag = reply.headers.get("etag")
      assert.match(etag ?? "", /^"[A-Za-z0-9_-]+"$/)
      const again = yield* TestServer.request(`${server.url}${CARD}`)
      assert.strictEqual(again.headers.get("etag"), etag)
      const notModified = yield* TestServer.request(`${server.url}${CARD}`, { headers: { "if-none-match": etag! } })
      assert.strictEqual(notModified.status, 304)
      assert.strictEqual(notModified.text, "")
      assert.strictEqual(notModified.headers.get("etag"), etag)
      const weak = yield* TestServer.request(`${server.url}${CARD}`, { headers: { "if-none-match": `"x", W/${etag}` } })
      assert.strictEqual(weak.status, 304)
      const changed = yield* TestServer.request(`${server.url}${CARD}`, { headers: { "if-none-match": "\"other\"" } })
      assert.strictEqual(changed.status, 200)
    }).pipe(Effect.scoped))

  it.effect("URLs follow the Host header the client used, never the bound loopback IP", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const named = yield* rawGet(server.port, CARD, { host: "agent.example.com:8443" })
      const card = JSON.parse(named.body) as Card
      assert.deepStrictEqual(urls(card), [
        ["JSONRPC", "http://agent.example.com:8443/", "1.0"],
        ["HTTP+JSON", "http://agent.example.com:8443", "1.0"]
      ])
      const v6 = JSON.parse((yield* rawGet(server.port, CARD, { host: "[::1]:9000" })).body) as Card
      assert.strictEqual(v6.supportedInterfaces[0]!.url, "http://[::1]:9000/")
      // Two origins, two cached renderings, different ETags.
      assert.notStrictEqual(
        named.headers["etag"],
        (yield* rawGet(server.port, CARD, { host: "b.example" })).headers["etag"]
      )
    }).pipe(Effect.scoped))

  it.effect("a malformed Host header falls back to the bound address", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      for (const host of ["evil.example/path", "user@evil.example", "a b"]) {
        const reply = yield* rawGet(server.port, CARD, { host })
        assert.strictEqual(reply.status, 200, host)
        const card = JSON.parse(reply.body) as Card
        assert.strictEqual(card.supportedInterfaces[0]!.url, `${server.url}/`, host)
      }
    }).pipe(Effect.scoped))

  it.effect("X-Forwarded-Host/-Proto count only from trusted proxies", () =>
    Effect.gen(function*() {
      const forwarded = {
        "x-forwarded-for": "203.0.113.9",
        "x-forwarded-host": "public.example.com",
        "x-forwarded-proto": "https"
      }
      const trusting = yield* TestServer.start({ trustedProxies: [IpNetwork.fromStringUnsafe("127.0.0.0/8")] })
      const viaProxy = yield* rawGet(trusting.port, CARD, forwarded)
      assert.deepStrictEqual(urls(JSON.parse(viaProxy.body) as Card)[0], [
        "JSONRPC",
        "https://public.example.com/",
        "1.0"
      ])
      assert.include(String(viaProxy.headers["vary"]), "X-Forwarded-Host")

      const distrusting = yield* TestServer.start({ trustedProxies: [IpNetwork.fromStringUnsafe("10.0.0.0/8")] })
      const spoofed = JSON.parse((yield* rawGet(distrusting.port, CARD, forwarded)).body) as Card
      assert.strictEqual(spoofed.supportedInterfaces[0]!.url, `${distrusting.url}/`)

      const off = yield* TestServer.start()
      const ignored = JSON.parse((yield* rawGet(off.port, CARD, forwarded)).body) as Card
      assert.strictEqual(ignored.supportedInterfaces[0]!.url, `${off.url}/`)
    }).pipe(Effect.scoped))

  it.effect("a configured public URL, mount paths and the preferred binding shape the interfaces", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({
        publicUrl: "https://agents.example.com/",
        jsonRpcPath: "/a2a/rpc",
        restPath: "/a2a/rest/",
        preferredBinding: "HTTP+JSON"
      })
      const card = (yield* TestServer.request(`${server.url}${CARD}`)).json as Card
      assert.deepStrictEqual(urls(card), [
        ["HTTP+JSON", "https://agents.example.com/a2a/rest", "1.0"],
        ["JSONRPC", "https://agents.example.com/a2a/rpc", "1.0"]
      ])
    }).pipe(Effect.scoped))

  it.effect("an unmounted binding is not advertised; the card path can move", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ restPath: false, cardPath: "/card.json" })
      const card = (yield* TestServer.request(`${server.url}/card.json`)).json as Card
      assert.deepStrictEqual(urls(card), [["JSONRPC", `${server.url}/`, "1.0"]])
      const old = yield* TestServer.request(`${server.url}${CARD}`)
      assert.strictEqual(old.status, 404)
      const rest = yield* TestServer.request(`${server.url}/tasks`, { headers: { "a2a-version": "1.0" } })
      assert.strictEqual(rest.status, 404)
    }).pipe(Effect.scoped))

  it.effect("the public card needs no credentials and advertises the enforced scheme", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({}, Auth.bearer({ tokens: { t: "alice" } }))
      const reply = yield* TestServer.request(`${server.url}${CARD}`)
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual((reply.json as Card).securitySchemes, {
        bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } }
      })
    }).pipe(Effect.scoped))
})
