/**
 * examples/runtimes/worker.ts on workerd, Cloudflare Workers' runtime (the workerd devDependency), without
 * nodejs_compat: bundled with esbuild as wrangler would, served on 127.0.0.1, and driven by the official SDK's
 * client over JSON-RPC and REST (SdkScenarios). Skips with one line when workerd is not installed.
 */
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { build } from "esbuild"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root } from "../fixtures/RuntimeProcess.ts"
import * as SdkScenarios from "./SdkScenarios.ts"

const workerd = join(root, "node_modules", ".bin", "workerd")
if (!existsSync(workerd)) {
  console.log("workerd is not installed (the workerd devDependency ships it): skipping its tests")
}

const freePort = Effect.callback<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

const config = (port: number) =>
  `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ]
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01"
);
`

/** workerd serving the bundled worker; the base URL once the card answers. */
const serve = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-workerd-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  yield* Effect.promise(() =>
    build({
      entryPoints: [join(root, "examples/runtimes/worker.ts")],
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      conditions: ["workerd", "worker", "browser"],
      tsconfig: join(root, "tsconfig.json"),
      outfile: join(dir, "worker.js"),
      logLevel: "silent"
    })
  )
  const port = yield* freePort
  writeFileSync(join(dir, "config.capnp"), config(port))
  let output = ""
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(workerd, ["serve", "config.capnp"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      return child
    }),
    (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  )
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 500; i++) {
    const ok = yield* Effect.promise(() => fetch(`${url}/.well-known/agent-card.json`).then((r) => r.ok, () => false))
    if (ok) return url
    yield* Effect.sleep("20 millis")
  }
  return yield* Effect.die(new Error(`workerd did not answer: ${output}`))
})

describe.skipIf(!existsSync(workerd))("worker.ts on workerd (Cloudflare Workers' runtime, no nodejs_compat)", () => {
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    it.live(
      `the official SDK's client over ${binding}: card, send, stream, cancel, a client gone mid-stream`,
      () =>
        Effect.gen(function*() {
          const url = yield* serve
          yield* SdkScenarios.run(url, binding)
        }).pipe(Effect.scoped),
      60_000
    )
  }
})
