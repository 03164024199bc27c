/**
 * The public agent card: interfaces that match what is mounted, URLs at the origin the client used (Host
 * header, trusted X-Forwarded-*, or a configured public URL), caching per spec 8.6.1. 0.3 is served by
 * default, so a card request names its version: `A2A-Version: 1.0` gets the 1.0 card, which lists the 1.0
 * interfaces first and then the 0.3 ones; no version (what 0.3 clients send, spec 3.6.2) gets the hybrid card
 * (0.3 fields plus the 1.0 `supportedInterfaces`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as IpNetwork from "effect/net/IpNetwork"
import * as http from "node:http"
import * as Auth from "../../src/server/Auth.ts"
import * as TestServer from "./fixtures/TestServer.ts"

const CARD = "/.well-known/agent-card.json"
const V1 = { "a2a-version": "1.0" }

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

/** The interfaces a server mounting both bindings at `origin` advertises: 1.0 first, then 0.3. */
const bothVersions = (jsonRpc: string, rest: string, restFirst = false) =>
  ["1.0", "0.3"].flatMap((version) => {
    const pair = [["JSONRPC", jsonRpc, version], ["HTTP+JSON", rest, version]]
    return restFirst ? pair.reverse() : pair
  })

describe("agent card", () => {
  it.effect("A2A-Version 1.0: the 1.0 card lists exactly the mounted bindings, 1.0 then 0.3, with caching headers", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const reply = yield* TestServer.request(`${server.url}${CARD}`, { headers: V1 })
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(reply.headers.get("content-type"), "application/json")
      assert.strictEqual(reply.headers.get("cache-control"), "public, max-age=300")
      assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
      assert.strictEqual(reply.headers.get("vary"), "A2A-Version")
      const card = reply.json as Card
      assert.strictEqual(card.name, "Stub Agent")
      assert.deepStrictEqual(urls(card), bothVersions(`${server.url}/`, server.url))
      // The interfaces lead the card: the preferred one is what a reader looks for first (#12 item 7).
      assert.strictEqual(Object.keys(card)[0], "supportedInterfaces")
      assert.match(reply.text, /^\{"supportedInterfaces":\[/)
      // A 1.0 card has none of the 0.3 fields.
      for (const field of ["url", "protocolVersion", "preferredTransport", "additionalInterfaces"]) {
        assert.notProperty(card, field)
      }
      // The query parameter names the version as well as the header does.
      const viaQuery = yield* TestServer.request(`${server.url}${CARD}?A2A-Version=1.0`)
      assert.deepStrictEqual(viaQuery.json, reply.json)

      const etag = reply.headers.get("etag")
      assert.match(etag ?? "", /^"[A-Za-z0-9_-]+"$/)
      const again = yield* TestServer.request(`${server.url}${CARD}`, { headers: V1 })
      assert.strictEqual(again.headers.get("etag"), etag)
      const notModified = yield* TestServer.request(`${server.url}${CARD}`, {
        headers: { ...V1, "if-none-match": etag! }
      })
      assert.strictEqual(notModified.status, 304)
      assert.strictEqual(notModified.text, "")
      assert.strictEqual(notModified.headers.get("etag"), etag)
      const weak = yield* TestServer.request(`${server.url}${CARD}`, {
        headers: { ...V1, "if-none-match": `"x", W/${etag}` }
      })
      assert.strictEqual(weak.status, 304)
      const changed = yield* TestServer.request(`${server.url}${CARD}`, {
        headers: { ...V1, "if-none-match": "\"other\"" }
      })
      assert.strictEqual(changed.status, 200)
    }).pipe(Effect.scoped))

  it.effect("no A2A-Version (a 0.3 client): the hybrid card, 0.3 fields plus every 1.0 interface", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const modern = yield* TestServer.request(`${server.url}${CARD}`, { headers: V1 })
      for (
        const reply of [
          yield* TestServer.request(`${server.url}${CARD}`),
          yield* TestServer.request(`${server.url}${CARD}`, { headers: { "a2a-version": "0.3" } })
        ]
      ) {
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers.get("vary"), "A2A-Version")
        const card = reply.json as Card & Record<string, unknown>
        assert.strictEqual(card.name, "Stub Agent")
        // the 0.3 schema's default and what 0.3 peers expect (#12 item 6)
        assert.strictEqual(card["protocolVersion"], "0.3.0")
        // The 0.3 main endpoint and its alternatives are the 0.3 interfaces, in the card's order.
        assert.strictEqual(card["url"], `${server.url}/`)
        assert.strictEqual(card["preferredTransport"], "JSONRPC")
        assert.deepStrictEqual(card["additionalInterfaces"], [
          { url: `${server.url}/`, transport: "JSONRPC" },
          { url: server.url, transport: "HTTP+JSON" }
        ])
        assert.strictEqual(card["supportsAuthenticatedExtendedCard"], false)
        assert.deepStrictEqual(urls(card), bothVersions(`${server.url}/`, server.url))
        // Two renderings of one card: each cached and validated on its own.
        assert.notStrictEqual(reply.headers.get("etag"), modern.headers.get("etag"))
      }
      const legacyTag = (yield* TestServer.request(`${server.url}${CARD}`)).headers.get("etag")!
      const notModified = yield* TestServer.request(`${server.url}${CARD}`, { headers: { "if-none-match": legacyTag } })
      assert.strictEqual(notModified.status, 304)
      const otherVersion = yield* TestServer.request(`${server.url}${CARD}`, {
        headers: { ...V1, "if-none-match": legacyTag }
      })
      assert.strictEqual(otherVersion.status, 200)
    }).pipe(Effect.scoped))

  it.effect("versions [\"1.0\"]: one 1.0 card for every request, without 0.3 interfaces", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ versions: ["1.0"] })
      const absent = yield* TestServer.request(`${server.url}${CARD}`)
      const named = yield* TestServer.request(`${server.url}${CARD}`, { headers: V1 })
      for (const reply of [absent, named]) {
        assert.strictEqual(reply.status, 200)
        assert.isNull(reply.headers.get("vary"))
        assert.notProperty(reply.json, "protocolVersion")
        assert.deepStrictEqual(urls(reply.json as Card), [
          ["JSONRPC", `${server.url}/`, "1.0"],
          ["HTTP+JSON", server.url, "1.0"]
        ])
      }
      assert.strictEqual(absent.text, named.text)
      assert.strictEqual(absent.headers.get("etag"), named.headers.get("etag"))
    }).pipe(Effect.scoped))

  it.effect("URLs follow the Host header the client used, never the bound loopback IP", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start()
      const named = yield* rawGet(server.port, CARD, { ...V1, host: "agent.example.com:8443" })
      const card = JSON.parse(named.body) as Card
      assert.deepStrictEqual(
        urls(card),
        bothVersions("http://agent.example.com:8443/", "http://agent.example.com:8443")
      )
      // The hybrid card's 0.3 endpoint follows the Host header too.
      const legacy = JSON.parse((yield* rawGet(server.port, CARD, { host: "agent.example.com:8443" })).body) as {
        url: string
      }
      assert.strictEqual(legacy.url, "http://agent.example.com:8443/")
      const v6 = JSON.parse((yield* rawGet(server.port, CARD, { ...V1, host: "[::1]:9000" })).body) as Card
      assert.strictEqual(v6.supportedInterfaces[0]!.url, "http://[::1]:9000/")
      // Two origins, two cached renderings, different ETags.
      assert.notStrictEqual(
        named.headers["etag"],
        (yield* rawGet(server.port, CARD, { ...V1, host: "b.example" })).headers["etag"]
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
      const card = (yield* TestServer.request(`${server.url}${CARD}`, { headers: V1 })).json as Card
      assert.deepStrictEqual(
        urls(card),
        bothVersions("https://agents.example.com/a2a/rpc", "https://agents.example.com/a2a/rest", true)
      )
      const legacy = (yield* TestServer.request(`${server.url}${CARD}`)).json
      assert.deepInclude(legacy, { url: "https://agents.example.com/a2a/rest", preferredTransport: "HTTP+JSON" })
    }).pipe(Effect.scoped))

  it.effect("an unmounted binding is not advertised; the card path can move", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ restPath: false, cardPath: "/card.json" })
      const card = (yield* TestServer.request(`${server.url}/card.json`, { headers: V1 })).json as Card
      assert.deepStrictEqual(urls(card), [["JSONRPC", `${server.url}/`, "1.0"], ["JSONRPC", `${server.url}/`, "0.3"]])
      const legacy = (yield* TestServer.request(`${server.url}/card.json`)).json
      assert.deepStrictEqual((legacy as { additionalInterfaces: unknown }).additionalInterfaces, [
        { url: `${server.url}/`, transport: "JSONRPC" }
      ])
      const old = yield* TestServer.request(`${server.url}${CARD}`)
      assert.strictEqual(old.status, 404)
      const rest = yield* TestServer.request(`${server.url}/tasks`, { headers: { "a2a-version": "1.0" } })
      assert.strictEqual(rest.status, 404)
    }).pipe(Effect.scoped))

  it.effect("the public card needs no credentials and advertises the enforced scheme", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({}, Auth.bearer({ tokens: { t: "alice" } }))
      const reply = yield* TestServer.request(`${server.url}${CARD}`, { headers: V1 })
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual((reply.json as Card).securitySchemes, {
        bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } }
      })
      assert.deepStrictEqual((reply.json as { securityRequirements: unknown }).securityRequirements, [
        { schemes: { bearer: { list: [] } } }
      ])
      // The same scheme in 0.3 shapes (OpenAPI-like `type`, `security` requirements) for 0.3 clients.
      const legacy = yield* TestServer.request(`${server.url}${CARD}`)
      assert.strictEqual(legacy.status, 200)
      assert.deepStrictEqual((legacy.json as Card).securitySchemes, { bearer: { type: "http", scheme: "Bearer" } })
      assert.deepStrictEqual((legacy.json as { security: unknown }).security, [{ bearer: [] }])
    }).pipe(Effect.scoped))
})
