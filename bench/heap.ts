/**
 * `node bench/heap.ts [--kind subscribe|send]`: what one idle stream (SubscribeToTask, or SendStreamingMessage
 * whose agent waits) costs in each server's JS heap, by constructor. Runs the idle scenario on a fresh server with a
 * heap snapshot before opening the streams, with them open and after the clients left (each after a GC, as V8 takes
 * snapshots), and prints the growth per stream and what is left of it. Snapshots stay in bench/results/heap/<time>/ for Chrome DevTools.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, FileSystem, Schedule } from "effect"
import { Command, Flag } from "effect/cli"
import { identity } from "effect/Function"
import * as Path from "node:path"
import { summarise } from "./AllocationProfile.ts"
import { BenchError } from "./BenchError.ts"
import { growth, readTotals, snapshot, SNAPSHOT_SIGNAL } from "./HeapSnapshot.ts"
import { type IdleKind, runIdle } from "./IdleStreams.ts"
import { serverLabel, start } from "./ServerProcess.ts"

const measure = Effect.fnUntraced(function*(kind: "ours" | "sdk", idleKind: IdleKind, streams: number, root: string) {
  const fs = yield* FileSystem.FileSystem
  const dir = Path.join(root, kind)
  yield* fs.makeDirectory(dir, { recursive: true })
  const server = yield* start(kind, {
    nodeOptions: [`--heapsnapshot-signal=${SNAPSHOT_SIGNAL}`, `--diagnostic-dir=${dir}`],
    releaseMemory: false
  })
  const idle = yield* runIdle(server, idleKind, {
    streams,
    parallel: 32,
    atReading: (reading) =>
      reading === "before" || reading === "openGc" || reading === "closedGc"
        ? snapshot(server, dir).pipe(Effect.provideService(FileSystem.FileSystem, fs))
        : Effect.void
  })
  const files = (yield* fs.readDirectory(dir)).filter((f) => f.endsWith(".heapsnapshot")).sort()
  const [first, second, third] = files
  if (first === undefined || second === undefined || third === undefined) {
    return yield* new BenchError({ message: `snapshots missing in ${dir}` })
  }
  const before = yield* readTotals(Path.join(dir, first))
  const after = yield* readTotals(Path.join(dir, second))
  const closed = yield* readTotals(Path.join(dir, third))
  const perStreamKiB = (after.bytes - before.bytes) / 1024 / idle.opened
  yield* Console.log(
    `\n## ${serverLabel[kind]}: ${idle.opened} idle ${idleKind} streams, JS heap ${
      (before.bytes / 1048576).toFixed(1)
    } -> `
      + `${(after.bytes / 1048576).toFixed(1)} MiB, ${perStreamKiB.toFixed(1)} KiB per stream`
  )
  yield* Console.log(
    `  after the clients left${idleKind === "send" ? " (and the tasks were canceled)" : ""}: JS heap `
      + `${(closed.bytes / 1048576).toFixed(1)} MiB, ${
        ((closed.bytes - before.bytes) / 1024 / idle.opened).toFixed(1)
      } KiB per stream above the start`
  )
  for (const g of growth(before, after, idle.opened, 25)) {
    yield* Console.log(
      `  ${(g.bytesPerItem / 1024).toFixed(2).padStart(7)} KiB  ${
        g.countPerItem.toFixed(1).padStart(6)
      } objects  ${g.kind}`
    )
  }
}, Effect.scoped)

/**
 * `--allocations`: instead of snapshots, V8's sampling heap profiler (garbage counted) from the first reading to
 * the second: what opening the streams allocated, per stream, by file and function.
 */
const measureAllocations = Effect.fnUntraced(
  function*(kind: "ours" | "sdk", idleKind: IdleKind, streams: number, root: string) {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(root, { recursive: true })
    const file = Path.join(root, `${kind}-${idleKind}.heapprofile`)
    const server = yield* start(kind, { allocationProfile: file, releaseMemory: false })
    const idle = yield* runIdle(server, idleKind, {
      streams,
      parallel: 32,
      atReading: (reading) => reading === "before" || reading === "open" ? server.toggleAllocationProfile : Effect.void
    })
    yield* fs.exists(file).pipe(
      Effect.filterOrFail(identity, () => new BenchError({ message: `no allocation profile in ${file}` })),
      Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 50 }),
      Effect.mapError((cause) => new BenchError({ message: "allocation profile missing", cause }))
    )
    const summary = yield* summarise(file, idle.opened, 25)
    const kib = (bytes: number) => (bytes / 1024).toFixed(2).padStart(7)
    yield* Console.log(
      `\n## ${serverLabel[kind]}: ${idle.opened} idle ${idleKind} streams opened, `
        + `${kib(summary.totalBytes).trim()} KiB allocated per stream (sampled, garbage included)`
    )
    for (
      const [title, rows] of [
        ["by file", summary.byFile],
        ["by function (self)", summary.bySelf],
        ["our functions (src/, inclusive)", summary.oursInclusive]
      ] as const
    ) {
      yield* Console.log(`  ${title}`)
      for (const [where, bytes] of rows) yield* Console.log(`  ${kib(bytes)} KiB  ${where}`)
    }
  },
  Effect.scoped
)

const main = Command.make("heap", {
  servers: Flag.String("servers").pipe(Flag.withDefault("ours,sdk"), Flag.withDescription("ours, sdk or both")),
  streams: Flag.Int("streams").pipe(Flag.withDefault(1000), Flag.withDescription("Idle streams to open")),
  kind: Flag.Literals("kind", ["subscribe", "send"]).pipe(
    Flag.withDefault("subscribe"),
    Flag.withDescription("subscribe: SubscribeToTask on waiting tasks; send: SendStreamingMessage that waits")
  ),
  allocations: Flag.Boolean("allocations").pipe(
    Flag.withDescription("Sample what opening the streams allocates (garbage included) instead of snapshots"),
    Flag.withDefault(false)
  )
}, ({ allocations, kind: idleKind, servers, streams }) =>
  Effect.gen(function*() {
    const root = Path.join(import.meta.dirname, "results", "heap", new Date().toISOString().replace(/[:.]/g, "-"))
    for (const kind of (["ours", "sdk"] as const).filter((k) => servers.split(",").includes(k))) {
      yield* (allocations ? measureAllocations : measure)(kind, idleKind, streams, root)
    }
    yield* Console.log(`\n${allocations ? "Profiles" : "Snapshots"}: ${Path.relative(process.cwd(), root)}`)
  }))

main.pipe(Command.run({ version: "0.1.0" }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
