/**
 * `effect-a2a serve` and the dev UI, as real child processes: on for the demo (its URL printed beside the card's),
 * off for `--agent` unless asked, `--ui` / `--no-ui` over A2A_DEV_UI over the default, and a bad A2A_DEV_UI is one
 * line listing the valid values.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const BIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))
const EXAMPLE = fileURLToPath(new URL("../../examples/echo-agent-module.ts", import.meta.url))

/** Runs `serve --memory --port 0` plus `args` until it listens; its base URL, whether it printed a dev UI URL, and
 * the status of GET /_dev. Killed when the scope closes. */
const serve = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [BIN, "serve", "--memory", "--port", "0", ...args], {
          env: { ...process.env, ...env },
          stdio: ["ignore", "pipe", "pipe"]
        })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
    )
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    for (;;) {
      const m = /listening on (http:\/\/\S+);/.exec(output)
      if (m !== null) {
        const base = m[1]!
        const status = yield* Effect.promise(() => fetch(`${base}/_dev`).then((r) => r.status))
        const printed = /Dev UI: (\S+)/.exec(output)?.[1]
        return { base, printed, status, exitCode: undefined, output }
      }
      if (child.exitCode !== null) {
        return {
          base: undefined,
          printed: undefined,
          status: undefined,
          exitCode: yield* Effect.promise(() => exited),
          output
        }
      }
      yield* Effect.sleep("20 millis")
    }
  })

describe("effect-a2a serve: the dev UI", () => {
  it.live("on for the demo, printed beside the card; off with --no-ui or A2A_DEV_UI=false", () =>
    Effect.gen(function*() {
      const [demo, noUi, envOff, flagOverEnv] = yield* Effect.all([
        serve([]),
        serve(["--no-ui"]),
        serve([], { A2A_DEV_UI: "false" }),
        serve(["--ui"], { A2A_DEV_UI: "off" })
      ], { concurrency: "unbounded" })
      assert.strictEqual(demo.printed, `${demo.base}/_dev`)
      assert.strictEqual(demo.status, 200)
      assert.deepStrictEqual([noUi.printed, noUi.status], [undefined, 404])
      assert.deepStrictEqual([envOff.printed, envOff.status], [undefined, 404])
      assert.deepStrictEqual([flagOverEnv.printed !== undefined, flagOverEnv.status], [true, 200])
    }).pipe(Effect.scoped))

  it.live("off for --agent unless --ui or A2A_DEV_UI turns it on", () =>
    Effect.gen(function*() {
      const [plain, flag, env] = yield* Effect.all([
        serve(["--agent", EXAMPLE]),
        serve(["--agent", EXAMPLE, "--ui"]),
        serve(["--agent", EXAMPLE], { A2A_DEV_UI: "yes" })
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual([plain.printed, plain.status], [undefined, 404])
      assert.deepStrictEqual([flag.printed, flag.status], [`${flag.base}/_dev`, 200])
      assert.deepStrictEqual([env.printed !== undefined, env.status], [true, 200])
    }).pipe(Effect.scoped))

  it.live("a bad A2A_DEV_UI: one line naming it and the valid values, exit 1", () =>
    Effect.gen(function*() {
      const bad = yield* serve([], { A2A_DEV_UI: "maybe" })
      assert.strictEqual(bad.exitCode, 1)
      assert.include(bad.output, `A2A_DEV_UI must be one of true, false, yes, no, on, off, 1, 0, got "maybe"`)
      assert.notMatch(bad.output, /\n\s+at |\.ts:\d+:\d+/)
    }).pipe(Effect.scoped))
})
