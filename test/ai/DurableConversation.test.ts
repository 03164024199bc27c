/**
 * An LLM agent under DurableServer keeps its conversations in the stores' database (Effect's persistence beside the
 * tasks): a conversation continues after the server is stopped and started again on the same database, SQLite
 * and PostgreSQL (when A2A_TEST_DATABASE_URL is set, see .ci/postgres.sh).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LlmAgent from "../../src/ai/LlmAgent.ts"
import * as ScriptedModel from "../../src/ai/ScriptedModel.ts"
import * as WebhookPush from "../../src/node/push/WebhookPush.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import * as DurableServer from "../../src/sql/DurableServer.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { ctxFor, principal, send } from "../server/support.ts"
import { freshSchemaUrl, testDatabaseUrl } from "../sql/pg.ts"

/** Two lives of a server over `stores`: the second continues the conversation the first began. */
const survivesRestart = (stores: () => Layer.Layer<SqlStore.Services, SqlStore.StoreError>) => {
  const prompts: Array<Array<string>> = []
  const model = ScriptedModel.layer((request) => {
    prompts.push(
      request.prompt.content.map((m) =>
        `${m.role}:${
          typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : p.type)).join()
        }`
      )
    )
    return ScriptedModel.text(`reply ${prompts.length}`)
  })
  const alice = ctxFor(principal("alice"))
  // one server's life: its layer is built, serves one message, and is released (the database closed)
  const life = (text: string) =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      yield* handler.sendMessage(send(text, { contextId: "kept" }), alice)
    }).pipe(Effect.provide(DurableServer.layerWithStores(stores(), {
      card: DemoAgent.card,
      executor: LlmAgent.layer({ instructions: "Remember." }).pipe(Layer.provide(model)),
      push: WebhookPush.layer()
    })))
  return Effect.gen(function*() {
    yield* life("my name is Ada")
    yield* life("what is my name?")
    assert.deepStrictEqual(prompts[1], [
      "system:Remember.",
      "user:my name is Ada",
      "assistant:reply 1",
      "user:what is my name?"
    ])
    // the conversation is a row of Effect's persistence table in the same database as the tasks
    const rows = yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<
        { n: number }
      >`SELECT count(*) AS n FROM effect_persistence WHERE store_id = 'a2a_conversations'`
    }).pipe(Effect.provide(stores()))
    assert.strictEqual(Number(rows[0]?.n), 1)
  })
}

describe("LlmAgent over DurableServer", () => {
  it.live("a conversation survives a restart of the server (SQLite)", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-llm-"))),
      (dir) => survivesRestart(() => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ))

  it.live.skipIf(testDatabaseUrl === undefined)(
    "a conversation survives a restart of the server (PostgreSQL)",
    () => Effect.scoped(Effect.flatMap(freshSchemaUrl, (url) => survivesRestart(() => SqlStore.layerPg({ url }))))
  )
})
