/**
 * Our client, unchanged, on Bun and Deno against our Node server: examples/client.ts as written (a message, then a
 * streamed task), and a cancel and a typed error over JSON-RPC and REST (fixtures/ClientOnRuntime.ts). Bun and
 * Deno come from their npm packages; without them these tests skip with one line.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { spawn } from "node:child_process"
import { join } from "node:path"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as RuntimeProcess from "../fixtures/RuntimeProcess.ts"
import * as TestServer from "../http/fixtures/TestServer.ts"

const startDemo = TestServer.startCore(
  DemoAgent.make({ stepDelay: Duration.millis(2), slowSteps: 100_000 }),
  {},
  DemoAgent.card
)

/** Runs the program to its end (bounded by the test's timeout); its exit code and output. */
const runToEnd = (
  line: { readonly command: string; readonly args: ReadonlyArray<string> },
  env: Record<string, string>
) =>
  Effect.callback<{ readonly code: number | null; readonly output: string }>((resume) => {
    const child = spawn(line.command, [...line.args], {
      cwd: RuntimeProcess.root,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("exit", (code) => resume(Effect.succeed({ code, output })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

for (const runtime of ["bun", "deno"] as const) {
  const probe = RuntimeProcess.executable(runtime)
  describe.skipIf("missing" in probe)(`our client on ${runtime === "bun" ? "Bun" : "Deno"}`, () => {
    it.live("examples/client.ts as written: a message, then a streamed task to its end", () =>
      Effect.gen(function*() {
        const server = yield* startDemo
        const line = RuntimeProcess.commandLine(runtime, join(RuntimeProcess.root, "examples/client.ts"))
        if ("missing" in line) return
        const { code, output } = yield* runToEnd({ ...line, args: [...line.args, server.url] }, {})
        assert.strictEqual(code, 0, output)
        const lines = output.trim().split("\n")
        assert.strictEqual(lines[0], "Echo: hello", output)
        assert.match(lines[1]!, /^task \S+: TASK_STATE_SUBMITTED$/, output)
        assert.include(lines, "artifact: Chunk 3.", output)
        assert.strictEqual(lines.at(-1), "status: TASK_STATE_COMPLETED", output)
      }).pipe(Effect.scoped), 60_000)

    for (const binding of ["JSONRPC", "HTTP+JSON"]) {
      it.live(`a cancel and a typed error over ${binding}`, () =>
        Effect.gen(function*() {
          const server = yield* startDemo
          const line = RuntimeProcess.commandLine(runtime, join(import.meta.dirname, "fixtures/ClientOnRuntime.ts"))
          if ("missing" in line) return
          const { code, output } = yield* runToEnd(line, { A2A_URL: server.url, A2A_BINDING: binding })
          assert.strictEqual(code, 0, output)
          assert.deepStrictEqual(output.trim().split("\n"), [
            `binding: ${binding}`,
            "canceled: TASK_STATE_CANCELED",
            "missing: TaskNotFound"
          ])
        }).pipe(Effect.scoped), 60_000)
    }
  })
  if ("missing" in probe) console.log(probe.missing)
}
