/**
 * PostgreSQL for tests: `A2A_TEST_DATABASE_URL` (see .ci/postgres.sh). Each layer gets its own schema, so test
 * files and runs never see each other's rows; the schema is dropped when the layer closes.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { randomBytes } from "node:crypto"

export const testDatabaseUrl: string | undefined = process.env["A2A_TEST_DATABASE_URL"] || undefined

export const skipReason = "PostgreSQL tests need A2A_TEST_DATABASE_URL (run: eval \"$(.ci/postgres.sh start)\")"

/** A URL whose connections use a fresh schema, created now and dropped when the scope closes. */
export const freshSchemaUrl = Effect.gen(function*() {
  if (testDatabaseUrl === undefined) return yield* Effect.die(skipReason)
  const schema = `a2a_test_${randomBytes(6).toString("hex")}`
  const admin = (statement: string) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(statement)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(testDatabaseUrl), maxConnections: 1 })), Effect.orDie)
  yield* Effect.acquireRelease(
    admin(`CREATE SCHEMA ${schema}`),
    () => admin(`DROP SCHEMA ${schema} CASCADE`)
  )
  const url = new URL(testDatabaseUrl)
  url.searchParams.set("options", `-c search_path=${schema}`)
  return Redacted.make(url.toString())
})

/** Builds a layer from a fresh-schema URL; the schema lives as long as the layer. */
export const withFreshSchema = <A, E, R>(
  f: (url: Redacted.Redacted<string>) => Layer.Layer<A, E, R>
): Layer.Layer<A, E, R> => Layer.unwrap(Effect.map(freshSchemaUrl, f))
