/**
 * The lookup Node's HTTP agent calls for webhook connections: pinned to what the WebhookGuard vets, at every
 * connection, so a DNS answer that changes after validation (DNS rebinding) is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { LookupAddress } from "node:dns"
import * as PinnedLookup from "../../../src/node/push/PinnedLookup.ts"
import * as WebhookGuard from "../../../src/server/push/WebhookGuard.ts"
import { guardLayer } from "../../server/push/guard.ts"

describe("PinnedLookup", () => {
  const lookupOnce = (guard: WebhookGuard.WebhookGuard["Service"], host: string, all: boolean) =>
    Effect.flatMap(
      PinnedLookup.make(guard),
      (lookup) =>
        Effect.callback<ReadonlyArray<LookupAddress>, NodeJS.ErrnoException>((resume) => {
          lookup(host, { all, family: 0 }, (error, address, family) => {
            if (error) return resume(Effect.fail(error))
            resume(Effect.succeed(
              typeof address === "string" ? [{ address, family: family ?? 4 }] : address
            ))
          })
        })
    )

  it.effect("pins connections to vetted addresses and refuses a DNS answer that changed to loopback", () =>
    Effect.gen(function*() {
      const guard = yield* WebhookGuard.WebhookGuard
      // Config time: rebind.test answers a public address.
      yield* guard.validate("https://rebind.test/hook")
      // Delivery: it now answers 127.0.0.1, and the lookup given to the HTTP agent refuses it.
      const error = yield* Effect.flip(lookupOnce(guard, "rebind.test", false))
      assert.strictEqual(error.code, "EA2AWEBHOOKBLOCKED")
      assert.include(error.message, "resolves to 127.0.0.1")
    }).pipe(Effect.provide(guardLayer())))

  it.effect("the lookup returns every vetted address in `all` mode", () =>
    Effect.gen(function*() {
      const guard = yield* WebhookGuard.WebhookGuard
      const all = yield* lookupOnce(guard, "public.test", true)
      assert.deepStrictEqual(all.map((a) => a.family), [4, 6])
      const one = yield* lookupOnce(guard, "public.test", false)
      assert.deepStrictEqual(one, [{ address: "93.184.215.14", family: 4 }])
    }).pipe(Effect.provide(guardLayer())))
})
