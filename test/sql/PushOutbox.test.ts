/**
 * Webhook deliveries pending when a server process dies are not lost: they were written down (the outbox, in
 * the same database as the tasks) and are made by whoever takes over, in order, each event once: on SQLite the
 * same server restarted, on PostgreSQL another node while the first stays dead.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ServeProcess from "../fixtures/ServeProcess.ts"
import * as Receiver from "../server/push/receiver.ts"
import { freshDatabaseUrl, skipReason, testDatabaseUrl } from "./pg.ts"

// Deliveries retried quickly and for long: a webhook that is down keeps them pending.
const PUSH = {
  A2A_WEBHOOK_ALLOWLIST: "127.0.0.1",
  A2A_WEBHOOK_MAX_ATTEMPTS: "100000",
  A2A_WEBHOOK_RETRY_BASE_DELAY: "20 millis",
  A2A_WEBHOOK_RETRY_MAX_DELAY: "50 millis",
  A2A_RECOVERY_INTERVAL: "300 millis",
  A2A_NODE_LEASE: "1 second"
}

/** A blocking send whose task pushes to `webhook`; the task it answers. */
const sendWithWebhook = (node: ServeProcess.ServeProcess, webhook: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${node.base}/message:send`, {
      method: "POST",
      headers: { "a2a-version": "1.0", "content-type": "application/json" },
      body: JSON.stringify({
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "quick 5" }] },
        configuration: { taskPushNotificationConfig: { url: webhook, token: "outbox-test" } }
      })
    })
    const reply = await response.json() as { task?: { id: string; status: { state: string } } }
    if (reply.task === undefined) throw new Error(JSON.stringify(reply))
    return reply.task
  })

/** What a delivered StreamResponse says: its kind and the state it carries. */
const describeBody = (body: string): string => {
  const event = JSON.parse(body) as {
    task?: { status: { state: string } }
    statusUpdate?: { status: { state: string } }
  }
  return event.task !== undefined
    ? `task ${event.task.status.state}`
    : event.statusUpdate !== undefined
    ? `status ${event.statusUpdate.status.state}`
    : body
}

/**
 * The deliveries a webhook gets once it is up again, waited for until the last event (COMPLETED) has come, then
 * a little longer to catch any duplicate.
 */
const deliveredAfter = (receiver: Receiver.Receiver, from: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 750; i++) {
      const later = receiver.on("/hook").slice(from).map((r) => describeBody(r.body))
      if (later.includes("status TASK_STATE_COMPLETED")) {
        yield* Effect.sleep("300 millis")
        return receiver.on("/hook").slice(from).map((r) => describeBody(r.body))
      }
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`not delivered: ${JSON.stringify(receiver.on("/hook").map((r) => r.body))}`))
  })

/** Kills the process as a crash would, and waits for it to be gone. */
const crash = (node: ServeProcess.ServeProcess) =>
  Effect.promise(() => {
    node.child.kill("SIGKILL")
    return node.exited
  })

const EVENTS = ["task TASK_STATE_SUBMITTED", "status TASK_STATE_WORKING", "status TASK_STATE_COMPLETED"]

describe("push deliveries survive the process that had them", () => {
  it.live(
    "SQLite: the restarted server makes what its crashed predecessor had pending, in order, once",
    () =>
      Effect.gen(function*() {
        const receiver = yield* Receiver.make
        receiver.script("/hook", Array.from({ length: 100_000 }, () => 503))
        const dir = mkdtempSync(join(tmpdir(), "a2a-outbox-"))
        const first = yield* ServeProcess.start({ ...PUSH, A2A_DATA_DIR: dir })
        const task = yield* sendWithWebhook(first, receiver.url("/hook"))
        assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
        // The webhook is down: the first event is being retried, the others wait behind it.
        yield* receiver.waitFor("/hook", 3)
        yield* crash(first)

        receiver.script("/hook", [])
        const from = receiver.on("/hook").length
        yield* ServeProcess.start({ ...PUSH, A2A_DATA_DIR: dir })
        assert.deepStrictEqual(yield* deliveredAfter(receiver, from), EVENTS)
      }).pipe(Effect.scoped),
    40_000
  )

  if (testDatabaseUrl === undefined) {
    it.skip(`PostgreSQL: ${skipReason}`, () => {})
  } else {
    it.live(
      "PostgreSQL: another node takes over what a dead node had pending, in order, once",
      () =>
        Effect.gen(function*() {
          const receiver = yield* Receiver.make
          receiver.script("/hook", Array.from({ length: 100_000 }, () => 503))
          const url = yield* freshDatabaseUrl
          const env = (name: string) => ({
            ...PUSH,
            A2A_DATABASE_URL: Redacted.value(url),
            A2A_DATA_DIR: mkdtempSync(join(tmpdir(), `a2a-outbox-${name}-`))
          })
          const a = yield* ServeProcess.start(env("a"))
          yield* ServeProcess.start(env("b"))
          const task = yield* sendWithWebhook(a, receiver.url("/hook"))
          assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
          yield* receiver.waitFor("/hook", 3)
          yield* crash(a)

          receiver.script("/hook", [])
          const from = receiver.on("/hook").length
          assert.deepStrictEqual(yield* deliveredAfter(receiver, from), EVENTS)
        }).pipe(Effect.scoped),
      40_000
    )
  }
})
