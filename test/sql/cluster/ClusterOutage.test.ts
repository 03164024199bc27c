/**
 * Blocking sends in flight when PostgreSQL goes away (issue #42), through the cluster engine: two `serve` nodes on
 * a PostgreSQL server of the test's own, blocking SendMessages sent through both just before the server stops
 * for 20 s (their turns running on either node). Every one is answered, with its task's end or UNAVAILABLE, at
 * most 10 s after the database is back: none waits for a reply or a notification lost with the database.
 * Needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh). The nodes are killed when the test ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as ServeProcess from "../../fixtures/ServeProcess.ts"
import { ownServer, skipReason, testDatabaseUrl } from "../pg.ts"

const AGENT = fileURLToPath(new URL("../../fixtures/ClusterAgent.ts", import.meta.url))
const HEADERS = { "a2a-version": "1.0", "content-type": "application/json" }
const OUTAGE_MS = 20_000
/** The most a request in flight may take to be answered once the database is back. */
const AFTER_MS = 10_000

const serve = (url: string, extra: Record<string, string>) =>
  ServeProcess.start(
    {
      A2A_DATABASE_URL: url,
      A2A_CLUSTER: "true",
      // Longer than the outage: no runner is taken for lost meanwhile.
      A2A_FAILOVER: "60 seconds",
      A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-outage-")),
      ...extra
    },
    ["--no-ui", "--no-api-docs"],
    AGENT
  )

/** A blocking send of `text` through `base`: its HTTP status, body, and when it was answered. */
const send = (base: string, text: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/message:send`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } }),
      signal: AbortSignal.timeout(120_000)
    }).catch((error) => ({ status: -1, text: () => Promise.resolve(String(error)) }))
    return { status: response.status, body: await response.text(), at: Date.now() }
  })

const outage = (restartable: boolean) =>
  Effect.gen(function*() {
    const pg = yield* ownServer
    const extra: Record<string, string> = restartable ? { CLUSTER_AGENT_RESTARTABLE: "1" } : {}
    const a = yield* serve(pg.url, extra)
    const b = yield* serve(pg.url, extra)
    // Both runners hold shards before the sends: a turn may run on either node.
    yield* Effect.sleep("4 seconds")
    // Turns that start before the outage and end during it (their end not saved), and turns sent a moment before
    // it (still being queued or started as it comes).
    const texts = ["sleep 3000", "sleep 3000", "sleep 200", "sleep 200", "sleep 10", "sleep 10"]
    const sends = yield* Effect.forkChild(
      Effect.forEach(texts.flatMap((text) => [a.base, b.base].map((base) => ({ base, text }))), ({ base, text }) =>
        send(base, text), { concurrency: "unbounded" })
    )
    yield* Effect.sleep("1 second")
    yield* Effect.sync(() =>
      pg.pause()
    )
    yield* Effect.sleep(OUTAGE_MS)
    yield* Effect.sync(() => pg.resume())
    const back = Date.now()
    const answers = yield* Fiber.join(sends)
    console.log(
      `in flight through an outage: the last answered ${Math.max(...answers.map((a) => a.at)) - back} ms after`
    )
    const late = answers.filter((answer) => answer.at - back > AFTER_MS)
    assert.deepStrictEqual(
      late.map((answer) => `${answer.at - back} ms after: ${answer.status} ${answer.body.slice(0, 200)}`),
      [],
      "answered more than 10 s after the database was back"
    )
    // Each is its task's end, or UNAVAILABLE (503): never an internal error.
    for (const answer of answers) {
      if (answer.status === 200) assert.match(answer.body, /TASK_STATE_(COMPLETED|FAILED)/, answer.body)
      else assert.strictEqual(answer.status, 503, answer.body)
    }
  }).pipe(Effect.scoped)

describe("the cluster engine: blocking sends in flight as PostgreSQL goes away for 20 s", () => {
  if (testDatabaseUrl === undefined) return it.skip(skipReason, () => {})

  it.live(
    "each is answered within 10 s of the database's return (a non-restartable agent)",
    () => outage(false),
    180_000
  )

  it.live("each is answered within 10 s of the database's return (a restartable agent)", () => outage(true), 180_000)
})
