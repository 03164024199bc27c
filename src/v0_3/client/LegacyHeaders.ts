/**
 * What the 0.3 transports add to a call's headers for 0.3 peers.
 *
 * @since 0.1.0
 */
import * as Headers from "effect/http/Headers"
import type { Call } from "../../client/Transport.ts"

/** `X-A2A-Extensions` next to `A2A-Extensions`: 0.3 peers read the former. */
export const withLegacyHeaders = (call: Call): Call => {
  const extensions = call.headers["a2a-extensions"]
  return extensions === undefined
    ? call
    : { ...call, headers: Headers.set(call.headers, "x-a2a-extensions", extensions) }
}
