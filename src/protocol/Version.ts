/**
 * Protocol version negotiation (spec 3.6). A request names its version with the `A2A-Version` service
 * parameter (header, or query parameter of the same name); only `Major.Minor` counts, and an empty or absent
 * value means 0.3. The server answers with the semantics of that version or with VersionNotSupported.
 *
 * A version is served through its method table (`effect-a2a/http`): its methods, which translate its wire shapes
 * to the 1.0 model the RequestHandler speaks. Bindings keep one table per served version and pick it with
 * `negotiate`, so adding 0.3 is adding a table, not touching the bindings.
 *
 * @example
 * ```ts
 * import { Version } from "effect-a2a/protocol"
 *
 * Version.normalize("1.0.3") // "1.0"
 * Version.fromHttp({ "a2a-version": "1.0" }, {}) // "1.0"
 * ```
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import { VersionNotSupported } from "./A2AError.ts"

/**
 * The version this library speaks natively.
 *
 * @since 0.1.0
 * @category constants
 */
export const CURRENT = "1.0"

/**
 * What an empty or absent `A2A-Version` means (spec 3.6.2).
 *
 * @since 0.1.0
 * @category constants
 */
export const IMPLICIT = "0.3"

/**
 * Service parameter name, as header and as query parameter (spec 3.6.1, 14.2.1).
 *
 * @since 0.1.0
 * @category constants
 */
export const HEADER = "a2a-version"
/**
 * The query parameter that may carry the version instead of the header.
 *
 * @since 0.1.0
 * @category constants
 */
export const QUERY_PARAM = "A2A-Version"

const versionPattern = /^\s*v?(\d{1,4})(?:\.(\d{1,4}))?(?:\.\d{1,9})?(?:[-+][0-9A-Za-z.-]*)?\s*$/

/**
 * `Major.Minor` of a requested version: "1.0.3" -> "1.0", "1" -> "1.0", "" -> "0.3". Returns undefined for
 * a value that is not a version at all.
 *
 * @since 0.1.0
 * @category utils
 */
export const normalize = (raw: string | null | undefined): string | undefined => {
  if (raw === undefined || raw === null || raw.trim() === "") return IMPLICIT
  // Nearly every request names the version the one before did: no pattern to run then.
  if (raw === lastRaw) return lastVersion
  const m = versionPattern.exec(raw)
  const version = m === null ? undefined : `${Number(m[1])}.${Number(m[2] ?? "0")}`
  lastRaw = raw
  lastVersion = version
  return version
}

let lastRaw: string | undefined
let lastVersion: string | undefined

/**
 * Picks the served version for a request, or the VersionNotSupported error to answer with (its ErrorInfo
 * metadata lists what is served).
 *
 * @since 0.1.0
 * @category utils
 */
export const negotiate = <Served extends string>(
  raw: string | null | undefined,
  served: ReadonlyArray<Served>
): Result.Result<Served, VersionNotSupported> => {
  const version = normalize(raw)
  const match = version === undefined ? undefined : served.find((v) => v === version)
  if (match !== undefined) return Result.succeed(match)
  const requested = raw === undefined || raw === null || raw.trim() === "" ? `${IMPLICIT} (no A2A-Version given)` : raw
  return Result.fail(
    new VersionNotSupported({
      message: `A2A protocol version ${requested} is not supported; supported versions: ${served.join(", ")}`,
      metadata: {
        requestedVersion: version ?? raw ?? "",
        supportedVersions: served.join(",")
      }
    })
  )
}

/**
 * Reads the requested version of an HTTP request: the header wins over the query parameter.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromHttp = (
  headers: Readonly<Record<string, string | undefined>>,
  searchParams: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
): string | undefined => {
  const header = headers[HEADER]
  if (header !== undefined && header.trim() !== "") return header
  const query = searchParams[QUERY_PARAM] ?? searchParams[HEADER]
  return typeof query === "string" ? query : query?.[0]
}
