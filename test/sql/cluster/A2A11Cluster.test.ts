/**
 * The A2A 1.1 draft on the cluster engine: two `effect-a2a serve` nodes with A2A_CLUSTER and A2A_PROTOCOL_DRAFT=1.1
 * on one PostgreSQL database, running test/fixtures/ClusterAgent.ts. Whichever node runs a task's turns, both tell
 * the same generation; a long poll on one node is answered when a turn sent through the other moves the task; a
 * conditional send through either node is checked against the task as the engine last saved it. Needs
 * A2A_TEST_DATABASE_URL (see .ci/postgres.sh).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as ServeProcess from "../../fixtures/ServeProcess.ts"
import { freshDatabaseUrl, skipReason, testDatabaseUrl } from "../pg.ts"

const AGENT = fileURLToPath(new URL("../../fixtures/ClusterAgent.ts", import.meta.url))
const HEADERS = { "a2a-version": "1.1", "content-type": "application/json" }

const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

const node = (url: string) =>
  Effect.flatMap(freePort, (port) =>
    ServeProcess.start(
      {
        A2A_DATABASE_URL: url,
        A2A_CLUSTER: "true",
        A2A_RUNNER_PORT: String(port),
        A2A_PROTOCOL_DRAFT: "1.1",
        A2A_LONG_POLL_MAX_WAIT: "20 seconds",
        A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-11-cluster-"))
      },
      ["--no-ui", "--no-api-docs"],
      AGENT
    ))

interface Task {
  readonly id: string
  readonly status: { readonly state: string }
  readonly generation?: number
}

let sequence = 0
const send = (base: string, text: string, taskId?: string, ifGenerationMatch?: number) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/message:send`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({
        message: {
          messageId: `c11-${++sequence}`,
          role: "ROLE_USER",
          parts: [{ text }],
          ...(taskId !== undefined ? { taskId } : {})
        },
        ...(ifGenerationMatch !== undefined ? { configuration: { ifGenerationMatch } } : {})
      })
    })
    return { status: response.status, body: await response.json() as { task?: Task; error?: { status: string } } }
  })

const get = (base: string, id: string, query = "") =>
  Effect.promise(() =>
    fetch(`${base}/tasks/${id}${query}`, { headers: HEADERS }).then((r) => r.json() as Promise<Task>)
  )

if (testDatabaseUrl !== undefined) {
  describe("A2A 1.1 draft on the cluster engine", () => {
    it.live(
      "one generation on both nodes; a long poll woken across nodes; conditional sends checked by the engine",
      () =>
        Effect.gen(function*() {
          const url = Redacted.value(yield* freshDatabaseUrl)
          const a = yield* node(url)
          const b = yield* node(url)
          // "ask": WORKING (the task, 1, then 2), INPUT_REQUIRED (3)
          const created = yield* send(a.base, "ask")
          const task = created.body.task!
          assert.strictEqual(task.status.state, "TASK_STATE_INPUT_REQUIRED", a.output())
          assert.strictEqual(task.generation, 3)
          assert.strictEqual((yield* get(b.base, task.id)).generation, 3)
          const poll = yield* Effect.forkScoped(get(a.base, task.id, "?currentGeneration=3"))
          yield* Effect.sleep("500 millis")
          assert.isUndefined(poll.pollUnsafe())
          const next = yield* send(b.base, "next 1", task.id, 3)
          assert.strictEqual(next.body.task?.generation, 4)
          assert.strictEqual((yield* Fiber.join(poll)).generation, 4)
          const stale = yield* send(a.base, "next 2", task.id, 3)
          assert.strictEqual(stale.status, 409)
          assert.strictEqual(stale.body.error?.status, "ABORTED")
          assert.strictEqual((yield* get(a.base, task.id)).generation, 4)
        }).pipe(Effect.scoped),
      90_000
    )
  })
} else {
  describe("A2A 1.1 draft on the cluster engine", () => {
    it.skip(skipReason, () => {})
  })
}
