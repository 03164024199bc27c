/**
 * Push configs sealed at rest (SqlStore `secretKeys`, A2A_SECRET_KEYS): the database holds neither the webhook's
 * token nor its credentials nor its URL in the clear; reading opens them; a new key first seals every config again
 * on start (rotation), configs stored in the clear are sealed once a key is configured, and a config sealed with a
 * key no longer configured cannot be read (an error, not garbage).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Result } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PushConfigStore } from "../../src/server/PushConfigStore.ts"
import * as SecretBox from "../../src/sql/internal/SecretBox.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"

const key = () => Redacted.make(randomBytes(32))

const config = {
  taskId: "task-1",
  id: "hook-1",
  url: "https://hooks.example.com/a2a?sig=url-secret",
  token: "token-secret",
  authentication: { scheme: "Bearer", credentials: "credentials-secret" }
}

/** Runs `f` against the SQLite file at `filename` with these keys; the store closes afterwards. */
const withStore = <A, E>(
  filename: string,
  secretKeys: ReadonlyArray<Redacted.Redacted<Buffer>>,
  f: Effect.Effect<A, E, PushConfigStore | SqlClient.SqlClient>
) => f.pipe(Effect.provide(Layer.fresh(SqlStore.layerSqlite({ filename, secretKeys }))))

const rawRows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => Effect.map(sql<{ config: string }>`SELECT config FROM a2a_push_configs`, (rows) => rows.map((r) => r.config))
)

const read = Effect.flatMap(PushConfigStore, (store) => store.get("task-1", "hook-1"))

describe("push configs sealed at rest", () => {
  it.effect("nothing secret in the clear; read back whole; rotation seals again with the new key", () =>
    Effect.gen(function*() {
      const filename = join(mkdtempSync(join(tmpdir(), "a2a-sealed-")), "a2a.db")
      const [k1, k2] = [key(), key()]
      const stored = yield* withStore(
        filename,
        [k1],
        Effect.gen(function*() {
          yield* Effect.flatMap(PushConfigStore, (store) => store.set(config))
          return yield* rawRows
        })
      )
      assert.strictEqual(stored.length, 1)
      for (const secret of ["token-secret", "credentials-secret", "url-secret", "hooks.example.com"]) {
        assert.notInclude(stored[0]!, secret)
      }
      assert.isTrue(SecretBox.make([k1]).isCurrent(JSON.parse(stored[0]!) as string))

      // Rotation: the new key first, the old one kept to open what it sealed.
      const rotated = yield* withStore(filename, [k2, k1], Effect.all([read, rawRows]))
      assert.deepInclude(Option.getOrThrow(rotated[0]), config)
      assert.isTrue(SecretBox.make([k2]).isCurrent(JSON.parse(rotated[1][0]!) as string))

      // The old key can go: everything is sealed with the new one.
      const afterwards = yield* withStore(filename, [k2], read)
      assert.deepInclude(Option.getOrThrow(afterwards), config)

      // Without the key that sealed it, a config cannot be read: an error that names no secret.
      const lost = yield* withStore(filename, [k1], Effect.result(read))
      assert.isTrue(Result.isFailure(lost))
      if (Result.isFailure(lost)) {
        assert.include(lost.failure.message, "not configured")
        assert.notInclude(lost.failure.message, "token-secret")
      }
    }))

  it.effect("configs stored in the clear are sealed once a key is configured", () =>
    Effect.gen(function*() {
      const filename = join(mkdtempSync(join(tmpdir(), "a2a-sealed-")), "a2a.db")
      const clear = yield* withStore(
        filename,
        [],
        Effect.andThen(Effect.flatMap(PushConfigStore, (store) => store.set(config)), rawRows)
      )
      assert.include(clear[0]!, "token-secret")
      const k = key()
      const [found, sealed] = yield* withStore(filename, [k], Effect.all([read, rawRows]))
      assert.deepInclude(Option.getOrThrow(found), config)
      assert.notInclude(sealed[0]!, "token-secret")
      assert.isTrue(SecretBox.make([k]).isCurrent(JSON.parse(sealed[0]!) as string))
    }))

  it("a key that is not 32 bytes of base64 is refused with what is expected", () => {
    assert.isTrue(Result.isFailure(SecretBox.parseKey("c2hvcnQ=")))
    assert.isTrue(Result.isSuccess(SecretBox.parseKey(randomBytes(32).toString("base64"))))
  })
})
