/**
 * A WebhookGuard over a resolver with fixed answers, for the guard's tests and the Node runner's pinned lookup.
 */
import { Effect, Layer, Result } from "effect"
import * as Dns from "effect/net/Dns"
import * as NetAddress from "effect/net/NetAddress"
import * as WebhookGuard from "../../../src/server/push/WebhookGuard.ts"

const ip = (s: string) => NetAddress.ipFromStringUnsafe(s)

// A resolver with fixed answers; `rebind.test` answers public first, then loopback (DNS rebinding).
export const fakeDns = () => {
  let rebindCalls = 0
  const zone: Record<string, ReadonlyArray<string>> = {
    "public.test": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "internal.test": ["10.0.0.5"],
    "mixed.test": ["8.8.8.8", "127.0.0.1"],
    "v6loop.test": ["::1"],
    "localhost": ["127.0.0.1", "::1"]
  }
  return Dns.make({
    lookup: (host) => {
      if (host === "nx.test") {
        return Effect.fail(new Dns.DnsError({ reason: "NotFound", method: "lookup", hostname: host }))
      }
      if (host === "flaky.test") {
        return Effect.fail(new Dns.DnsError({ reason: "Temporary", method: "lookup", hostname: host }))
      }
      if (host === "rebind.test") return Effect.sync(() => [ip(rebindCalls++ === 0 ? "8.8.4.4" : "127.0.0.1")])
      return Effect.succeed((zone[host] ?? []).map(ip))
    }
  })
}

export const guardLayer = (allowlist = "") =>
  Layer.effect(
    WebhookGuard.WebhookGuard,
    Effect.gen(function*() {
      const parsed = WebhookGuard.parseAllowlist(allowlist)
      if (Result.isFailure(parsed)) return yield* Effect.die(parsed.failure)
      return yield* WebhookGuard.make({ allowlist: parsed.success })
    })
  ).pipe(Layer.provide(Layer.sync(Dns.Dns, fakeDns)))
