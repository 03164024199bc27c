/**
 * Crash test: a real `effect-a2a serve` process with a durable store is killed with SIGKILL while
 * it holds a completed, an input-required and a working task, then started again on the same data. Every
 * task is still there with its history and artifacts; the working one is FAILED with the restart message
 * (and its webhook is told); the input-required one carries on. Runs on SQLite, and on PostgreSQL when
 * A2A_TEST_DATABASE_URL is set: with the cluster engine (the default there), whose turn lost with its node is
 * failed saying so, and without it (A2A_CLUSTER=false).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Redacted, Schedule, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { NODE_LOST } from "../../src/sql/cluster/TurnEntity.ts"
import { RESTART_MESSAGE } from "../../src/sql/internal/SqlTaskRecovery.ts"
import * as Receiver from "../server/push/receiver.ts"
import { freshDatabaseUrl, freshSchemaUrl, skipReason, testDatabaseUrl } from "../sql/pg.ts"

// `effect-a2a serve` itself: the durable stack (SQLite in A2A_DATA_DIR, or PostgreSQL at A2A_DATABASE_URL).
const cli = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts")

interface Server {
  readonly port: number
  readonly child: ChildProcess
  readonly output: () => string
}

/** Starts the server; it is stopped (by its PID) when the scope closes, if still running. */
const startServer = (env: Record<string, string>): Effect.Effect<Server, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<Server, Error>((resume) => {
      const child = spawn(process.execPath, [cli, "serve", "--port", "0"], {
        // the demo's slow task takes 600 steps: 30 s at this pace, far beyond the crash
        env: { ...process.env, A2A_DEMO_STEP_DELAY: "50 millis", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        const match = /listening on http:\/\/[^\s:]+:(\d+)/.exec(output)
        if (match) resume(Effect.succeed({ port: Number(match[1]), child, output: () => output }))
      }
      child.stdout.on("data", onData)
      child.stderr.on("data", onData)
      child.once("exit", (code, signal) =>
        resume(Effect.fail(new Error(`server exited before listening (${code ?? signal}):\n${output}`))))
    }),
    (server) =>
      stop(server, "SIGTERM")
  )

const stop = (server: Server, signal: NodeJS.Signals) =>
  Effect.callback<void>((resume) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resume(Effect.void)
    server.child.once("exit", () => resume(Effect.void))
    process.kill(server.child.pid!, signal)
  })

