/**
 * Safe retries in `effect-a2a serve` over its SQLite file: a message sent again after the process restarted on
 * the same data directory is answered with the task it made (the agent, which names its process in the task's
 * history, does not run again), and `A2A_IDEMPOTENCY_WINDOW` reaches the server (zero: every send runs).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

const HEADERS = { "a2a-version": "1.0", "content-type": "application/json" }

interface Task {
  readonly id: string
  readonly status: { readonly state: string }
  readonly history?: ReadonlyArray<{ readonly messageId: string; readonly parts: ReadonlyArray<{ text?: string }> }>
}

const send = (base: string, messageId: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/message:send`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ message: { messageId, role: "ROLE_USER", parts: [{ text: "quick 10" }] } })
    })
    return (await response.json()) as { readonly task: Task }
  })

/** Runs `serve` on `dir` for the duration of `f`, then stops it (SIGTERM) and waits for it to exit. */
const withServer = <A>(dir: string, env: Record<string, string>, f: (base: string) => Effect.Effect<A>) =>
  Effect.scoped(Effect.gen(function*() {
    const node = yield* ServeProcess.start({ A2A_DATA_DIR: dir, ...env })
    const result = yield* f(node.base)
    node.child.kill("SIGTERM")
    yield* Effect.promise(() => node.exited)
    return result
  }))

describe("effect-a2a serve: safe retries", () => {
  it.live(
    "a message sent again after a restart on the same SQLite file is answered with its task",
    () =>
      Effect.gen(function*() {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-serve-retries-"))),
          (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
        )
        const first = yield* withServer(dir, {}, (base) => send(base, "m-retried"))
        assert.strictEqual(first.task.status.state, "TASK_STATE_COMPLETED")
        const again = yield* withServer(dir, {}, (base) => send(base, "m-retried"))
        assert.deepStrictEqual(again.task, first.task)
        // With no window, the same messageId is a new message: a new task.
        const unkept = yield* withServer(dir, { A2A_IDEMPOTENCY_WINDOW: "0 millis" }, (base) => send(base, "m-retried"))
        assert.notStrictEqual(unkept.task.id, first.task.id)
      }).pipe(Effect.scoped),
    60_000
  )
})
