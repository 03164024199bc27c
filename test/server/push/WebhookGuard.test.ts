import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result } from "effect"
import * as NetAddress from "effect/net/NetAddress"
import * as WebhookGuard from "../../../src/server/push/WebhookGuard.ts"
import { guardLayer } from "./guard.ts"

const ip = (s: string) => NetAddress.ipFromStringUnsafe(s)

const validate = (url: string, allowlist = "") =>
  Effect.gen(function*() {
    const guard = yield* WebhookGuard.WebhookGuard
    return yield* guard.validate(url)
  }).pipe(Effect.provide(guardLayer(allowlist)))

const refused = (url: string, allowlist = "") =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(validate(url, allowlist))
    assert.strictEqual(error._tag, "InvalidParams")
    assert.deepStrictEqual(error.fieldViolations?.map((v) => v.field), ["url"])
    return error.message
  })

describe("WebhookGuard.blockedReason (address classifier)", () => {
  const cases: ReadonlyArray<readonly [string, string | undefined]> = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", undefined],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["100.128.0.1", undefined],
    ["0.0.0.0", "unspecified"],
    ["192.0.0.170", "IETF"],
    ["198.18.0.1", "benchmarking"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["8.8.8.8", undefined],
    ["1.1.1.1", undefined],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fd00:ec2::254", "cloud metadata"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["::ffff:8.8.8.8", undefined],
    ["64:ff9b::a00:1", "private"], // NAT64 of 10.0.0.1
    ["64:ff9b::808:808", undefined], // NAT64 of 8.8.8.8
    ["2002:7f00:1::1", "loopback"], // 6to4 of 127.0.0.1
    ["2002:808:808::1", undefined],
    ["::7f00:1", "IPv4-compatible"],
    ["2606:4700:4700::1111", undefined],
    ["2a00:1450:4001::200e", undefined]
  ]
  for (const [address, expected] of cases) {
    it(`${address} -> ${expected ?? "public"}`, () => {
      const reason = WebhookGuard.blockedReason(ip(address))
      if (expected === undefined) assert.isUndefined(reason)
      else assert.include(reason ?? "", expected)
    })
  }
})

describe("WebhookGuard.parseAllowlist", () => {
  it("reads hosts, addresses and CIDR ranges", () => {
    const parsed = WebhookGuard.parseAllowlist(" localhost, Hooks.Internal. ,10.1.0.0/16, ::1, [fd00::1], 127.0.0.1 ")
    assert.isTrue(Result.isSuccess(parsed))
    if (Result.isFailure(parsed)) return
    assert.deepStrictEqual([...parsed.success.hosts].sort(), ["hooks.internal", "localhost"])
    assert.strictEqual(parsed.success.networks.length, 4)
  })
  it("is empty for an empty string", () => {
    const parsed = WebhookGuard.parseAllowlist("")
    assert.isTrue(Result.isSuccess(parsed) && parsed.success.hosts.size === 0 && parsed.success.networks.length === 0)
  })
  it("rejects a bad CIDR and a bad host with the entry in the message", () => {
    const cidr = WebhookGuard.parseAllowlist("10.0.0.0/99")
    assert.isTrue(Result.isFailure(cidr) && cidr.failure.includes("10.0.0.0/99"))
    const host = WebhookGuard.parseAllowlist("ok.example, bad host!")
    assert.isTrue(Result.isFailure(host) && host.failure.includes("bad host!"))
  })
  it.effect("A2A_WEBHOOK_ALLOWLIST is read through Config, and a bad value is a ConfigError", () =>
    Effect.gen(function*() {
      const good = yield* WebhookGuard.allowlistConfig.parse(
        ConfigProvider.fromUnknown({ A2A_WEBHOOK_ALLOWLIST: "localhost,127.0.0.0/8" })
      )
      assert.deepStrictEqual([...good.hosts], ["localhost"])
      const none = yield* WebhookGuard.allowlistConfig.parse(ConfigProvider.fromUnknown({}))
      assert.strictEqual(none.hosts.size + none.networks.length, 0)
      const bad = yield* Effect.flip(
        WebhookGuard.allowlistConfig.parse(ConfigProvider.fromUnknown({ A2A_WEBHOOK_ALLOWLIST: "300.1.1.1/8" }))
      )
      assert.include(bad.message, "A2A_WEBHOOK_ALLOWLIST")
    }))
})

