/**
 * The core RequestHandler suite over the PostgreSQL stores, each run in a fresh schema. (SQLite runs in
 * test/server/RequestHandlerSqlite.test.ts.)
 */
import { describe, it } from "@effect/vitest"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { handlerSuite } from "../server/HandlerSuite.ts"
import { skipReason, testDatabaseUrl, withFreshSchema } from "./pg.ts"

if (testDatabaseUrl !== undefined) {
  handlerSuite("RequestHandler (PostgreSQL stores)", withFreshSchema((url) => SqlStore.layerPg({ url })))
} else {
  describe("RequestHandler (PostgreSQL stores)", () => {
    it.skip(skipReason, () => {})
  })
}
