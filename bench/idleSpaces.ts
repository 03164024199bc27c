/**
 * `node bench/idleSpaces.ts [--kind send|subscribe] [--servers ours,sdk,sse-floor] [--runs N]`: where the RSS of
 * idle streams goes. Runs the idle scenario of `npm run bench` (bench/IdleStreams.ts, same steps, same readings) on
 * a fresh server per run, and at each reading also asks the server (bench/heapSpaces.js, on SIGURG) where V8's heap
 * is: the physical size of each space, `external` and `arrayBuffers`; RSS split into anonymous and file-backed pages
 * (/proc/<pid>/status). It also traces V8's scavenges (`--trace-gc-nvp`) while the streams open: how many, what
 * survived them (what grows the young generation). Prints, per run, the growth per stream from `before` to `open`
 * (no forced GC) and to `openGc` (after one), by part:
 *
 * - new: the young generation's committed pages (new space and new large objects),
 * - old: old space, trusted space, map space (the live heap that was promoted, plus free room in its pages),
 * - code, lo (large objects, old and code),
 * - rest: RSS outside V8's heap (Node's native per-connection memory, malloc, buffers, pages of the binary).
 *
 * `--warm` opens and closes the same streams once before the measured run (what is compiled and grown once is
 * then out of the figures); `--node-flags "..."` passes V8/Node flags to the server (diagnostics only).
 *
 * `sse-floor` is a bare node:http server that holds one SSE response per stream (bench/servers/sse-floor.ts):
 * what Node alone costs per idle connection, measured the same way. Only `--kind send` applies to it.
 *
 *   node bench/idleSpaces.ts --kind send --servers ours,sse-floor --runs 3
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Deferred, Effect, FileSystem, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { BenchError } from "./BenchError.ts"
import { median, type Scavenge, scavengeOf } from "./GcTrace.ts"
import { type Reading, runIdle } from "./IdleStreams.ts"
import { type ServerKind, start } from "./ServerProcess.ts"

const reporter = pathToFileURL(Path.join(import.meta.dirname, "heapSpaces.js")).href
const HEAP_SPACES = "HEAP_SPACES "

const Space = Schema.Struct({ used: Schema.Number, physical: Schema.Number })
const HeapSpaces = Schema.fromJsonString(Schema.Struct({
  rss: Schema.Number,
  external: Schema.Number,
  arrayBuffers: Schema.Number,
  heapUsed: Schema.Number,
  spaces: Schema.Record(Schema.String, Space)
}))

interface Parts {
  readonly rss: number
  readonly anon: number
  readonly file: number
  readonly newGen: number
  readonly old: number
  readonly code: number
  readonly lo: number
  readonly rest: number
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
}

const partsOf = (heap: typeof HeapSpaces.Type, status: string): Parts => {
  const physical = (name: string) => heap.spaces[name]?.physical ?? 0
  const statusKb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN)
  const newGen = physical("new_space") + physical("new_large_object_space")
  const old = physical("old_space") + physical("trusted_space") + physical("shared_space") + physical("map_space")
  const code = physical("code_space")
  const lo = physical("large_object_space") + physical("code_large_object_space")
    + physical("trusted_large_object_space") + physical("shared_large_object_space")
  const v8 = Object.values(heap.spaces).reduce((sum, s) => sum + s.physical, 0)
  return {
    rss: heap.rss,
    anon: statusKb("RssAnon") * 1024,
    file: statusKb("RssFile") * 1024,
    newGen,
    old,
    code,
    lo,
    rest: heap.rss - v8,
    heapUsed: heap.heapUsed,
    external: heap.external,
    arrayBuffers: heap.arrayBuffers
  }
}

const columns = ["rss", "anon", "file", "newGen", "old", "code", "lo", "rest", "heapUsed", "external"] as const

const measure = Effect.fnUntraced(function*(
  kind: ServerKind,
  idleKind: "send" | "subscribe",
  streams: number,
  warm: boolean,
  flags: ReadonlyArray<string>
) {
  const fs = yield* FileSystem.FileSystem
  const lines: Array<string> = []
  let waiting: Deferred.Deferred<string> | undefined
  const server = yield* start(kind, {
    nodeOptions: ["--import", reporter, "--trace-gc-nvp", ...flags],
    releaseMemory: false,
    output: (line) => {
      if (line.startsWith(HEAP_SPACES) && waiting !== undefined) Deferred.doneUnsafe(waiting, Effect.succeed(line))
      else lines.push(line)
    }
  })
  // --warm: the same streams opened and closed once before, so that what the first burst compiles and grows is
  // already there (what a stream costs a server that has served streams before).
  if (warm) yield* runIdle(server, idleKind, { streams, parallel: 32 })
  const readings = new Map<Reading, Parts>()
  let openFrom = 0
  let openTo = 0
  const idle = yield* runIdle(server, idleKind, {
    streams,
    parallel: 32,
    atReading: (reading) =>
      Effect.gen(function*() {
        if (reading === "before") openFrom = lines.length
        if (reading === "open") openTo = lines.length
        const deferred = yield* Deferred.make<string>()
        waiting = deferred
        yield* Effect.try({
          try: () => process.kill(server.pid, "SIGURG"),
          catch: (cause) => new BenchError({ message: "cannot signal the server", cause })
        })
        const line = yield* Deferred.await(deferred).pipe(
          Effect.timeoutOrElse({
            duration: "10 seconds",
            orElse: () => Effect.fail(new BenchError({ message: "no heap report" }))
          })
        )
        const heap = yield* Schema.decodeEffect(HeapSpaces)(line.slice(HEAP_SPACES.length)).pipe(
          Effect.mapError((cause) => new BenchError({ message: `bad heap report: ${line}`, cause }))
        )
        const status = yield* fs.readFileString(`/proc/${server.pid}/status`).pipe(
          Effect.mapError((cause) => new BenchError({ message: "cannot read /proc status", cause }))
        )
        readings.set(reading, partsOf(heap, status))
        if (process.env.IDLE_SMAPS_DIR !== undefined) {
          const smaps = yield* fs.readFileString(`/proc/${server.pid}/smaps`).pipe(
            Effect.mapError((cause) => new BenchError({ message: "cannot read /proc smaps", cause }))
          )
          yield* fs.writeFileString(Path.join(process.env.IDLE_SMAPS_DIR, `${kind}-${reading}.smaps`), smaps).pipe(
            Effect.mapError((cause) => new BenchError({ message: "cannot write smaps", cause }))
          )
        }
      })
  })
  const scavenges: Array<Scavenge> = lines.slice(openFrom, openTo).flatMap((line) => scavengeOf(line) ?? [])
  return { idle, readings, scavenges }
}, Effect.scoped)

const kibPer = (bytes: number, n: number) => (bytes / 1024 / n).toFixed(1).padStart(6)
const mib = (bytes: number) => (bytes / 1048576).toFixed(1).padStart(6)

const main = Command.make("idleSpaces", {
  servers: Flag.String("servers").pipe(Flag.withDefault("ours,sdk,sse-floor")),
  streams: Flag.Int("streams").pipe(Flag.withDefault(1000)),
  runs: Flag.Int("runs").pipe(Flag.withDefault(1)),
  kind: Flag.Literals("kind", ["subscribe", "send"]).pipe(Flag.withDefault("send")),
  warm: Flag.Boolean("warm").pipe(Flag.withDefault(false)),
  flags: Flag.String("node-flags").pipe(Flag.withDefault(""))
}, ({ flags, kind: idleKind, runs, servers, streams, warm }) =>
  Effect.gen(function*() {
    const kinds = servers.split(",") as Array<ServerKind>
    yield* Console.log(
      `RSS and V8's spaces, growth per idle ${idleKind} stream in KiB from "before" (after a forced GC) to "open"`
        + ` (no forced GC) / "openGc" (after one); MiB at "before"`
    )
    yield* Console.log(
      `${"server".padEnd(10)} reading ${columns.map((c) => c.padStart(6)).join(" ")}  scavenges while opening`
    )
    for (let run = 0; run < runs; run++) {
      for (const kind of kinds) {
        const { idle, readings, scavenges } = yield* measure(
          kind,
          idleKind,
          streams,
          warm,
          flags.split(" ").filter((f) => f !== "")
        )
        const before = readings.get("before")
        if (before === undefined) return yield* new BenchError({ message: "no reading before" })
        yield* Console.log(
          `${kind.padEnd(10)} before  ${columns.map((c) => mib(before[c])).join(" ")}`
        )
        for (const reading of ["open", "openGc", "closedGc"] as const) {
          const at = readings.get(reading)
          if (at === undefined) continue
          const survived = scavenges.reduce((sum, s) => sum + s.survived, 0)
          const promoted = scavenges.reduce((sum, s) => sum + s.promoted, 0)
          yield* Console.log(
            `${kind.padEnd(10)} ${reading.padEnd(7)} ${
              columns.map((c) => kibPer(at[c] - before[c], idle.opened)).join(" ")
            }`
              + (reading === "open"
                ? `  ${scavenges.length} scavenges, survived ${kibPer(survived, idle.opened).trim()} KiB/stream`
                  + ` (promoted ${kibPer(promoted, idle.opened).trim()}), median pause ${
                    median(scavenges.map((s) => s.pause)).toFixed(1)
                  } ms`
                : "")
          )
        }
      }
    }
  }))

main.pipe(Command.run({ version: "0.1.0" }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
