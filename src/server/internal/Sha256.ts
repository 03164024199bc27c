/**
 * SHA-256 for the server core, synchronous and on every runtime. The core hashes small strings on hot paths
 * (credentials on every authenticated call, page tokens, the card's ETag): `crypto.subtle.digest`, the only digest
 * every runtime has, would make each of them asynchronous, and `node:crypto` would tie the core to Node. The
 * digest itself is @noble/hashes (audited, no dependencies, pure JS): no hand-written crypto. Checked against
 * `node:crypto` in test/server/Sha256.test.ts.
 */
import { sha256 } from "@noble/hashes/sha2.js"

const encoder = new TextEncoder()

/**
 * The SHA-256 digest (32 bytes) of `input`, strings taken as UTF-8.
 *
 * @since 0.1.0
 * @category utils
 */
export const digest = (input: string | Uint8Array): Uint8Array =>
  sha256(typeof input === "string" ? encoder.encode(input) : input)

/**
 * Whether two byte arrays are equal, in time that depends on their length only.
 *
 * @since 0.1.0
 * @category utils
 */
export const timingSafeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!
  return difference === 0
}
