/**
 * The NOTIFY channels the nodes of one deployment share. PostgreSQL channels are database-wide while our tables
 * live in a schema, so each channel name carries a digest of the schema: deployments (and test runs) in other
 * schemas of the same database never hear each other.
 */
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { createHash } from "node:crypto"

/** `base` suffixed with a digest of the current schema: a valid channel identifier under 63 bytes. */
export const name = (base: string): Effect.Effect<string, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ schema: string | null }>`SELECT current_schema() AS schema`
    const digest = createHash("sha256").update(row?.schema ?? "").digest("hex").slice(0, 16)
    return `${base}_${digest}`
  })
