/**
 * The `lookup` Node's HTTP agent calls for each connection, answered by the WebhookGuard: a host name resolves to
 * the addresses the guard vetted, or the connection fails. Because the check runs at every connection, a DNS
 * answer that changes after a webhook was validated (DNS rebinding) cannot point a delivery into the private
 * network. Use it to build an HTTP agent for webhook deliveries (PinnedDeliveryClient does).
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { PinnedLookup, WebhookGuard } from "effect-a2a/node"
 *
 * const agent = Effect.gen(function*() {
 *   const lookup = yield* PinnedLookup.make(yield* WebhookGuard.WebhookGuard)
 *   return yield* NodeHttpClient.makeAgent({ lookup })
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as NetAddress from "effect/net/NetAddress"
import * as Result from "effect/Result"
import { BLOCKED_ERROR_CODE, type WebhookGuard } from "../../server/push/WebhookGuard.ts"

/**
 * The shape of Node's `net` lookup (`dns.lookup`) as an HTTP agent calls it.
 *
 * @since 0.1.0
 * @category models
 */
export type LookupFunction = (
  hostname: string,
  options: { readonly family?: number | string | undefined; readonly all?: boolean | undefined },
  callback: (
    error: Error | null,
    address: string | Array<{ address: string; family: number }>,
    family?: number
  ) => void
) => void

/**
 * A lookup pinned to what `guard.resolve` vets, run with the services in context. A refused host fails the
 * connection with an error whose `code` is `WebhookGuard.BLOCKED_ERROR_CODE`, which the notifier reports as a
 * refusal.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (guard: WebhookGuard["Service"]): Effect.Effect<LookupFunction> =>
  Effect.map(Effect.context<never>(), (services) => (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === "IPv4"
      ? "IPv4"
      : options.family === 6 || options.family === "IPv6"
      ? "IPv6"
      : undefined
    const fail = (message: string, code: string) => callback(Object.assign(new Error(message), { code }), "", 4)
    Effect.runCallbackWith(services)(Effect.result(guard.resolve(hostname)), {
      onExit: (exit) => {
        if (exit._tag === "Failure") return fail(`lookup of ${hostname} was interrupted`, "ECANCELLED")
        if (Result.isFailure(exit.value)) return fail(exit.value.failure.message, BLOCKED_ERROR_CODE)
        const entries = exit.value.success
          .filter((a) => wanted === undefined || NetAddress.familyOf(a) === wanted)
          .map((a) => ({ address: NetAddress.formatIp(a), family: NetAddress.familyOf(a) === "IPv4" ? 4 : 6 }))
        const first = entries[0]
        if (first === undefined) return fail(`no ${wanted} address for ${hostname}`, "ENOTFOUND")
        return options.all === true ? callback(null, entries) : callback(null, first.address, first.family)
      }
    })
  })
