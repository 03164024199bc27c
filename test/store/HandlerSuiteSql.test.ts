/** The core engineer's RequestHandler suite, over the SQLite store and (when available) the PostgreSQL store. */
import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlStore from "../../src/store/SqlStore.ts"
import { handlerSuite } from "../server/core/HandlerSuite.ts"
import { skipReason, testDatabaseUrl, withFreshSchema } from "./pg.ts"

const sqliteLayer = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-handler-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)

handlerSuite("RequestHandler (SQLite stores)", sqliteLayer)

if (testDatabaseUrl !== undefined) {
  handlerSuite("RequestHandler (PostgreSQL stores)", withFreshSchema((url) => SqlStore.layerPg({ url })))
} else {
  describe("RequestHandler (PostgreSQL stores)", () => {
    it.skip(skipReason, () => {})
  })
}