describe("WebhookGuard.validate (config time)", () => {
  it.effect("accepts a public https URL and a public IP literal", () =>
    Effect.gen(function*() {
      const url = yield* validate("https://public.test/hooks/a2a?x=1")
      assert.strictEqual(url.hostname, "public.test")
      yield* validate("http://8.8.8.8:8080/hook")
      yield* validate("https://[2606:4700:4700::1111]/hook")
    }))

  it.effect("refuses private, metadata and loopback literals with a clear message", () =>
    Effect.gen(function*() {
      assert.include(yield* refused("http://10.0.0.1/hook"), "private address (10.0.0.0/8)")
      assert.include(yield* refused("http://169.254.169.254/latest/meta-data/"), "cloud metadata endpoint")
      assert.include(yield* refused("http://[::1]:8080/hook"), "loopback")
      assert.include(yield* refused("http://[::ffff:127.0.0.1]/hook"), "loopback")
      assert.include(yield* refused("http://[fd00::1]/hook"), "unique-local")
      assert.include(yield* refused("http://100.64.1.1/hook"), "carrier-grade NAT")
      assert.include(yield* refused("http://0.0.0.0:9000/"), "unspecified")
      assert.include(yield* refused("http://10.0.0.1/hook"), "A2A_WEBHOOK_ALLOWLIST")
    }))

  it.effect("sees through alternative IPv4 spellings (the URL parser normalises them)", () =>
    Effect.gen(function*() {
      assert.include(yield* refused("http://0x7f.1/"), "loopback")
      assert.include(yield* refused("http://2130706433/"), "loopback")
      assert.include(yield* refused("http://0177.0.0.1/"), "loopback")
    }))

  it.effect("refuses names that resolve to internal addresses (any of them)", () =>
    Effect.gen(function*() {
      assert.include(yield* refused("https://internal.test/hook"), "resolves to 10.0.0.5")
      assert.include(yield* refused("https://mixed.test/hook"), "resolves to 127.0.0.1")
      assert.include(yield* refused("https://v6loop.test/hook"), "resolves to ::1")
      assert.include(yield* refused("http://localhost:3000/hook"), "loopback")
    }))

  it.effect("refuses malformed URLs, other schemes, credentials and names that do not exist", () =>
    Effect.gen(function*() {
      assert.include(yield* refused("not a url"), "not an absolute URL")
      assert.include(yield* refused("ftp://public.test/x"), "scheme ftp")
      assert.include(yield* refused("file:///etc/passwd"), "scheme file")
      assert.include(yield* refused("https://user:secret@public.test/"), "credentials")
      assert.include(yield* refused("https://nx.test/hook"), "does not resolve")
    }))

  it.effect("lets a transient DNS failure through (delivery re-checks)", () =>
    Effect.gen(function*() {
      const url = yield* validate("https://flaky.test/hook")
      assert.strictEqual(url.hostname, "flaky.test")
    }))

  it.effect("an allowlist admits exactly what it names", () =>
    Effect.gen(function*() {
      yield* validate("http://127.0.0.1:4000/hook", "127.0.0.1")
      assert.include(yield* refused("http://127.0.0.2:4000/hook", "127.0.0.1"), "loopback")
      yield* validate("http://localhost:4000/hook", "localhost")
      yield* validate("http://[::1]:4000/hook", "[::1]")
      yield* validate("https://internal.test/hook", "10.0.0.0/8")
      assert.include(yield* refused("https://mixed.test/hook", "10.0.0.0/8"), "127.0.0.1")
      yield* validate("https://internal.test/hook", "internal.test")
    }))
})

describe("WebhookGuard delivery-time checks", () => {
  it.effect("resolve refuses a DNS answer that changed to loopback after validation", () =>
    Effect.gen(function*() {
      const guard = yield* WebhookGuard.WebhookGuard
      yield* guard.validate("https://rebind.test/hook")
      const error = yield* Effect.flip(guard.resolve("rebind.test"))
      assert.strictEqual(error._tag, "WebhookBlocked")
      assert.include(error.message, "resolves to 127.0.0.1")
    }).pipe(Effect.provide(guardLayer())))

  it.effect("checkLiteral refuses IP-literal URLs the agent never looks up", () =>
    Effect.gen(function*() {
      const guard = yield* WebhookGuard.WebhookGuard
      const error = yield* Effect.flip(guard.checkLiteral(new URL("http://192.168.0.10/hook")))
      assert.strictEqual(error._tag, "WebhookBlocked")
      yield* guard.checkLiteral(new URL("http://8.8.8.8/hook"))
      yield* guard.checkLiteral(new URL("http://public.test/hook"))
    }).pipe(Effect.provide(guardLayer())))
})
