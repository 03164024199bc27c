/**
 * `node bench/allocPerRequest.ts <scenario> <seconds> <rounds> [rows]`: what our server allocates per request, garbage
 * included (V8's sampling heap profiler, every ~1 KiB), over HTTP with 50 connections: bytes per request in all and by
 * our own functions themselves (src/), then the top rows by file, by function (self), by our functions (inclusive)
 * and at the innermost of ours on each allocation's stack. Each run is a fresh server: start, warm up, profiled load.
 * Two checkouts are compared by alternating their runs. The per-file figures hardly move with the machine's load; the
 * total moves by a few KB with the req/s the load allowed (Node's and Effect's per-tick objects are shared by fewer
 * requests when fewer come at once). `ALLOC_KEEP=1` keeps the profile (`alloc-<pid>-<round>.heapprofile` in the
 * temporary directory) for Chrome DevTools.
 *
 *   node bench/allocPerRequest.ts rpc-message 4 2 15
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, FileSystem, Schedule } from "effect"
import * as Os from "node:os"
import * as Path from "node:path"
import { summarise } from "./AllocationProfile.ts"
import { BenchError } from "./BenchError.ts"
import { scenarios } from "./Scenarios.ts"
import { start } from "./ServerProcess.ts"

const [scenarioId = "rpc-message", secondsArg = "4", roundsArg = "1", rowsArg = "0"] = process.argv.slice(2)

const measure = Effect.fnUntraced(function*(round: number) {
  const scenario = scenarios.find((s) => s.id === scenarioId)
  if (scenario === undefined) return yield* new BenchError({ message: `no scenario ${scenarioId}` })
  const fs = yield* FileSystem.FileSystem
  const file = Path.join(Os.tmpdir(), `alloc-${process.pid}-${round}.heapprofile`)
  const server = yield* start("ours", { allocationProfile: file, releaseMemory: false })
  const runner = yield* scenario.prepare(server)
  const settings = { connections: 50, durationSec: 2, idle: { streams: 0, parallel: 1 } }
  yield* runner(settings)
  yield* server.toggleAllocationProfile
  const sample = yield* runner({ ...settings, durationSec: Number(secondsArg) })
  yield* server.toggleAllocationProfile
  // The profile is written once the server handles the second signal: read it once it is whole.
  const summary = yield* summarise(file, sample.completed, Number(rowsArg)).pipe(
    Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 50 })
  )
  if (process.env.ALLOC_KEEP !== "1") yield* fs.remove(file)
  yield* Console.log(
    `${scenarioId} round ${round}: ${summary.totalBytes.toFixed(0)} B per request (src/ itself ${
      summary.oursSelfBytes.toFixed(0)
    } B) over ${sample.completed} requests`
      + ` (${sample.throughput.toFixed(0)} req/s, errors ${sample.errors})`
  )
  for (
    const [title, rows] of [
      ["by file", summary.byFile],
      ["by function (self)", summary.bySelf],
      ["our functions (src/, inclusive)", summary.oursInclusive],
      ["at our innermost function (src/)", summary.byOurFrame]
    ] as const
  ) {
    if (rows.length === 0) continue
    yield* Console.log(`  ${title}`)
    for (const [where, bytes] of rows) yield* Console.log(`  ${bytes.toFixed(0).padStart(7)} B  ${where}`)
  }
}, Effect.scoped)

const program = Effect.gen(function*() {
  for (let round = 1; round <= Number(roundsArg); round++) yield* measure(round)
})

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
