/**
 * ListTasks page tokens (spec 3.1.4): opaque to clients, a cursor (status timestamp, task id) plus a digest
 * of the filters it was issued for, base64url-encoded. Cursors stay valid when tasks are added: a page
 * continues strictly after the last task the client saw.
 */
import * as Base64Url from "effect/encoding/Base64Url"
import * as Result from "effect/Result"
import type { TaskCursor } from "../TaskStore.ts"
import * as Sha256 from "./Sha256.ts"

/**
 * The ListTasks filters a page token was issued for.
 *
 * @since 0.1.0
 * @category models
 */
export interface Filters {
  readonly contextId?: string | undefined
  readonly status?: string | undefined
  readonly statusTimestampAfter?: number | undefined
}

const digest = (filters: Filters): string =>
  Base64Url.encode(
    Sha256.digest(
      JSON.stringify([filters.contextId ?? null, filters.status ?? null, filters.statusTimestampAfter ?? null])
    )
  ).slice(0, 12)

/**
 * The page token of a cursor under its filters.
 *
 * @since 0.1.0
 * @category utils
 */
export const encode = (cursor: TaskCursor, filters: Filters): string =>
  Base64Url.encode(JSON.stringify([cursor.timestamp, cursor.id, digest(filters)]))

/**
 * Why a page token was refused: not one of ours, or issued for other filters.
 *
 * @since 0.1.0
 * @category models
 */
export type DecodeError = "malformed" | "filters"

/**
 * The cursor of a token, or why it is unusable: not one of ours, or issued for other filters.
 *
 * @since 0.1.0
 * @category utils
 */
export const decode = (token: string, filters: Filters): TaskCursor | DecodeError => {
  let parsed: unknown
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) return "malformed"
    const text = Base64Url.decodeString(token)
    if (Result.isFailure(text)) return "malformed"
    parsed = JSON.parse(text.success)
  } catch {
    return "malformed"
  }
  if (
    !Array.isArray(parsed) || parsed.length !== 3 || typeof parsed[0] !== "number" ||
    !Number.isFinite(parsed[0]) || typeof parsed[1] !== "string" || typeof parsed[2] !== "string"
  ) return "malformed"
  if (parsed[2] !== digest(filters)) return "filters"
  return { timestamp: parsed[0], id: parsed[1] }
}
