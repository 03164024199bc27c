/**
 * `effect-a2a serve` starts itself again, in the same process, with V8's young generation bounded (src/cli/Relaunch.ts):
 * when it does, and that it is the same process afterwards, with the flag, once.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Launch, relaunchArgs, SEMI_SPACE_MIB } from "../../src/cli/Relaunch.ts"

const GiB = 1024 * 1048576
const launch = (overrides: Partial<Launch> = {}): Launch => ({
  execPath: "/usr/bin/node",
  argv: ["/usr/bin/node", "/app/bin/effect-a2a.js", "serve", "--port", "8080"],
  execArgv: ["--enable-source-maps"],
  env: {},
  heapSizeLimit: 4 * GiB,
  ...overrides
})

describe("relaunchArgs", () => {
  it("serve on a machine-sized heap: the bound first, then Node's flags, the script and the command as given", () => {
    assert.deepStrictEqual(relaunchArgs(launch()), [
      "/usr/bin/node",
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      "--enable-source-maps",
      "/app/bin/effect-a2a.js",
      "serve",
      "--port",
      "8080"
    ])
  })

  it("runs as it is: other commands, a flag already given, the opt-out, a container-sized heap", () => {
    assert.isUndefined(relaunchArgs(launch({ argv: ["/usr/bin/node", "/app/bin/effect-a2a.js", "send", "serve"] })))
    assert.isUndefined(relaunchArgs(launch({ execArgv: ["--max-semi-space-size=32"] })))
    assert.isUndefined(relaunchArgs(launch({ env: { NODE_OPTIONS: "--max_semi_space_size=2 --trace-gc" } })))
    assert.isUndefined(relaunchArgs(launch({ env: { A2A_BOUND_YOUNG_GENERATION: "false" } })))
    assert.isUndefined(relaunchArgs(launch({ heapSizeLimit: 0.09 * GiB })))
    // a container of 256 MiB: V8 would size 1 MiB semi-spaces, too few for a server under load
    assert.isDefined(relaunchArgs(launch({ heapSizeLimit: 0.25 * GiB })))
  })
})

describe.skipIf(process.platform === "win32")("relaunch", () => {
  it("replaces the process (same pid) with one that has the bound, once", () => {
    const script = fileURLToPath(new URL("../../src/cli/Relaunch.ts", import.meta.url))
    // A stand-in for bin/effect-a2a.js: relaunch, then report what the process runs with.
    const dir = mkdtempSync(join(tmpdir(), "a2a-relaunch-"))
    const bin = join(dir, "bin.mjs")
    writeFileSync(
      bin,
      `const { relaunch } = await import(${JSON.stringify(script)}); relaunch(); ` +
        `console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv }))`
    )
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [bin, "serve"], {
        env: { ...process.env, NODE_OPTIONS: "", ...env },
        encoding: "utf8"
      })
    const relaunched = run({})
    assert.strictEqual(relaunched.status, 0, relaunched.stderr)
    const lines = relaunched.stdout.trim().split("\n")
    assert.lengthOf(lines, 1, relaunched.stdout)
    const seen = JSON.parse(lines[0]!) as { pid: number; execArgv: Array<string> }
    assert.strictEqual(seen.pid, relaunched.pid)
    assert.include(seen.execArgv, `--max-semi-space-size=${SEMI_SPACE_MIB}`)
    const asIs = run({ A2A_BOUND_YOUNG_GENERATION: "false" })
    rmSync(dir, { recursive: true, force: true })
    assert.deepStrictEqual((JSON.parse(asIs.stdout) as { execArgv: Array<string> }).execArgv, [])
  })
})
