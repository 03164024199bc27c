/**
 * `effect-a2a serve --agent <module> --watch`: editing the agent module restarts the server with the new code on
 * the same port; SIGTERM to the command stops the watched server too.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = join(ROOT, "src/cli/main.ts")

// Inside the repository, so that the module resolves `effect-a2a` as a user's project would resolve it.
const agentSource = (reply: string) =>
  `import { AgentExecutor } from "effect-a2a/server"\nexport const agent = AgentExecutor.replyWithText((t) => "${reply}: " + t)\n`

const freePort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
)

const ask = (base: string) =>
  Effect.promise(() =>
    fetch(`${base}/message:send`, {
      method: "POST",
      headers: { "a2a-version": "1.0", "content-type": "application/json" },
      body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] } })
    }).then(
      (r) =>
        r.json().then((j) => (j as { message?: { parts: ReadonlyArray<{ text: string }> } }).message?.parts[0]?.text),
      () => undefined
    )
  )

const until = <A>(effect: Effect.Effect<A>, ok: (a: A) => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      const a = yield* effect
      if (ok(a)) return a
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

describe("effect-a2a serve --watch", () => {
  it.live("restarts with the edited agent module, and stops with the command", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(ROOT, "test", ".tmp-watch-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const module = join(dir, "agent.ts")
      writeFileSync(module, agentSource("v1"))
      const port = yield* freePort
      const command = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [BIN, "serve", "--memory", "--port", String(port), "--agent", module, "--watch"], {
            env: process.env,
            stdio: ["ignore", "pipe", "pipe"]
          })
        ),
        (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
      )
      let output = ""
      command.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      command.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => command.on("exit", (code) => resolve(code)))
      const base = `http://127.0.0.1:${port}`

      assert.strictEqual(yield* until(ask(base), (r) => r !== undefined, `the server\n${output}`), "v1: hi")
      writeFileSync(module, agentSource("v2"))
      yield* until(ask(base), (r) => r === "v2: hi", "the restart with the edited module")

      command.kill("SIGTERM")
      const code = yield* Effect.promise(() => exited)
      assert.strictEqual(code, 0, output)
      assert.isUndefined(yield* ask(base), "the watched server is gone too")
    }).pipe(Effect.scoped), 60_000)
})
