/**
 * `npm start`, then SIGTERM to npm (what a process manager or Ctrl-C in some terminals does): the server goes
 * too, instead of living on as an orphan that holds the port.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))

const listening = (url: string) =>
  Effect.promise(() => fetch(`${url}/.well-known/agent-card.json`).then(() => true, () => false))

describe.skipIf(process.platform === "win32")("npm start", () => {
  it.live("SIGTERM to npm stops the server it started", () =>
    Effect.gen(function*() {
      const npm = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn("npm", ["start", "--silent"], {
            cwd: ROOT,
            env: { ...process.env, PORT: "0", A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-npm-start-")) },
            stdio: ["ignore", "pipe", "pipe"]
          })
        ),
        (npm) => Effect.sync(() => npm.exitCode === null && npm.kill("SIGKILL"))
      )
      let output = ""
      npm.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      npm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
      let url: string | undefined
      for (let i = 0; i < 1500 && url === undefined; i++) {
        url = /listening on (http:\/\/\S+);/.exec(output)?.[1]
        if (url === undefined) yield* Effect.sleep("20 millis")
      }
      assert.isDefined(url, output)
      assert.isTrue(yield* listening(url!))
      npm.kill("SIGTERM")
      let stopped = false
      for (let i = 0; i < 250 && !stopped; i++) {
        stopped = !(yield* listening(url!))
        if (!stopped) yield* Effect.sleep("20 millis")
      }
      assert.isTrue(stopped, `the server still answers at ${url} after npm was stopped\n${output}`)
    }).pipe(Effect.scoped), 40_000)
})
