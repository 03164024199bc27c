import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Stream } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqliteClient from "../../src/sql/SqliteClient.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-sqlite-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const withDb = <A, E>(
  f: (sql: SqlClient.SqlClient, file: string) => Effect.Effect<A, E, SqlClient.SqlClient>,
  config: Partial<SqliteClient.SqliteClientConfig> = {}
) =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const file = join(dir, "nested", "a2a.db")
    return yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* f(sql, file)
    }).pipe(Effect.provide(SqliteClient.layer({ filename: file, ...config })))
  })

describe("SqliteClient (node:sqlite)", () => {
  it.effect("creates the file (and its directory) in WAL mode and round-trips values", () =>
    withDb((sql, file) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, flag INTEGER, body TEXT)`
        yield* sql`INSERT INTO t ${sql.insert({ id: "a", n: 1, flag: true, body: "x" })}`
        yield* sql`INSERT INTO t ${sql.insert([{ id: "b", n: 2, flag: false, body: null }])}`
        const rows = yield* sql<{ id: string; n: number; flag: number; body: string | null }>`
          SELECT id, n, flag, body FROM t WHERE id IN ${sql.in(["a", "b"])} ORDER BY id`
        assert.deepStrictEqual(rows.map((r) => ({ ...r })), [
          { id: "a", n: 1, flag: 1, body: "x" },
          { id: "b", n: 2, flag: 0, body: null }
        ])
        const [mode] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
        assert.strictEqual(mode?.journal_mode, "wal")
        const [sync] = yield* sql<{ synchronous: number }>`PRAGMA synchronous`
        assert.strictEqual(sync?.synchronous, 1) // NORMAL
        assert.isTrue(statSync(file).isFile())
        // Created private: it holds tasks and webhook credentials.
        assert.strictEqual(statSync(file).mode & 0o777, 0o600)
      })
    ))

  it.effect("honours synchronous=FULL", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        const [sync] = yield* sql<{ synchronous: number }>`PRAGMA synchronous`
        assert.strictEqual(sync?.synchronous, 2)
      }), { synchronous: "FULL" }))

  it.effect("rolls a failed transaction back and commits a successful one", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY)`
        const failed = yield* sql.withTransaction(
          Effect.andThen(sql`INSERT INTO t (id) VALUES ('a')`, Effect.fail("boom" as const))
        ).pipe(Effect.exit)
        assert.isTrue(Exit.isFailure(failed))
        yield* sql.withTransaction(sql`INSERT INTO t (id) VALUES ('b')`)
        const rows = yield* sql<{ id: string }>`SELECT id FROM t`
        assert.deepStrictEqual(rows.map((r) => r.id), ["b"])
      })
    ))

  it.effect("serialises concurrent transactions (no lost update)", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE c (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`
        yield* sql`INSERT INTO c (id, n) VALUES (1, 0)`
        const increment = sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ n: number }>`SELECT n FROM c WHERE id = 1`
          yield* Effect.yieldNow
          yield* sql`UPDATE c SET n = ${(row?.n ?? 0) + 1} WHERE id = 1`
        }))
        yield* Effect.all(Array.from({ length: 20 }, () => increment), { concurrency: "unbounded" })
        const [row] = yield* sql<{ n: number }>`SELECT n FROM c WHERE id = 1`
        assert.strictEqual(row?.n, 20)
      })
    ))

  it.effect("turns SQLite errors into typed SqlErrors (syntax, unique violation)", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        const syntax = yield* sql`SELEC nope`.pipe(Effect.flip)
        assert.strictEqual(syntax._tag, "SqlError")
        assert.include(syntax.message, "SELEC nope")
        yield* sql`CREATE TABLE u (id TEXT PRIMARY KEY, email TEXT UNIQUE)`
        yield* sql`INSERT INTO u (id, email) VALUES ('x', 'a@example.com')`
        const pk = yield* sql`INSERT INTO u (id) VALUES ('x')`.pipe(Effect.flip)
        assert.strictEqual(pk.reason._tag, "ConstraintError")
        const dup = yield* sql`INSERT INTO u (id, email) VALUES ('y', 'a@example.com')`.pipe(Effect.flip)
        assert.strictEqual(dup.reason._tag, "UniqueViolation")
      })
    ))

  it.effect("concurrent lone writes share commits, each caller answered once its write committed", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)`
        // An empty WAL: every commit appends at least one frame (the table's page) to it.
        yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
        const ids = Array.from({ length: 40 }, (_, i) => i)
        const inserted = yield* Effect.forEach(
          ids,
          (id) => sql<{ id: number }>`INSERT INTO t (id, body) VALUES (${id}, ${"x".repeat(100)}) RETURNING id`,
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(inserted.map(([row]) => row?.id), ids)
        const [wal] = yield* sql<{ log: number }>`PRAGMA wal_checkpoint(PASSIVE)`
        // One commit each would be 40 frames at least; grouped, a few.
        assert.isBelow(wal!.log, 10)
        // Read on the reader connection: all of them committed.
        const [count] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM t`
        assert.strictEqual(count?.n, 40)
      })
    ))

  it.effect("a write that fails in a group fails alone: the others of its group are stored", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY)`
        yield* sql`INSERT INTO t (id) VALUES (7)`
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (id) => Effect.exit(sql`INSERT INTO t (id) VALUES (${id})`),
          { concurrency: "unbounded" }
        )
        const failed = exits.flatMap((exit, id) => Exit.isFailure(exit) ? [id] : [])
        assert.deepStrictEqual(failed, [7])
        const rows = yield* sql<{ id: number }>`SELECT id FROM t ORDER BY id`
        assert.deepStrictEqual(rows.map((r) => r.id), Array.from({ length: 20 }, (_, i) => i))
      })
    ))

  it.effect("a backlog of writes runs in several groups with turns between: each caller resumes once committed", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER)`
        // Each write counts to 100,000 (milliseconds of work): 40 of them are several times a group's budget.
        const slowWrite = (id: number) =>
          sql`INSERT INTO t (id, n) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000)
            SELECT ${id}, MAX(i) FROM c`
        // A timer of the event loop's own: it fires only when the loop gets a turn.
        let turns = 0
        const ticker = setInterval(() => turns++, 1)
        const seen = yield* Effect.forEach(
          Array.from({ length: 40 }, (_, i) => i),
          (id) =>
            Effect.andThen(
              slowWrite(id),
              // A lone SELECT reads the reader connection: only what has committed.
              sql<{ n: number }>`SELECT COUNT(*) AS n FROM t WHERE id = ${id}`
            ),
          { concurrency: "unbounded" }
        )
        clearInterval(ticker)
        assert.deepStrictEqual(seen.map(([row]) => row?.n), Array.from({ length: 40 }, () => 1))
        // One group would have kept the event loop from the ticker until all 40 were done.
        assert.isAtLeast(turns, 3)
      })
    ))

  it.effect("the callers of a large group resume over several turns of the event loop, in the order of their writes", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY)`
        // A timer of the event loop's own: it fires only when the loop gets a turn.
        let turns = 0
        const ticker = setInterval(() => turns++, 1)
        // Fast writes (one group), each caller busy for half a millisecond once resumed: 100 ms of continuations.
        const resumed: Array<{ readonly id: number; readonly turn: number }> = []
        yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => i),
          (id) =>
            Effect.andThen(
              sql`INSERT INTO t (id) VALUES (${id})`,
              Effect.sync(() => {
                const until = performance.now() + 0.5
                while (performance.now() < until) {
                  // busy
                }
                resumed.push({ id, turn: turns })
              })
            ),
          { concurrency: "unbounded" }
        )
        clearInterval(ticker)
        assert.deepStrictEqual(resumed.map((r) => r.id), Array.from({ length: 200 }, (_, i) => i))
        // All resumed at once, they would have kept the event loop for the whole 100 ms: one turn.
        assert.isAtLeast(new Set(resumed.map((r) => r.turn)).size, 4)
        const [count] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM t`
        assert.strictEqual(count?.n, 200)
      })
    ))

  it.effect("writeAtomically: several statements commit together or not at all; an urgent one jumps a backlog", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        const client = yield* SqliteClient.SqliteClient
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER)`
        const failed = yield* Effect.exit(client.writeAtomically(
          Effect.andThen(sql`INSERT INTO t (id, n) VALUES (1, 1)`, sql`INSERT INTO t (id, n) VALUES (1, 2)`)
        ))
        assert.isTrue(Exit.isFailure(failed))
        yield* client.writeAtomically(
          Effect.andThen(sql`INSERT INTO t (id, n) VALUES (2, 2)`, sql`INSERT INTO t (id, n) VALUES (3, 3)`)
        )
        assert.deepStrictEqual((yield* sql<{ id: number }>`SELECT id FROM t ORDER BY id`).map((r) => r.id), [2, 3])
        // A backlog of slow routine writes, then an urgent one, then a lone statement (a receipt, say): both run in
        // the next groups, not after them all.
        const done: Array<string> = []
        const slow = (id: number) =>
          client.writeAtomically(
            sql`INSERT INTO t (id, n) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000)
            SELECT ${id}, MAX(i) FROM c`
          ).pipe(Effect.andThen(Effect.sync(() => done.push(`routine ${id}`))))
        const backlog = yield* Effect.forkChild(
          Effect.forEach(Array.from({ length: 30 }, (_, i) => 10 + i), slow, { concurrency: "unbounded" })
        )
        yield* Effect.yieldNow
        yield* client.writeAtomically(sql`INSERT INTO t (id, n) VALUES (100, 0)`, { urgent: true })
        done.push("urgent")
        yield* sql`INSERT INTO t (id, n) VALUES (101, 0)`
        done.push("lone")
        yield* Fiber.join(backlog)
        assert.isBelow(done.indexOf("urgent"), 10)
        assert.isBelow(done.indexOf("lone"), 20)
      })
    ))

  it.effect("hurry: a key's routine writes waiting go ahead of the backlog, in their order, and still commit", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        const client = yield* SqliteClient.SqliteClient
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER)`
        const done: Array<string> = []
        const slow = (id: number, key?: string) =>
          client.writeAtomically(
            sql`INSERT INTO t (id, n) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000)
            SELECT ${id}, MAX(i) FROM c`,
            { key }
          ).pipe(Effect.andThen(Effect.sync(() => done.push(key ?? `routine ${id}`))))
        // 30 slow routine writes, then two of the key "t": routine too, so they come last unless hurried.
        const backlog = yield* Effect.forkChild(
          Effect.forEach(Array.from({ length: 30 }, (_, i) => 10 + i), (id) => slow(id), {
            concurrency: "unbounded"
          })
        )
        const keyed = yield* Effect.forkChild(Effect.andThen(slow(100, "t:first"), slow(101, "t:second")))
        yield* Effect.yieldNow
        client.hurry("t:first")
        client.hurry("nothing waits under this key")
        yield* Fiber.join(backlog)
        yield* Fiber.join(keyed)
        assert.isBelow(done.indexOf("t:first"), 10, done.join(", "))
        // Not hurried (queued after the hurry): it took its turn behind the backlog.
        assert.isAbove(done.indexOf("t:second"), done.indexOf("t:first"))
        const [count] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM t`
        assert.strictEqual(count?.n, 32)
      })
    ))

  it.live("overloaded: true once the oldest waiting write has waited past maxWriteLag, false once it ran", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        const client = yield* SqliteClient.SqliteClient
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY)`
        assert.isFalse(client.overloaded())
        // A transaction holds the writer: the write after it waits, and the writer falls behind.
        const release = yield* Deferred.make<void>()
        const holder = yield* Effect.forkChild(sql.withTransaction(Deferred.await(release)))
        yield* Effect.sleep("20 millis")
        const waiting = yield* Effect.forkChild(client.writeAtomically(sql`INSERT INTO t (id) VALUES (1)`))
        yield* Effect.sleep("30 millis")
        assert.isFalse(client.overloaded(), "within the bound")
        yield* Effect.sleep("150 millis")
        assert.isTrue(client.overloaded(), "past the bound")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        yield* Fiber.join(waiting)
        assert.isFalse(client.overloaded(), "caught up")
        assert.deepStrictEqual((yield* sql<{ id: number }>`SELECT id FROM t`).map((r) => r.id), [1])
      }), { maxWriteLag: "100 millis" }))

  it.effect("reads the last commit while a transaction holds the writer", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY)`
        yield* sql`INSERT INTO t (id) VALUES (1)`
        const gate = yield* Deferred.make<void>()
        const open = yield* Deferred.make<void>()
        const tx = yield* sql.withTransaction(
          sql`INSERT INTO t (id) VALUES (2)`.pipe(
            Effect.andThen(Deferred.succeed(open, undefined)),
            Effect.andThen(Deferred.await(gate))
          )
        ).pipe(Effect.forkChild)
        yield* Deferred.await(open)
        // Not queued behind the open transaction, and without its uncommitted row.
        const rows = yield* sql<{ id: number }>`SELECT id FROM t ORDER BY id`
        assert.deepStrictEqual(rows.map((r) => r.id), [1])
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(tx)
        const after = yield* sql<{ id: number }>`SELECT id FROM t ORDER BY id`
        assert.deepStrictEqual(after.map((r) => r.id), [1, 2])
      })
    ))

  it.effect("streams rows", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE s (n INTEGER)`
        yield* sql`INSERT INTO s ${sql.insert([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }])}`
        const rows = yield* sql<{ n: number }>`SELECT n FROM s ORDER BY n`.stream.pipe(Stream.runCollect)
        assert.deepStrictEqual(Array.from(rows, (r) => r.n), [0, 1, 2, 3, 4])
      })
    ))

  it.effect("reopens the same file with the data intact", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const filename = join(dir, "a2a.db")
      const write = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE k (v TEXT)`
        yield* sql`INSERT INTO k (v) VALUES ('kept')`
      }).pipe(Effect.provide(SqliteClient.layer({ filename })))
      yield* write
      const rows = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ v: string }>`SELECT v FROM k`
      }).pipe(Effect.provide(SqliteClient.layer({ filename })))
      assert.deepStrictEqual(rows.map((r) => r.v), ["kept"])
    }))

  it.effect("fails with a ConnectionError for an unopenable path", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      // A directory cannot be opened as a database file.
      const error = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`SELECT 1`
      }).pipe(Effect.provide(SqliteClient.layer({ filename: dir })), Effect.flip)
      assert.strictEqual(error._tag, "SqlError")
      assert.strictEqual(error.reason._tag, "ConnectionError")
      assert.include(error.message, dir)
    }))

  it.effect("waits for a transaction to finish before a second one starts", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE o (n INTEGER)`
        const order: Array<string> = []
        const first = yield* sql.withTransaction(Effect.gen(function*() {
          order.push("first:start")
          yield* sql`INSERT INTO o (n) VALUES (1)`
          yield* Effect.yieldNow
          yield* Effect.yieldNow
          order.push("first:end")
        })).pipe(Effect.forkChild)
        yield* Effect.yieldNow
        yield* sql.withTransaction(Effect.sync(() => order.push("second")))
        yield* Fiber.join(first)
        assert.deepStrictEqual(order, ["first:start", "first:end", "second"])
      })
    ))
})
