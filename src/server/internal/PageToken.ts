/**
 * ListTasks page tokens (spec 3.1.4): opaque to clients, a cursor (status timestamp, task id) plus a digest
 * of the filters it was issued for, base64url-encoded. Cursors stay valid when tasks are added: a page
 * continues strictly after the last task the client saw.
 */
import { createHash } from "node:crypto"
import type { TaskCursor } from "../TaskStore.ts"

export interface Filters {
  readonly contextId?: string | undefined
  readonly status?: string | undefined
  readonly statusTimestampAfter?: number | undefined
}

const digest = (filters: Filters): string =>
  createHash("sha256")
    .update(JSON.stringify([filters.contextId ?? null, filters.status ?? null, filters.statusTimestampAfter ?? null]))
    .digest("base64url")
    .slice(0, 12)

export const encode = (cursor: TaskCursor, filters: Filters): string =>
  Buffer.from(JSON.stringify([cursor.timestamp, cursor.id, digest(filters)]), "utf8").toString("base64url")

export type DecodeError = "malformed" | "filters"

/** The cursor of a token, or why it is unusable: not one of ours, or issued for other filters. */
export const decode = (token: string, filters: Filters): TaskCursor | DecodeError => {
  let parsed: unknown
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) return "malformed"
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"))
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
