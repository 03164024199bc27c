/**
 * `node bench/startup.ts`: resident memory after start, as an operator sees it (no forced GC), of
 * `effect-a2a serve` from the built package (`npm run build` first) and of the official SDK's bench server.
 * The SDK's server is a TypeScript file; Node's type stripping alone costs ~17 MiB, so it is also run as plain
 * JavaScript (types stripped ahead, into bench/results/js) for a like-for-like ratio. Each server runs
 * `ROUNDS` times in a fresh process on 127.0.0.1; the median is reported.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import { stripTypeScriptTypes } from "node:module"
import * as Path from "node:path"
import { BenchError } from "./BenchError.ts"
import { readMemory } from "./ServerProcess.ts"

const ROUNDS = 3
const SETTLE = "2 seconds"
const root = Path.resolve(import.meta.dirname, "..")
const jsDir = Path.join(root, "bench", "results", "js")

interface Subject {
  readonly label: string
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
  /** A line on stdout or stderr that says the server listens. */
  readonly ready: RegExp
}

/** The SDK's bench server and what it imports from bench/, with the types stripped ahead of time. */
const sdkAsJavaScript = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  for (const file of ["servers/sdk.ts", "servers/lifecycle.ts", "TrivialAgent.ts"]) {
    const source = yield* fs.readFileString(Path.join(root, "bench", file))
    const js = stripTypeScriptTypes(source).replace(/(from\s+"\.{1,2}\/[^"]+)\.ts"/g, "$1.js\"")
    const target = Path.join(jsDir, file.replace(/\.ts$/, ".js"))
    yield* fs.makeDirectory(Path.dirname(target), { recursive: true })
    yield* fs.writeFileString(target, js)
  }
  return Path.join(jsDir, "servers", "sdk.js")
})

/** Starts the subject, waits for its ready line and SETTLE, reads its RSS in KiB, stops it (the scope does). */
const measure = (subject: Subject) =>
  Effect.scoped(Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const handle = yield* spawner.spawn(
      ChildProcess.make(process.execPath, subject.args, {
        cwd: root,
        env: { NODE_ENV: "production", ...subject.env },
        extendEnv: true,
        stdout: "pipe",
        stderr: "pipe",
        forceKillAfter: "5 seconds"
      })
    )
    yield* Stream.merge(handle.stdout, handle.stderr).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.takeUntil((line) => subject.ready.test(line)),
      Stream.runDrain,
      Effect.timeoutOrElse({
        duration: "30 seconds",
        orElse: () => Effect.fail(new BenchError({ message: `${subject.label} did not start within 30 s` }))
      })
    )
    yield* Effect.sleep(SETTLE)
    const { rssKb } = yield* readMemory(Number(handle.pid))
    return rssKb
  }))

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const program = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  if (!(yield* fs.exists(Path.join(root, "dist", "cli", "main.js")))) {
    return yield* new BenchError({ message: "no dist/: run npm run build first" })
  }
  const dataDir = yield* fs.makeTempDirectoryScoped()
  const sdkJs = yield* sdkAsJavaScript
  const bin = Path.join(root, "bin", "effect-a2a.js")
  const subjects: ReadonlyArray<Subject> = [
    {
      label: "effect-a2a serve (SQLite, the default)",
      args: [bin, "serve", "--port", "0"],
      env: { A2A_DATA_DIR: dataDir },
      ready: /A2A server listening/
    },
    {
      label: "effect-a2a serve --memory",
      args: [bin, "serve", "--memory", "--port", "0"],
      ready: /A2A server listening/
    },
    { label: "@a2a-js/sdk server, plain JavaScript", args: [sdkJs], ready: /READY/ },
    {
      label: "@a2a-js/sdk server, bench/servers/sdk.ts (type stripping)",
      args: [Path.join(root, "bench", "servers", "sdk.ts")],
      ready: /READY/
    }
  ]
  const results: Array<{ readonly label: string; readonly mib: number }> = []
  for (const subject of subjects) {
    const samples: Array<number> = []
    for (let i = 0; i < ROUNDS; i++) samples.push(yield* measure(subject))
    results.push({ label: subject.label, mib: median(samples) / 1024 })
  }
  const sdk = results[2]!.mib
  yield* Console.log(`RSS after start (median of ${ROUNDS}, ${SETTLE} after the listen line, no forced GC)`)
  yield* Console.log("| server | MiB | vs the SDK as JavaScript |\n| --- | --- | --- |")
  for (const r of results) yield* Console.log(`| ${r.label} | ${r.mib.toFixed(0)} | x${(r.mib / sdk).toFixed(2)} |`)
}).pipe(Effect.scoped)

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
