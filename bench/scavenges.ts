/**
 * `node bench/scavenges.ts [scenarios] [servers] [seconds]`: what each young-generation collection (a scavenge) costs
 * a server under load over HTTP, read from V8's own trace (`--trace-gc-nvp`) of the server process. The pause of a
 * scavenge is time every request in flight waits, so it sets the p99; it grows with what survives (what is still
 * reachable from the stack or from the old generation), and what survives twice is promoted, to be marked and
 * compacted later by a full GC.
 *
 * Per server: start, warm up, one full GC (so the measured state is a long-running server's: after a full GC every
 * collection made at start-up is in the old generation), then the scenario's load with the harness's settings. Reports
 * the scavenges' count, median and largest pause, median bytes survived, promoted and allocated between two, with
 * the load's req/s, p99 and the server's CPU per request. Defaults: rpc-message,rpc-task ours,sdk 6.
 *
 *   node bench/scavenges.ts rpc-message ours,sdk 6
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { BenchError } from "./BenchError.ts"
import { kib, median, scavengeOf } from "./GcTrace.ts"
import { scenarios } from "./Scenarios.ts"
import { type ServerKind, serverKinds, start } from "./ServerProcess.ts"

const [scenarioArg = "rpc-message,rpc-task", serverArg = "ours,sdk", secondsArg = "6"] = process.argv.slice(2)
const seconds = Number(secondsArg)

const measure = Effect.fnUntraced(function*(scenarioId: string, kind: ServerKind) {
  const scenario = scenarios.find((s) => s.id === scenarioId)
  if (scenario === undefined) return yield* new BenchError({ message: `no scenario ${scenarioId}` })
  const lines: Array<string> = []
  const server = yield* start(kind, { nodeOptions: ["--trace-gc-nvp"], output: (line) => lines.push(line) })
  const runner = yield* scenario.prepare(server)
  const settings = { connections: 32, durationSec: 2, idle: { streams: 0, parallel: 1 } }
  yield* runner(settings)
  yield* server.collectGarbage
  yield* Effect.sleep("500 millis")
  const from = lines.length
  const cpuBefore = yield* server.cpuMs
  const sample = yield* runner({ ...settings, durationSec: seconds })
  const cpuMs = (yield* server.cpuMs) - cpuBefore
  const scavenges = lines.slice(from).flatMap((line) => scavengeOf(line) ?? [])
  const pauses = scavenges.map((s) => s.pause)
  yield* Console.log(
    [
      `${scenarioId.padEnd(13)} ${kind.padEnd(5)}`,
      `${Math.round(sample.throughput)} req/s, p99 ${sample.p99Ms} ms, CPU ${
        (cpuMs * 1000 / sample.completed).toFixed(1)
      } µs/op`,
      `${scavenges.length} scavenges, pause median ${median(pauses).toFixed(2)} ms, max ${
        Math.max(...pauses).toFixed(2)
      } ms`,
      `survived ${kib(median(scavenges.map((s) => s.survived)))}, promoted ${
        kib(median(scavenges.map((s) => s.promoted)))
      }, allocated between ${kib(median(scavenges.map((s) => s.allocated)))}`
    ].join(" | ")
  )
}, Effect.scoped)

const program = Effect.gen(function*() {
  const kinds = yield* Effect.forEach(
    serverArg.split(","),
    (kind) =>
      Effect.fromNullishOr(serverKinds.find((k) => k === kind)).pipe(
        Effect.mapError(() => new BenchError({ message: `no server ${kind}` }))
      )
  )
  for (const scenarioId of scenarioArg.split(",")) {
    for (const kind of kinds) yield* measure(scenarioId, kind)
  }
})

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
