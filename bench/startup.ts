/**
 * `node bench/startup.ts`: resident memory after start, as an operator sees it (no forced GC), of
 * `effect-a2a serve` from the built package (`npm run build` first) and of the official SDK's bench server.
 * The SDK's server is a TypeScript file; Node's type stripping alone costs ~17 MiB, so it is also run as plain
 * JavaScript (types stripped ahead, into bench/results/js) for a like-for-like ratio. Each server runs
 * `ROUNDS` times in a fresh process on 127.0.0.1; the run with the median RSS is reported, with where V8's heap
 * is at that moment (bench/heapSpaces.js, loaded into each server): the young generation (new space: what V8
 * sized for the allocations of start-up and keeps committed), the old generation, code and large objects;
 * "rest" is RSS outside V8's heap (Node's binary and libraries, malloc). The Effect floor (bench/servers/effectFloor.js:
 * effect/cli, HttpRouter and NodeHttpServer serving one route) says how much of that any Effect server of this shape
 * pays before its own code.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { stripTypeScriptTypes } from "node:module"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { BenchError } from "./BenchError.ts"
import { readMemory } from "./ServerProcess.ts"

const ROUNDS = 3
// After the ready line, before RSS is read: past the collection our server runs once the first 2 s after its start
// were quiet (IdleMemoryRelease), so the figure is what an operator sees once it has settled.
const SETTLE = "5 seconds"
const root = Path.resolve(import.meta.dirname, "..")
const jsDir = Path.join(root, "bench", "results", "js")
const heapSpacesReporter = pathToFileURL(Path.join(root, "bench", "heapSpaces.js")).href

const Space = Schema.Struct({ used: Schema.Number, physical: Schema.Number })
/** The line bench/heapSpaces.js writes on SIGURG. */
const HeapSpaces = Schema.fromJsonString(Schema.Struct({
  rss: Schema.Number,
  external: Schema.Number,
  heapUsed: Schema.Number,
  spaces: Schema.Record(Schema.String, Space)
}))
type HeapSpaces = typeof HeapSpaces.Type
const HEAP_SPACES = "HEAP_SPACES "
const SDK_AS_JS = "@a2a-js/sdk server, plain JavaScript"

interface Sample {
  readonly rssKb: number
  readonly heap: HeapSpaces
}

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

/**
 * Starts the subject, waits for its ready line and SETTLE, reads its RSS in KiB and where its heap is, stops it
 * (the scope does).
 */
const measure = (subject: Subject) =>
  Effect.scoped(Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const handle = yield* spawner.spawn(
      ChildProcess.make(process.execPath, ["--import", heapSpacesReporter, ...subject.args], {
        cwd: root,
        env: { NODE_ENV: "production", ...subject.env },
        extendEnv: true,
        stdout: "pipe",
        stderr: "pipe",
        forceKillAfter: "5 seconds"
      })
    )
    const lines = yield* Stream.merge(handle.stdout, handle.stderr).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.toQueue({ capacity: "unbounded" })
    )
    const lineThat = (test: (line: string) => boolean, what: string) =>
      Queue.take(lines).pipe(
        Effect.repeat({ until: test }),
        Effect.timeoutOrElse({
          duration: "30 seconds",
          orElse: () => Effect.fail(new BenchError({ message: `${subject.label}: no ${what} within 30 s` }))
        }),
        Effect.catchTag(
          "Done",
          () => Effect.fail(new BenchError({ message: `${subject.label} exited before ${what}` }))
        )
      )
    yield* lineThat((line) => subject.ready.test(line), "listen line")
    yield* Effect.sleep(SETTLE)
    const { rssKb } = yield* readMemory(Number(handle.pid))
    yield* Effect.try({
      try: () => process.kill(Number(handle.pid), "SIGURG"),
      catch: (cause) => new BenchError({ message: `cannot signal ${subject.label}`, cause })
    })
    const line = yield* lineThat((line) => line.startsWith(HEAP_SPACES), "heap report")
    const heap = yield* Schema.decodeEffect(HeapSpaces)(line.slice(HEAP_SPACES.length)).pipe(
      Effect.mapError((cause) => new BenchError({ message: `bad heap report: ${line}`, cause }))
    )
    return { rssKb, heap } satisfies Sample
  }))

/** The sample with the median RSS (its heap figures are read at the same moment). */
const median = (samples: ReadonlyArray<Sample>): Sample => {
  const sorted = [...samples].sort((a, b) => a.rssKb - b.rssKb)
  return sorted[Math.floor(sorted.length / 2)]!
}

const MiB = (bytes: number) => (bytes / 1048576).toFixed(1)
const physical = (heap: HeapSpaces, ...names: ReadonlyArray<string>) =>
  names.reduce((sum, name) => sum + (heap.spaces[name]?.physical ?? 0), 0)

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
    {
      // An operator option, not a default: a young generation capped at 4 MiB per semi-space (Node's default is
      // sized from the machine's memory) costs throughput under load (bench/notes/2026-11-26-startup-memory.md).
      label: "effect-a2a serve, node --max-semi-space-size=4",
      args: ["--max-semi-space-size=4", bin, "serve", "--port", "0"],
      env: { A2A_DATA_DIR: dataDir },
      ready: /A2A server listening/
    },
    {
      // The floor: effect, the platform's HTTP server and effect/cli, no A2A code (bench/servers/effectFloor.js).
      label: "Effect floor: effect/cli + HttpRouter on NodeHttpServer, no A2A",
      args: [Path.join(root, "bench", "servers", "effectFloor.js"), "serve", "--port", "0"],
      ready: /floor server listening/
    },
    { label: SDK_AS_JS, args: [sdkJs], ready: /READY/ },
    {
      label: "@a2a-js/sdk server, bench/servers/sdk.ts (type stripping)",
      args: [Path.join(root, "bench", "servers", "sdk.ts")],
      ready: /READY/
    }
  ]
  const results: Array<{ readonly label: string; readonly sample: Sample }> = []
  for (const subject of subjects) {
    const samples: Array<Sample> = []
    for (let i = 0; i < ROUNDS; i++) samples.push(yield* measure(subject))
    results.push({ label: subject.label, sample: median(samples) })
  }
  const sdk = results.find((r) => r.label === SDK_AS_JS)!.sample.rssKb
  yield* Console.log(
    `RSS after start (median of ${ROUNDS}, ${SETTLE} after the listen line, no forced GC), MiB; V8 spaces: physical`
  )
  yield* Console.log(
    "| server | RSS | vs the SDK as JavaScript | young gen | old gen | code | large objects | heap used | rest |\n"
      + "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  )
  for (const { label, sample: { heap, rssKb } } of results) {
    const young = physical(heap, "new_space", "new_large_object_space")
    const old = physical(heap, "old_space", "trusted_space", "shared_space", "shared_trusted_space")
    const code = physical(heap, "code_space", "code_large_object_space")
    const large = physical(heap, "large_object_space", "trusted_large_object_space", "shared_large_object_space")
    const rss = rssKb * 1024
    yield* Console.log(
      `| ${label} | ${MiB(rss)} | x${(rssKb / sdk).toFixed(2)} | ${MiB(young)} | ${MiB(old)} | ${MiB(code)} | `
        + `${MiB(large)} | ${MiB(heap.heapUsed)} | ${MiB(rss - young - old - code - large)} |`
    )
  }
}).pipe(Effect.scoped)

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
