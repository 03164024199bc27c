/**
 * IdleMemoryRelease on a real node:http server: a spell of at least `minRequests` requests followed by a quiet
 * period gets one last-resort collection (logged with what it did); a shorter spell, or load that goes on, gets none.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as IdleMemoryRelease from "../../src/node/IdleMemoryRelease.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import { serveConfigFrom } from "../fixtures/ServeConfig.ts"

/** A node:http server answering 204, listening on 127.0.0.1 for the scope's lifetime. */
const server = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<Http.Server>((resolve) => {
      const s = Http.createServer((_req, res) => res.writeHead(204).end())
      s.listen(0, "127.0.0.1", () => resolve(s))
    })
  ),
  (s) => Effect.promise(() => new Promise<void>((resolve) => s.close(() => resolve())))
)

const requests = (s: Http.Server, n: number) =>
  Effect.promise(async () => {
    const { port } = s.address() as AddressInfo
    for (let i = 0; i < n; i++) await fetch(`http://127.0.0.1:${port}/`)
  })

/** Runs `body` with a watched server; returns the release lines logged. */
const watched = (
  options: IdleMemoryRelease.Options,
  body: (s: Http.Server) => Effect.Effect<void>
) => {
  const logged: Array<string> = []
  return Effect.gen(function*() {
    const s = yield* server
    yield* IdleMemoryRelease.watch(s, options)
    yield* body(s)
    return logged
  }).pipe(
    Effect.scoped,
    Effect.provide(Logger.layer([Logger.make(({ message }) => logged.push(String(message)))]))
  )
}

describe("IdleMemoryRelease", () => {
  it.live("collects once at the first quiet moment after the start", () =>
    Effect.gen(function*() {
      const logged = yield* watched(
        { quietFor: "150 millis", minGrowthMiB: 1024 },
        () => Effect.sleep("700 millis")
      )
      assert.strictEqual(logged.length, 1)
      assert.match(logged[0] ?? "", /^Started: heap collected, RSS \d+ -> \d+ MiB \(\d+ ms\)$/)
    }))

  it.live("collects once when a spell of load is followed by quiet", () =>
    Effect.gen(function*() {
      const logged = yield* watched(
        { quietFor: "150 millis", minGrowthMiB: 0 },
        (s) => Effect.andThen(Effect.sleep("500 millis"), Effect.andThen(requests(s, 8), Effect.sleep("700 millis")))
      )
      assert.strictEqual(logged.length, 2)
      assert.match(logged[1] ?? "", /^Load ended after 8 requests: heap collected, RSS \d+ -> \d+ MiB \(\d+ ms\)$/)
    }))

  it.live("leaves a spell that grew the RSS less than minGrowthMiB alone", () =>
    Effect.gen(function*() {
      const logged = yield* watched(
        { quietFor: "150 millis", minGrowthMiB: 1024 },
        (s) => Effect.andThen(Effect.sleep("500 millis"), Effect.andThen(requests(s, 8), Effect.sleep("700 millis")))
      )
      // the start-up's only
      assert.strictEqual(logged.length, 1)
      assert.match(logged[0] ?? "", /^Started: /)
    }))

  it.live("does not collect while the load goes on", () =>
    Effect.gen(function*() {
      // a request every 10 ms for ~800 ms, from the start: never 300 ms without one
      const logged = yield* watched(
        { quietFor: "300 millis", minGrowthMiB: 0 },
        (s) =>
          Effect.forEach(Array.from({ length: 80 }), () => Effect.andThen(requests(s, 1), Effect.sleep("10 millis")))
      )
      assert.deepStrictEqual(logged, [])
    }))

  it.effect("A2A_RELEASE_MEMORY_WHEN_IDLE turns it off in serve's configuration; a bad value is refused", () =>
    Effect.gen(function*() {
      const read = serveConfigFrom
      const off = yield* read({ A2A_RELEASE_MEMORY_WHEN_IDLE: "off" })
      assert.isTrue(Exit.isSuccess(off) && off.value.releaseMemoryWhenIdle === false)
      const unset = yield* read({})
      assert.isTrue(Exit.isSuccess(unset) && unset.value.releaseMemoryWhenIdle === undefined)
      const bad = yield* read({ A2A_RELEASE_MEMORY_WHEN_IDLE: "maybe" })
      assert.isTrue(Exit.isFailure(bad))
    }))

  it.live("NodeA2AServer.serve runs it with lowMemory, not without", () =>
    Effect.gen(function*() {
      const releasesOf = (options: NodeA2AServer.ServeOptions) => {
        const logged: Array<string> = []
        return NodeA2AServer.serve({ host: "127.0.0.1", port: 0, ...options }).pipe(
          Layer.provide(A2AServer.layer({
            card: {
              name: "echo",
              description: "echo",
              version: "1.0.0",
              capabilities: {},
              defaultInputModes: ["text/plain"],
              defaultOutputModes: ["text/plain"],
              skills: []
            },
            executor: AgentExecutor.replyWithText((text) => text)
          })),
          Layer.build,
          // the start-up release comes after 2 s without a request
          Effect.andThen(Effect.sleep("2500 millis")),
          Effect.scoped,
          Effect.provide(Logger.layer([Logger.make(({ message }) => logged.push(String(message)))])),
          Effect.map(() => logged.filter((line) => line.includes("heap collected")))
        )
      }
      const low = yield* releasesOf({ lowMemory: true })
      assert.strictEqual(low.length, 1)
      assert.match(low[0] ?? "", /^Started: heap collected/)
      assert.deepStrictEqual(yield* releasesOf({}), [])
      // releaseMemoryWhenIdle, when given, wins over lowMemory
      assert.deepStrictEqual(yield* releasesOf({ lowMemory: true, releaseMemoryWhenIdle: false }), [])
    }), { timeout: 20_000 })
})
