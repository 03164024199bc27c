/**
 * `effect-a2a serve` starts itself again, in the same process, with V8's young generation bounded, its
 * allocation-site pretenuring off and its old generation's growth bounded (src/cli/Relaunch.ts): when it does, with which flags, and that it is the same
 * process afterwards, with the flags, once.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  HEAP_GROWTH,
  type Launch,
  NO_PRETENURING,
  relaunchArgs,
  SEMI_SPACE_MIB,
  serveFlags
} from "../../src/cli/Relaunch.ts"

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
  it("serve on a machine-sized heap: the three flags first, then Node's flags, the script and the command as given", () => {
    assert.deepStrictEqual(relaunchArgs(launch()), [
      "/usr/bin/node",
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      NO_PRETENURING,
      HEAP_GROWTH,
      "--enable-source-maps",
      "/app/bin/effect-a2a.js",
      "serve",
      "--port",
      "8080"
    ])
  })

  it("runs as it is: other commands, the flags already given or turned off", () => {
    assert.isUndefined(relaunchArgs(launch({ argv: ["/usr/bin/node", "/app/bin/effect-a2a.js", "send", "serve"] })))
    assert.isUndefined(
      relaunchArgs(
        launch({ execArgv: ["--max-semi-space-size=32", "--allocation-site-pretenuring", "--heap-growing-percent=50"] })
      )
    )
    assert.isUndefined(
      relaunchArgs(
        launch({
          env: {
            NODE_OPTIONS:
              "--max_semi_space_size=2 --trace-gc --no_allocation_site_pretenuring --heap_growing_percent=30"
          }
        })
      )
    )
    assert.isUndefined(
      relaunchArgs(
        launch({
          env: { A2A_BOUND_YOUNG_GENERATION: "false", A2A_NO_PRETENURING: "false", A2A_BOUND_HEAP_GROWTH: "false" }
        })
      )
    )
    // once started again with them
    assert.isUndefined(
      relaunchArgs(launch({ execArgv: [`--max-semi-space-size=${SEMI_SPACE_MIB}`, NO_PRETENURING, HEAP_GROWTH] }))
    )
  })

  it("adds only the flag not given nor turned off", () => {
    // what comes between the Node binary and the flags given
    const added = (overrides: Partial<Launch>) => {
      const given = launch(overrides)
      const args = relaunchArgs(given)
      return args?.slice(1, args.length - given.execArgv.length - (given.argv.length - 1))
    }
    assert.deepStrictEqual(added({ execArgv: ["--max-semi-space-size=32"] }), [NO_PRETENURING, HEAP_GROWTH])
    assert.deepStrictEqual(added({ env: { A2A_BOUND_YOUNG_GENERATION: "false" } }), [NO_PRETENURING, HEAP_GROWTH])
    assert.deepStrictEqual(added({ env: { NODE_OPTIONS: "--allocation-site-pretenuring" } }), [
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      HEAP_GROWTH
    ])
    assert.deepStrictEqual(added({ env: { A2A_NO_PRETENURING: "false" } }), [
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      HEAP_GROWTH
    ])
    assert.deepStrictEqual(added({ env: { A2A_BOUND_HEAP_GROWTH: "false" } }), [
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      NO_PRETENURING
    ])
    // a heap too small for the young generation's bound: pretenuring off only (V8 caps the growth there itself)
    assert.deepStrictEqual(added({ heapSizeLimit: 0.09 * GiB }), [NO_PRETENURING])
    // a container of 256 MiB: V8 would size 1 MiB semi-spaces, too few for a server under load; its growth is
    // already capped below 2x
    assert.deepStrictEqual(added({ heapSizeLimit: 0.25 * GiB }), [
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      NO_PRETENURING
    ])
  })
})

describe("serveFlags", () => {
  it("the flags serve starts itself with under a heap limit, as the benchmarks give them", () => {
    assert.deepStrictEqual(serveFlags(4 * GiB), [
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      NO_PRETENURING,
      HEAP_GROWTH
    ])
    assert.deepStrictEqual(serveFlags(0.25 * GiB), [`--max-semi-space-size=${SEMI_SPACE_MIB}`, NO_PRETENURING])
    assert.deepStrictEqual(serveFlags(0.09 * GiB), [NO_PRETENURING])
  })
})

describe.skipIf(process.platform === "win32")("relaunch", () => {
  it("replaces the process (same pid) with one that has the flags, once", () => {
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
    assert.deepStrictEqual(seen.execArgv, [`--max-semi-space-size=${SEMI_SPACE_MIB}`, NO_PRETENURING, HEAP_GROWTH])
    const asIs = run({
      A2A_BOUND_YOUNG_GENERATION: "false",
      A2A_NO_PRETENURING: "false",
      A2A_BOUND_HEAP_GROWTH: "false"
    })
    rmSync(dir, { recursive: true, force: true })
    assert.deepStrictEqual((JSON.parse(asIs.stdout) as { execArgv: Array<string> }).execArgv, [])
  })
})
