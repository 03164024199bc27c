/**
 * `effect-a2a serve --agent <module>` as a real child process: it serves the user's agent and card with everything
 * the demo gets, and a start-up failure (a module without an agent, an address in use, a bad variable) is one line
 * and a non-zero exit, with no stack trace.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const BIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))
const EXAMPLE = fileURLToPath(new URL("../../examples/echo-agent-module.ts", import.meta.url))

interface Running {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync((): Running => {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: "pipe" })
      let output = ""
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      return { child, output: () => output, exited }
    }),
    ({ child }) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  )

const listening = (running: Running) =>
  Effect.gen(function*() {
    for (;;) {
      const m = /listening on (http:\/\/\S+);/.exec(running.output())
      if (m !== null) return m[1]!
      if (running.child.exitCode !== null) return yield* Effect.die(new Error(`exited: ${running.output()}`))
      yield* Effect.sleep("20 millis")
    }
  })

/** The exit code and output of a run that is expected to end by itself. */
const failed = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const running = yield* run(args, env)
    const code = yield* Effect.promise(() => running.exited)
    return { code, output: running.output() }
  })

/** `tasks/send` as an A2A 0.1 client sends it (no A2A-Version, parts with `type`). */
const tasksSend = (base: string) =>
  Effect.promise(() =>
    fetch(`${base}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tasks/send",
        params: { id: "task-1", message: { role: "user", parts: [{ type: "text", text: "hi" }] } }
      })
    }).then((r) => r.json())
  )

/** One line for the user, and none of the stack frames or source locations of a crash. */
const assertOneLine = (output: string, expected: string) => {
  assert.include(output, expected)
  assert.notMatch(output, /\n\s+at |\.ts:\d+:\d+/)
}

describe("effect-a2a serve --agent", () => {
  it.live("serves the module's agent and card, with the bindings, 0.3 and 0.1 the demo gets", () =>
    Effect.gen(function*() {
      const server = yield* run(["serve", "--memory", "--port", "0", "--agent", EXAMPLE])
      const base = yield* listening(server)
      const card = yield* Effect.promise(() =>
        fetch(`${base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) => r.json())
      ) as Effect.Effect<{ name: string; skills: ReadonlyArray<{ id: string }> }>
      assert.strictEqual(card.name, "Echo agent")
      assert.deepStrictEqual(card.skills.map((s) => s.id), ["echo"])
      const reply = yield* Effect.promise(() =>
        fetch(`${base}/message:send`, {
          method: "POST",
          headers: { "a2a-version": "1.0", "content-type": "application/json" },
          body: JSON.stringify({ message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hi" }] } })
        }).then((r) => r.json())
      ) as Effect.Effect<{ message: { parts: ReadonlyArray<{ text: string }> } }>
      assert.deepStrictEqual(reply.message.parts, [{ text: "You said: hi" }])
      // 0.3 clients (no A2A-Version) get the 0.3 card of the same agent.
      const legacy = yield* Effect.promise(() =>
        fetch(`${base}/.well-known/agent-card.json`).then((r) => r.json())
      ) as Effect.Effect<{ protocolVersion: string }>
      assert.strictEqual(legacy.protocolVersion, "0.3.0")
      // 0.1 clients: `tasks/send` with parts that carry `type`, their card at /.well-known/agent.json.
      const oldest = yield* tasksSend(base) as Effect.Effect<
        { result: { id: string; status: { message: { parts: ReadonlyArray<unknown> } } } }
      >
      assert.strictEqual(oldest.result.id, "task-1")
      assert.deepStrictEqual(oldest.result.status.message.parts, [{ type: "text", text: "You said: hi" }])
      const oldCard = yield* Effect.promise(() =>
        fetch(`${base}/.well-known/agent.json`).then((r) => r.json())
      ) as Effect.Effect<{ name: string }>
      assert.strictEqual(oldCard.name, "Echo agent")
    }))

  it.live("A2A_PROTOCOL_VERSIONS=1.0,0.3 turns 0.1 off: tasks/send is an unknown method again", () =>
    Effect.gen(function*() {
      const server = yield* run(["serve", "--memory", "--port", "0", "--agent", EXAMPLE], {
        A2A_PROTOCOL_VERSIONS: "1.0,0.3"
      })
      const base = yield* listening(server)
      const reply = yield* tasksSend(base) as Effect.Effect<{ error: { code: number } }>
      assert.strictEqual(reply.error.code, -32601)
    }))

  it.live("a module without an agent, a missing file: one line naming the file and what it must export", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "a2a-agent-module-"))
      const module = join(dir, "nothing.mjs")
      writeFileSync(module, "export const x = 1\n")
      const bad = yield* failed(["serve", "--memory", "--port", "0", "--agent", module])
      assert.notStrictEqual(bad.code, 0)
      assertOneLine(bad.output, `${module} must export an AgentExecutor`)
      const missing = yield* failed(["serve", "--memory", "--port", "0", "--agent", join(dir, "nope.ts")])
      assert.notStrictEqual(missing.code, 0)
      assertOneLine(missing.output, "no such file")
    }))

  it.live("an address in use and a bad PORT: one line each, naming the address or the variable", () =>
    Effect.gen(function*() {
      const blocker = createServer()
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) =>
          blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as { port: number }).port))
        )
      )
      try {
        const taken = yield* failed(["serve", "--memory", "--port", String(port)])
        assert.notStrictEqual(taken.code, 0)
        assertOneLine(taken.output, `Cannot listen on 127.0.0.1:${port}: the address is already in use`)
      } finally {
        blocker.close()
      }
      const badPort = yield* failed(["serve", "--memory"], { PORT: "xyz" })
      assert.notStrictEqual(badPort.code, 0)
      assertOneLine(badPort.output, "Invalid configuration: PORT is \"xyz\"")
    }))
})