const call = (server: Server, method: "GET" | "POST", path: string, body?: unknown) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
        method,
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {})
      })
      const json = await response.json() as Record<string, unknown>
      if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${JSON.stringify(json)}`)
      return json
    },
    catch: (e) => e instanceof Error ? e : new Error(String(e))
  })

let counter = 0
const send = (server: Server, text: string, options: { taskId?: string; configuration?: unknown } = {}) =>
  call(server, "POST", "/message:send", {
    message: {
      messageId: `crash-${++counter}`,
      role: "ROLE_USER",
      parts: [{ text }],
      ...(options.taskId !== undefined ? { taskId: options.taskId } : {})
    },
    ...(options.configuration !== undefined ? { configuration: options.configuration } : {})
  }).pipe(Effect.map((r) => r["task"] as v1.Task))

const getTask = (server: Server, id: string) =>
  call(server, "GET", `/tasks/${id}`).pipe(Effect.map((r) => r as v1.Task))

const eventually = <A>(effect: Effect.Effect<A, Error>, ok: (a: A) => boolean, what: string) =>
  effect.pipe(
    Effect.filterOrFail(ok, () => new Error(`still waiting for ${what}`)),
    Effect.retry({ schedule: Schedule.spaced(Duration.millis(50)), times: 400 })
  )

const crashScenario = (
  env: Record<string, string>,
  failedWith: string = RESTART_MESSAGE
) =>
  Effect.gen(function*() {
    const receiver = yield* Receiver.make
    const fullEnv = {
      ...env,
      A2A_WEBHOOK_ALLOWLIST: "127.0.0.1",
      A2A_RECOVERY_INTERVAL: "500 millis",
      A2A_NODE_LEASE: "1 second"
    }

    // --- first life ---
    const first = yield* startServer(fullEnv)
    const completed = yield* send(first, "task build the report")
    assert.strictEqual(completed.status.state, "TASK_STATE_COMPLETED")
    assert.isAbove(completed.artifacts?.length ?? 0, 0)
    const waiting = yield* send(first, "ask")
    assert.strictEqual(waiting.status.state, "TASK_STATE_INPUT_REQUIRED")
    const started = yield* send(first, "slow work", {
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: { url: receiver.url("/slow"), token: "slow-token" }
      }
    })
    const working = yield* eventually(
      getTask(first, started.id),
      (t) => t.status.state === "TASK_STATE_WORKING" && (t.history?.length ?? 0) >= 3,
      "the slow task to be working"
    )
    const before = {
      completed: yield* getTask(first, completed.id),
      waiting: yield* getTask(first, waiting.id)
    }

    // --- crash ---
    yield* stop(first, "SIGKILL")
    if (env["A2A_DATA_DIR"] !== undefined) {
      const db = new DatabaseSync(join(env["A2A_DATA_DIR"], "a2a.db"))
      const [check] = db.prepare("PRAGMA integrity_check").all()
      db.close()
      assert.deepStrictEqual(check, { integrity_check: "ok" })
    }

    // --- second life, same data ---
    const second = yield* startServer(fullEnv)
    assert.deepStrictEqual(yield* getTask(second, completed.id), before.completed)
    assert.deepStrictEqual(yield* getTask(second, waiting.id), before.waiting)

    const lost = yield* eventually(
      getTask(second, started.id),
      (t) => t.status.state === "TASK_STATE_FAILED",
      "the interrupted task to be failed"
    )
    assert.deepStrictEqual(lost.status.message?.parts, [{ text: failedWith }])
    assert.strictEqual(lost.status.message?.role, "ROLE_AGENT")
    // What the task had when the process died is kept.
    assert.deepStrictEqual(lost.history?.slice(0, working.history?.length), working.history)
    assert.deepStrictEqual(lost.history?.at(-1), lost.status.message)
    assert.strictEqual(lost.contextId, working.contextId)

    // Its webhook hears about it, with its token.
    const hooks = yield* eventually(
      Effect.sync(() => receiver.on("/slow")),
      (rs) => rs.some((r) => r.body.includes("TASK_STATE_FAILED")),
      "the webhook to get the FAILED status"
    )
    const failure = hooks.find((r) => r.body.includes("TASK_STATE_FAILED"))!
    assert.strictEqual(failure.headers["x-a2a-notification-token"], "slow-token")
    assert.strictEqual(JSON.parse(failure.body).statusUpdate.taskId, started.id)

    // Nothing lost from the listing; the input-required task continues where it was.
    const listed = yield* call(second, "GET", "/tasks?includeArtifacts=true&pageSize=100")
    const ids = (listed["tasks"] as ReadonlyArray<v1.Task>).map((t) => t.id)
    for (const id of [completed.id, waiting.id, started.id]) assert.include(ids, id)
    const answered = yield* send(second, "Ada", { taskId: waiting.id })
    assert.strictEqual(answered.status.state, "TASK_STATE_COMPLETED")
    assert.deepStrictEqual(answered.history?.slice(0, before.waiting.history?.length), before.waiting.history)

    // A third start finds nothing more to recover and changes nothing.
    yield* stop(second, "SIGTERM")
    const third = yield* startServer(fullEnv)
    assert.deepStrictEqual(yield* getTask(third, started.id), lost)
    assert.deepStrictEqual(yield* getTask(third, completed.id), before.completed)
  })

describe("crash recovery (kill -9, restart on the same data)", () => {
  it.live(
    "SQLite: every task survives; the working one is failed with the restart message",
    () =>
      Effect.gen(function*() {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-crash-"))),
          (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
        )
        yield* crashScenario({ A2A_DATA_DIR: dir })
      }),
    120_000
  )

  if (testDatabaseUrl !== undefined) {
    it.live(
      "PostgreSQL, the cluster engine: every task survives; the working one is failed as lost",
      () =>
        Effect.gen(function*() {
          const url = yield* freshDatabaseUrl
          yield* crashScenario({ A2A_DATABASE_URL: Redacted.value(url), A2A_FAILOVER: "2 seconds" }, NODE_LOST)
        }),
      120_000
    )
    it.live(
      "PostgreSQL, A2A_CLUSTER=false: every task survives; the working one is failed with the restart message",
      () =>
        Effect.gen(function*() {
          const url = yield* freshSchemaUrl
          yield* crashScenario({ A2A_DATABASE_URL: Redacted.value(url), A2A_CLUSTER: "false" })
        }),
      120_000
    )
  } else {
    it.skip(`PostgreSQL: ${skipReason}`, () => {})
  }
})
