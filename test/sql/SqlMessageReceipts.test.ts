/**
 * The SQL receipts (src/sql/internal/SqlMessageReceipts.ts) on a real SQLite file: a direct reply recorded in a
 * receipt reads back as the same message, every kind of part and field included, also after the server restarts
 * on its file (a retry is answered with it).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { fingerprint, MessageReceipts } from "../../src/server/MessageReceipts.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-receipts-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** A reply with every kind of part, metadata, a null inside data, unicode and the optional fields set. */
const reply: v1.Message = {
  messageId: "reply-1",
  role: "ROLE_AGENT",
  contextId: "ctx-1",
  taskId: "",
  extensions: ["https://example.com/ext/v1"],
  referenceTaskIds: ["t-0"],
  metadata: { source: "test", nested: { n: 1.5, ok: true, none: null, list: ["a", 2] } },
  parts: [
    { text: "héllo \"quoted\" \u2028 line" },
    { raw: "AAECAwQ=", mediaType: "application/octet-stream", filename: "bytes.bin" },
    { url: "https://example.com/file.txt", mediaType: "text/plain" },
    { data: { answer: 42, items: [null, { deep: "x" }] }, metadata: { part: "data" } }
  ]
}

const asked: v1.Message = { messageId: "asked-1", role: "ROLE_USER", parts: [{ text: "hi" }] }
const key = { owner: "alice", tenant: "", messageId: asked.messageId }

describe("SQL receipts, a direct reply", () => {
  it.live("reads back as the same message, also after a restart on the same file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const store = SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })
      const first = yield* Effect.gen(function*() {
        const receipts = yield* MessageReceipts
        const claimed = yield* receipts.claim(key, fingerprint(asked), "t-1")
        assert.isTrue(Option.isNone(claimed))
        yield* receipts.reply(key, reply)
        return yield* receipts.get(key)
      }).pipe(Effect.provide(store))
      const again = yield* Effect.gen(function*() {
        const receipts = yield* MessageReceipts
        return yield* receipts.claim(key, fingerprint(asked), "t-2")
      }).pipe(Effect.provide(store))
      for (const receipt of [first, again]) {
        assert.isTrue(Option.isSome(receipt))
        if (Option.isNone(receipt)) return
        assert.strictEqual(receipt.value.taskId, "t-1")
        assert.deepStrictEqual(receipt.value.reply, Option.some(reply))
      }
    }).pipe(Effect.scoped))
})
