/** The store contract against the memory stores, SQLite (a temp file) and PostgreSQL (when available). */
import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { skipReason, testDatabaseUrl, withFreshSchema } from "./pg.ts"
import { storeContract } from "./StoreContract.ts"

/** A fresh SQLite file in a temp dir, removed with the layer. */
const sqliteLayer = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-store-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)

storeContract("memory stores", Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer), { sql: false })

storeContract("SQLite stores", sqliteLayer, { sql: true })

if (testDatabaseUrl !== undefined) {
  storeContract("PostgreSQL stores", withFreshSchema((url) => SqlStore.layerPg({ url })), { sql: true })
} else {
  describe("PostgreSQL stores", () => {
    it.skip(skipReason, () => {})
  })
}
