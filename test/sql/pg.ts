/**
 * PostgreSQL for tests: `A2A_TEST_DATABASE_URL` (see .ci/postgres.sh). Each layer gets its own schema, so test
 * files and runs never see each other's rows; the schema is dropped when the layer closes. Nodes running the
 * cluster engine get a database of their own (`freshDatabaseUrl`).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const testDatabaseUrl: string | undefined = process.env["A2A_TEST_DATABASE_URL"] || undefined

export const skipReason = "PostgreSQL tests need A2A_TEST_DATABASE_URL (run: eval \"$(.ci/postgres.sh start)\")"

/** Runs `statement` on the test database. */
const admin = (statement: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(statement)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(testDatabaseUrl!), maxConnections: 1 })), Effect.orDie)

/** A fresh name, made now with `create` and dropped with `drop` when the scope closes; and the test URL. */
const fresh = (create: (name: string) => string, drop: (name: string) => string) =>
  Effect.gen(function*() {
    if (testDatabaseUrl === undefined) return yield* Effect.die(skipReason)
    const name = `a2a_test_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(admin(create(name)), () => admin(drop(name)))
    return { name, url: new URL(testDatabaseUrl) }
  })

/** A URL whose connections use a fresh schema, created now and dropped when the scope closes. */
export const freshSchemaUrl = Effect.map(
  fresh((schema) => `CREATE SCHEMA ${schema}`, (schema) => `DROP SCHEMA ${schema} CASCADE`),
  ({ name, url }) => {
    url.searchParams.set("options", `-c search_path=${name}`)
    return Redacted.make(url.toString())
  }
)

/**
 * A URL of a fresh database, created now and dropped when the scope closes: for nodes running the cluster engine,
 * whose shard locks (advisory locks) are per database, so that clusters of tests running at once in schemas of
 * one database would take each other's shards.
 */
export const freshDatabaseUrl = Effect.map(
  fresh((database) => `CREATE DATABASE ${database}`, (database) => `DROP DATABASE ${database} WITH (FORCE)`),
  ({ name, url }) => {
    url.pathname = `/${name}`
    return Redacted.make(url.toString())
  }
)

/** Builds a layer from a fresh-schema URL; the schema lives as long as the layer. */
export const withFreshSchema = <A, E, R>(
  f: (url: Redacted.Redacted<string>) => Layer.Layer<A, E, R>
): Layer.Layer<A, E, R> => Layer.unwrap(Effect.map(freshSchemaUrl, f))

const SCRIPT = fileURLToPath(new URL("../../.ci/postgres.sh", import.meta.url))

/**
 * A PostgreSQL server of the test's own (.ci/postgres.sh in a directory of its own, so the server the other tests
 * share is never stopped), which the test may `pause` (an outage) and `resume`; stopped, its data removed, when the
 * scope closes.
 */
export const ownServer = Effect.acquireRelease(
  Effect.sync(() => {
    const env = { ...process.env, A2A_PG_DIR: mkdtempSync(join(tmpdir(), "a2a-pg-own-")) }
    const script = (command: string) => execFileSync(SCRIPT, [command], { env, encoding: "utf8" })
    const url = /A2A_TEST_DATABASE_URL=(\S+)/.exec(script("start"))?.[1]
    if (url === undefined) throw new Error("postgres.sh start printed no URL")
    return { url, pause: () => script("pause"), resume: () => script("resume"), stop: () => script("stop") }
  }),
  (server) => Effect.sync(() => server.stop())
)
