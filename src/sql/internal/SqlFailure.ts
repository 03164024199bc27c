/**
 * SQL failures as the stores report them: a TaskStoreError saying what failed, marked `unavailable` when the
 * database could not be reached (so the client hears UNAVAILABLE, retry later) rather than the statement failing.
 *
 * @since 0.1.0
 */
import type * as Schema from "effect/Schema"
import type { SqlError } from "effect/sql/SqlError"
import { TaskStoreError } from "../../server/TaskStore.ts"

// SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception), 57P01 admin
// shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up or shutting down).
const UNREACHABLE_STATE = /^(08|57P0[123])/

/**
 * Whether the database could not be reached: the connection was refused, lost or timed out (the driver's
 * ConnectionError), or the server ended the session because it is stopping or not yet started.
 *
 * @since 0.1.0
 * @category guards
 */
export const isUnreachable = (error: SqlError): boolean => {
  if (error.reason._tag === "ConnectionError") return true
  const cause: unknown = error.reason.cause
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
  return typeof code === "string" && UNREACHABLE_STATE.test(code)
}

/**
 * The TaskStoreError of a failed step, `what` saying which.
 *
 * @since 0.1.0
 * @category errors
 */
export const storeError = (what: string) => (cause: SqlError | Schema.SchemaError | TaskStoreError): TaskStoreError => {
  const unavailable = cause._tag === "SqlError" ? isUnreachable(cause) : cause._tag === "TaskStoreError" &&
    cause.unavailable === true
  return new TaskStoreError({ message: `${what}: ${cause.message}`, cause, ...(unavailable ? { unavailable } : {}) })
}
