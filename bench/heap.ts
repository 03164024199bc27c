/**
 * `node bench/heap.ts`: what one idle SubscribeToTask stream costs in each server's JS heap, by
 * constructor. Runs the idle-subscribe scenario on a fresh server with a heap snapshot at both
 * RSS readings (before and after opening the streams) and prints the growth per stream. Snapshots
 * stay in bench/results/heap/<time>/ for Chrome DevTools.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, FileSystem, Schedule, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as Path from "node:path"
import { BenchError } from "./BenchError.ts"
import { growth, readTotals } from "./HeapSnapshot.ts"
import { runIdle } from "./IdleSubscribers.ts"
import { call } from "./Requests.ts"
import { type BenchServer, serverLabel, start } from "./ServerProcess.ts"

const SNAPSHOT_SIGNAL = "SIGUSR1"

/** Asks the server for a snapshot; V8 writes it on the main thread, so once the server answers again it is done. */
const snapshot = (server: BenchServer, dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const count = (yield* fs.readDirectory(dir)).length
    yield* Effect.try({
      try: () => process.kill(server.pid, SNAPSHOT_SIGNAL),
      catch: (cause) => new BenchError({ message: "cannot signal the server", cause })
    })
    yield* fs.readDirectory(dir).pipe(
      Effect.filterOrFail((files) => files.length > count, () => new BenchError({ message: "no snapshot yet" })),
      Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 300 })
    )
    // A keep-alive connection may have timed out while the server was busy writing: retry once or twice.
    yield* call(Schema.Unknown, server.endpoints.card, { method: "GET" }).pipe(Effect.retry({ times: 3 }))
  }).pipe(Effect.mapError((cause) => new BenchError({ message: "heap snapshot failed", cause })))

const measure = Effect.fnUntraced(function*(kind: "ours" | "sdk", streams: number, root: string) {
  const fs = yield* FileSystem.FileSystem
  const dir = Path.join(root, kind)
  yield* fs.makeDirectory(dir, { recursive: true })
  const server = yield* start(kind, {
    nodeOptions: [`--heapsnapshot-signal=${SNAPSHOT_SIGNAL}`, `--diagnostic-dir=${dir}`]
  })
  const idle = yield* runIdle(server, {
    streams,
    parallel: 32,
    atReading: () => snapshot(server, dir).pipe(Effect.provideService(FileSystem.FileSystem, fs))
  })
  const files = (yield* fs.readDirectory(dir)).filter((f) => f.endsWith(".heapsnapshot")).sort()
  const [first, second] = files
  if (first === undefined || second === undefined) {
    return yield* new BenchError({ message: `snapshots missing in ${dir}` })
  }
  const before = yield* readTotals(Path.join(dir, first))
  const after = yield* readTotals(Path.join(dir, second))
  const perStreamKiB = (after.bytes - before.bytes) / 1024 / idle.opened
  yield* Console.log(
    `\n## ${serverLabel[kind]}: ${idle.opened} idle streams, JS heap ${(before.bytes / 1048576).toFixed(1)} -> `
      + `${(after.bytes / 1048576).toFixed(1)} MiB, ${perStreamKiB.toFixed(1)} KiB per stream`
  )
  for (const g of growth(before, after, idle.opened, 25)) {
    yield* Console.log(
      `  ${(g.bytesPerItem / 1024).toFixed(2).padStart(7)} KiB  ${
        g.countPerItem.toFixed(1).padStart(6)
      } objects  ${g.kind}`
    )
  }
}, Effect.scoped)

const main = Command.make("heap", {
  servers: Flag.String("servers").pipe(Flag.withDefault("ours,sdk"), Flag.withDescription("ours, sdk or both")),
  streams: Flag.Int("streams").pipe(Flag.withDefault(1000), Flag.withDescription("Idle streams to open"))
}, ({ servers, streams }) =>
  Effect.gen(function*() {
    const root = Path.join(import.meta.dirname, "results", "heap", new Date().toISOString().replace(/[:.]/g, "-"))
    for (const kind of (["ours", "sdk"] as const).filter((k) => servers.split(",").includes(k))) {
      yield* measure(kind, streams, root)
    }
    yield* Console.log(`\nSnapshots: ${Path.relative(process.cwd(), root)}`)
  }))

main.pipe(Command.run({ version: "0.1.0" }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
