/**
 * `effect-a2a serve` as a real child process: it starts, logs where it listens, serves the card and both
 * bindings, and on SIGTERM ends its open streams and exits 0.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Receiver from "../server/push/receiver.ts"
import * as TestServer from "./fixtures/TestServer.ts"

// The command from source (the built bin/effect-a2a.js is what the consumer test runs)
const BIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

interface Running {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** Spawns the CLI (Node 24, our own process's binary); killed with the test's scope if still running. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync((): Running => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      return { child, output: () => output, exited }
    }),
    ({ child }) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  )

/** Waits until the server logs its address; returns the base URL and the card URL it printed. */
const listening = (running: Running) =>
  Effect.gen(function*() {
    for (;;) {
      const m = /listening on (http:\/\/\S+); agent card: (\S+)/.exec(running.output())
      if (m !== null) return { base: m[1]!, card: m[2]! }
      if (running.child.exitCode !== null) return yield* Effect.die(new Error(`exited: ${running.output()}`))
      yield* Effect.sleep("20 millis")
    }
  })

describe("effect-a2a serve", () => {
  it.live("starts, logs its URL, serves card and bindings, and exits 0 on SIGTERM ending open streams", () =>
    Effect.gen(function*() {
      const dataDir = join(mkdtempSync(join(tmpdir(), "a2a-serve-")), "data")
      const server = yield* run(["serve", "--port", "0", "--prefix", "/a2a"], {
        A2A_SHUTDOWN_TIMEOUT: "20 seconds",
        A2A_DATA_DIR: dataDir
      })
      const { base, card } = yield* listening(server)
      assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.strictEqual(card, `${base}/.well-known/agent-card.json`)

      const cardReply = yield* TestServer.request(card, { headers: { "a2a-version": "1.0" } })
      assert.strictEqual(cardReply.status, 200)
      const interfaces = (cardReply.json as {
        supportedInterfaces: ReadonlyArray<{ url: string; protocolBinding: string; protocolVersion: string }>
      }).supportedInterfaces
      assert.deepStrictEqual(interfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`), [
        `JSONRPC 1.0 ${base}/a2a`,
        `HTTP+JSON 1.0 ${base}/a2a`,
        `JSONRPC 0.3 ${base}/a2a`,
        `HTTP+JSON 0.3 ${base}/a2a`,
        // 0.1 is JSON-RPC only
        `JSONRPC 0.1 ${base}/a2a`
      ])
      // 0.3 is served by default: a card request without a version gets the 0.3 (hybrid) card.
      const legacyCard = yield* TestServer.request(card)
      assert.deepInclude(legacyCard.json, { protocolVersion: "0.3.0", url: `${base}/a2a` })

      const reply = yield* TestServer.request(`${base}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify(TestServer.call("SendMessage", { message: TestServer.userMessage("hello") }))
      })
      const text = (reply.json as { result: { message: { parts: ReadonlyArray<{ text: string }> } } }).result
        .message.parts[0]!.text
      assert.strictEqual(text, "Echo: hello")

      const stream = yield* TestServer.openSse(`${base}/a2a/message:stream`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ message: TestServer.userMessage("slow") })
      })
      assert.property((yield* stream.next)?.data, "task")

      server.child.kill("SIGTERM")
      // The stream ends (cleanly, not after the 20 s shutdown timeout), then the process exits 0.
      yield* TestServer.drain(stream)
      const code = yield* Effect.promise(() => server.exited)
      assert.strictEqual(code, 0, server.output())
      // durable by default: the embedded store was created in the data dir
      assert.isTrue(existsSync(join(dataDir, "a2a.db")), server.output())
    }).pipe(Effect.scoped, Effect.timeout("15 seconds")))

  it.live("--memory stores nothing on disk and still delivers push notifications to a task's webhook", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const dataDir = join(mkdtempSync(join(tmpdir(), "a2a-serve-")), "data")
      const server = yield* run(["serve", "--port", "0", "--memory"], {
        A2A_DATA_DIR: dataDir,
        A2A_WEBHOOK_ALLOWLIST: "127.0.0.1",
        A2A_DEMO_STEP_DELAY: "10 millis"
      })
      const { base } = yield* listening(server)
      const reply = yield* TestServer.request(`${base}/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({
          message: TestServer.userMessage("task"),
          configuration: { taskPushNotificationConfig: { url: receiver.url("/hook"), token: "memo-token" } }
        })
      })
      const task = (reply.json as { task: { id: string; status: { state: string } } }).task
      assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(reply.json))
      yield* receiver.waitFor("/hook", 1)
      const first = receiver.on("/hook")[0]!
      assert.strictEqual(first.headers["x-a2a-notification-token"], "memo-token")
      assert.include(first.body, task.id)
      assert.isFalse(existsSync(dataDir))
    }).pipe(Effect.scoped, Effect.timeout("15 seconds")))

  it.live("rejects bad flags with a non-zero exit and a message", () =>
    Effect.gen(function*() {
      const server = yield* run(["serve", "--port", "not-a-port"])
      const code = yield* Effect.promise(() => server.exited)
      assert.notStrictEqual(code, 0)
      assert.include(server.output().toLowerCase(), "port")
      const prefix = yield* run(["serve", "--prefix", "a2a"])
      assert.notStrictEqual(yield* Effect.promise(() => prefix.exited), 0)
      assert.include(prefix.output(), "--prefix must start with \"/\"")
    }).pipe(Effect.scoped, Effect.timeout("15 seconds")))
})
