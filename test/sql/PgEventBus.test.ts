/**
 * The EventBus of several nodes on PostgreSQL (PgEventBus), two of them in this process on a real server (needs
 * A2A_TEST_DATABASE_URL, see .ci/postgres.sh). One node reaches the database through a TCP proxy of the test's own,
 * which cuts its connections and refuses new ones for a while: events it published as it lost the database (saved
 * just before) reach the other node's subscriber once it is back, in order, none lost; the other node's channel
 * never broke, so nothing told that subscriber to read the task afresh.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Logger, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { connect, createServer, type Socket } from "node:net"
import { EventBus, type TaskEvent } from "../../src/server/EventBus.ts"
import * as PgChannel from "../../src/sql/internal/PgChannel.ts"
import * as PgEventBus from "../../src/sql/internal/PgEventBus.ts"
import * as SqlNode from "../../src/sql/internal/SqlNode.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl } from "./pg.ts"

/** A TCP proxy to `target` on 127.0.0.1; `cut` closes every connection and refuses new ones until `restore`. */
const proxy = (target: URL) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly port: number; readonly cut: () => void; readonly restore: () => void; close: () => void }>(
        (resolve) => {
          const sockets = new Set<Socket>()
          let down = false
          const track = (socket: Socket) => {
            sockets.add(socket)
            socket.on("close", () => sockets.delete(socket))
            socket.on("error", () => socket.destroy())
          }
          const server = createServer((client) => {
            track(client)
            if (down) return void client.destroy()
            const upstream = connect(Number(target.port), target.hostname)
            track(upstream)
            client.pipe(upstream).pipe(client)
            client.on("close", () => upstream.destroy())
            upstream.on("close", () => client.destroy())
          })
          server.listen(0, "127.0.0.1", () => {
            const address = server.address()
            resolve({
              port: typeof address === "object" && address !== null ? address.port : 0,
              cut: () => {
                down = true
                for (const socket of sockets) socket.destroy()
              },
              restore: () => {
                down = false
              },
              close: () => {
                for (const socket of sockets) socket.destroy()
                server.close()
              }
            })
          })
        }
      )
    ),
    (p) => Effect.sync(() => p.close())
  )

/** A node's bus on `url`. */
const busAt = (url: string) =>
  Effect.map(
    Layer.build(
      PgEventBus.layer(PgClient.PgClient).pipe(
        Layer.provideMerge(SqlNode.layer),
        Layer.provideMerge(PgClient.layer({ url: Redacted.make(url) }))
      )
    ),
    (context) => Context.get(context, EventBus)
  )

const event = (sequence: number): TaskEvent => ({
  taskId: "task-1",
  sequence,
  event: {
    statusUpdate: { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_WORKING" } }
  }
})

/**
 * Node "node-a"'s bus on a fresh schema, in the test's scope, with what it logs kept: its bus, its SqlClient, the
 * events' channel, and how many malformed notifications it has warned of so far.
 */
const nodeA = Effect.gen(function*() {
  const url = new URL(Redacted.value(yield* freshSchemaUrl))
  const logged: Array<string> = []
  const context = yield* Layer.build(
    PgEventBus.layer(PgClient.PgClient).pipe(
      Layer.provideMerge(SqlNode.layerId("node-a")),
      Layer.provideMerge(PgClient.layer({ url: Redacted.make(url.toString()) })),
      Layer.provide(Logger.layer([Logger.make(({ message }) => logged.push(String(message)))]))
    )
  )
  const sql = Context.get(context, SqlClient.SqlClient)
  const channel = yield* PgChannel.name("a2a_events").pipe(Effect.provideService(SqlClient.SqlClient, sql))
  const malformedWarnings = () => logged.filter((m) => m.includes("malformed event notification")).length
  return { bus: Context.get(context, EventBus), channel, malformedWarnings, sql }
})

describe("PgEventBus", () => {
  if (testDatabaseUrl === undefined) return it.skip(skipReason, () => {})

  it.live(
    "a node that loses the database sends the events it published once it is back, in order; none is lost",
    () =>
      Effect.gen(function*() {
        const url = new URL(Redacted.value(yield* freshSchemaUrl))
        const cutter = yield* proxy(url)
        const proxied = new URL(url)
        proxied.hostname = "127.0.0.1"
        proxied.port = String(cutter.port)
        const a = yield* busAt(proxied.toString())
        const b = yield* busAt(url.toString())
        // A subscriber on b, hearing a's events.
        const events = yield* b.subscribe("task-1")
        const heard = yield* Effect.forkChild(
          Stream.runCollect(Stream.take(events, 3)).pipe(Effect.timeout("20 seconds"))
        )
        yield* a.publish(event(1))
        yield* Effect.sleep("500 millis")
        // a loses the database as it publishes the events of its last saves.
        yield* Effect.sync(() => cutter.cut())
        yield* a.publish(event(2))
        yield* a.publish(event(3))
        // Longer than a few quick retries take.
        yield* Effect.sleep("4 seconds")
        yield* Effect.sync(() => cutter.restore())
        const got = yield* Fiber.join(heard)
        assert.deepStrictEqual(Array.from(got, (e) => e.sequence), [1, 2, 3])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a node drops its own notifications before decoding them: only another node's malformed one is warned of",
    () =>
      Effect.gen(function*() {
        const { bus, channel, malformedWarnings, sql } = yield* nodeA
        // The task is listened to here (another node's events of a task nobody here listens to are not decoded).
        yield* bus.subscribe("task-1").pipe(Effect.asVoid)
        // Neither carries a valid event: decoded, each would be warned of as malformed.
        const own = `{"n":"node-a","t":"task-1","s":1,"e":{"not":"an event"}}`
        const others = `{"n":"node-b","t":"task-1","s":2,"e":{"not":"an event"}}`
        yield* sql`SELECT pg_notify(${channel}, ${own}), pg_notify(${channel}, ${others})`
        for (let i = 0; i < 100 && malformedWarnings() === 0; i++) yield* Effect.sleep("50 millis")
        // Both were delivered by now (in order, to this connection): only the second was decoded.
        yield* Effect.sleep("200 millis")
        assert.strictEqual(malformedWarnings(), 1)
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "another node's events of a task with no subscriber here are dropped undecoded; a watched task's are decoded",
    () =>
      Effect.gen(function*() {
        const { bus, channel, malformedWarnings, sql } = yield* nodeA
        const events = yield* bus.subscribe("watched")
        const heard = yield* Effect.forkChild(
          Stream.runCollect(Stream.take(events, 1)).pipe(Effect.timeout("10 seconds"))
        )
        // Malformed events: one that is decoded is warned of. A task id with an escaped quote in it is read too.
        const unwatched = `{"n":"node-b","t":"un\\"watched","s":1,"e":{"not":"an event"}}`
        const malformed = `{"n":"node-b","t":"watched","s":1,"e":{"not":"an event"}}`
        const valid = JSON.stringify({ n: "node-b", t: "watched", s: 2, e: event(2).event })
        yield* sql`SELECT pg_notify(${channel}, ${unwatched}), pg_notify(${channel}, ${malformed}),
          pg_notify(${channel}, ${valid})`
        const got = yield* Fiber.join(heard)
        // The valid one came last, in order: the two before it were handled by now.
        assert.deepStrictEqual(Array.from(got, (e) => e.sequence), [2])
        assert.strictEqual(malformedWarnings(), 1)
      }).pipe(Effect.scoped),
    30_000
  )
})
