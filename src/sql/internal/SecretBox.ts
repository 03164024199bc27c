/**
 * Sealing stored secrets (push configs hold webhook tokens and credentials) with AES-256-GCM under keys the
 * operator configures. A sealed value is `a2a-sealed:v1:<key id>:<base64url of iv, tag and ciphertext>`; the key
 * id is a digest of the key, so several keys can be configured: the first seals, every one opens (rotation).
 * A value without the prefix is one stored before sealing was turned on, returned as it is.
 *
 * @since 0.1.0
 */
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"

const PREFIX = "a2a-sealed:v1:"

/**
 * Seals stored secrets with the first key and opens them with any (see the module).
 *
 * @since 0.1.0
 * @category models
 */
export interface SecretBox {
  /** The id of the key that seals. */
  readonly keyId: string
  readonly seal: (plain: string) => string
  /** The plain text; a failure says why without the secret (unknown key, tampered or corrupt value). */
  readonly open: (stored: string) => Result.Result<string, string>
  /** Whether a stored value is sealed with the sealing key (else it should be sealed again). */
  readonly isCurrent: (stored: string) => boolean
}

/**
 * Whether a stored value is sealed (else it was stored in the clear).
 *
 * @since 0.1.0
 * @category guards
 */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX)

/**
 * A 32-byte key from its base64 (or base64url) text; a message naming what is wrong otherwise.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseKey = (text: string): Result.Result<Buffer, string> => {
  const key = Buffer.from(text.trim(), "base64")
  return key.length === 32
    ? Result.succeed(key)
    : Result.fail(`a key must be 32 bytes in base64 (e.g. \`openssl rand -base64 32\`), got ${key.length} bytes`)
}

const idOf = (key: Buffer): string => createHash("sha256").update(key).digest("hex").slice(0, 12)

/**
 * The box over `keys` (at least one): the first seals, all open.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (keys: ReadonlyArray<Redacted.Redacted<Buffer>>): SecretBox => {
  const byId = new Map(keys.map((k) => [idOf(Redacted.value(k)), Redacted.value(k)] as const))
  const sealing = Redacted.value(keys[0]!)
  const keyId = idOf(sealing)
  return {
    keyId,
    seal: (plain) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", sealing, iv)
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
      return `${PREFIX}${keyId}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`
    },
    open: (stored) => {
      if (!isSealed(stored)) return Result.succeed(stored)
      const rest = stored.slice(PREFIX.length)
      const colon = rest.indexOf(":")
      const key = byId.get(rest.slice(0, colon))
      if (colon < 0 || key === undefined) {
        return Result.fail(`sealed with key ${rest.slice(0, Math.max(0, colon))}, which is not configured`)
      }
      const raw = Buffer.from(rest.slice(colon + 1), "base64url")
      if (raw.length < 28) return Result.fail("the sealed value is corrupt")
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12))
        decipher.setAuthTag(raw.subarray(12, 28))
        return Result.succeed(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8"))
      } catch {
        return Result.fail("the sealed value does not verify (tampered, or sealed with another key)")
      }
    },
    isCurrent: (stored) => stored.startsWith(`${PREFIX}${keyId}:`)
  }
}
