/** The RequestHandler suite over the SQLite stores (a fresh temp file for the run). */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { handlerSuite } from "./HandlerSuite.ts"

const sqliteLayer = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-handler-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)
handlerSuite("RequestHandler (SQLite stores)", sqliteLayer)
