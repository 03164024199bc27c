/**
 * `node bench/startHeap.ts [servers] [top] [dir]`: what a server holds live once started, before any request: a heap
 * snapshot of the idle server (V8 takes it after a full GC), by constructor (objects, closures) or node type (code,
 * strings, arrays...), largest first. What is live at start is marked by every full GC for as long as the server runs,
 * and is room a container's heap limit does not leave to requests. With `dir`, the snapshots are kept there (as
 * <server>.heapsnapshot, for Chrome DevTools). Defaults: ours,sdk 25.
 *
 *   node bench/startHeap.ts ours,sdk 25
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, FileSystem, Schedule } from "effect"
import { BenchError } from "./BenchError.ts"
import { readTotals, snapshot, SNAPSHOT_SIGNAL } from "./HeapSnapshot.ts"
import { type ServerKind, serverKinds, start } from "./ServerProcess.ts"

const [serverArg = "ours,sdk", topArg = "25", keep] = process.argv.slice(2)

const measure = Effect.fnUntraced(function*(kind: ServerKind) {
  const fs = yield* FileSystem.FileSystem
  const dir = yield* fs.makeTempDirectoryScoped()
  const server = yield* start(kind, {
    nodeOptions: [`--heapsnapshot-signal=${SNAPSHOT_SIGNAL}`, `--diagnostic-dir=${dir}`],
    releaseMemory: false
  })
  yield* Effect.sleep("1 second")
  yield* snapshot(server, dir)
  const file = (yield* fs.readDirectory(dir)).find((f) => f.endsWith(".heapsnapshot"))
  if (file === undefined) return yield* new BenchError({ message: `no snapshot in ${dir}` })
  // Retried: the file may still be being flushed when the server answers.
  const totals = yield* readTotals(`${dir}/${file}`).pipe(
    Effect.retry({ schedule: Schedule.spaced("500 millis"), times: 20 })
  )
  if (keep !== undefined) yield* fs.copyFile(`${dir}/${file}`, `${keep}/${kind}.heapsnapshot`)
  const mb = (bytes: number) => (bytes / 1048576).toFixed(2).padStart(7)
  yield* Console.log(`${kind}: ${mb(totals.bytes).trim()} MiB live after start`)
  const rows = [...totals.byKind].sort(([, a], [, b]) => b.bytes - a.bytes).slice(0, Number(topArg))
  for (const [name, bucket] of rows) {
    yield* Console.log(`  ${mb(bucket.bytes)} MiB ${String(bucket.count).padStart(8)}  ${name}`)
  }
}, Effect.scoped)

const program = Effect.gen(function*() {
  for (const name of serverArg.split(",")) {
    const kind = serverKinds.find((k) => k === name)
    if (kind === undefined) return yield* new BenchError({ message: `no server ${name}` })
    yield* measure(kind)
  }
})

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
