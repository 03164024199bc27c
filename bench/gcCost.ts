/**
 * `node bench/gcCost.ts <scenario> <seconds> <rounds> <variant>...`: what the garbage collector costs a server per
 * request under load over HTTP, from V8's own trace (`--trace-gc-nvp`) of the server process: figures that depend
 * on the requests served, not on how fast a loaded machine let it serve them. Per 100,000 requests: the number and
 * total pause of scavenges and of mark-compacts, the bytes scavenges promoted, and the old generation's growth
 * (promoted plus what V8 allocated there directly: pretenured objects); with the load's req/s, p99 and CPU per
 * request, which do depend on the machine.
 *
 * A variant is a label, then its settings separated by spaces: Node options for the server (after the ones
 * `bench/ServerProcess.ts` gives ours as `effect-a2a serve` runs: `--max-semi-space-size=8
 * --no-allocation-site-pretenuring`; `--allocation-site-pretenuring` gives V8's default back), `limit=<MiB>` for a
 * container's memory (`--memory-limit` of the bench), `server=<kind>` (default ours), `rewarm=<seconds>` (default 2),
 * `gc=0` (no full GC: the load follows the warm-ups as in the bench).
 * Variants run one after the other, `rounds` times over (alternated), each in a fresh server: start, warm up, a full
 * GC, warm up again for `rewarm` seconds, then the measured load with 50 connections. The second warm-up is there
 * because the full GC, made while no request is alive, deoptimizes much of the request path (V8 drops optimized code
 * whose embedded objects died: "embedded weak objects cleared", 13 to 100 functions from run to run); without it the
 * load pays for optimizing them again, by a varying amount (bench/notes/2026-11-27-gettask-gc.md); `rewarm=0` measures
 * that as before. The CPU per request is given as user and system time, and, pinned, with the share of the server's
 * CPU that other processes took meanwhile (the load it was measured under). `GC_COST_PIN=1` pins the server to CPU 0
 * and the harness to the others, as `--pin`.
 * `GC_COST_TRACE=<prefix>` appends each variant's trace lines of the load to `<prefix>-<label>.txt`, for V8's fields this
 * does not sum (the young generation's capacity, the allocation limits, each phase of a scavenge).
 * `GC_COST_LOG=<prefix>` writes everything else each server printed (e.g. `--trace-opt --trace-deopt` in a variant)
 * to `<prefix>-<label>-<n>.txt`, and `GC_COST_PROFILE=<prefix>` a CPU profile of each load to
 * `<prefix>-<label>-<n>.cpuprofile` (`n` counts the runs of a variant from 1): to tell what differs between servers.
 *
 *   node bench/gcCost.ts rpc-message 6 2 "as-serve" "256MiB limit=256"
 *   node bench/gcCost.ts rpc-message 6 3 "as-serve" "pretenuring --allocation-site-pretenuring"
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Os from "node:os"
import { BenchError } from "./BenchError.ts"
import { type Collection, collectionOf, median } from "./GcTrace.ts"
import { scenarios } from "./Scenarios.ts"
import { pinHarness, SERVER_CPUS, type ServerKind, serverKinds, start } from "./ServerProcess.ts"

const [scenarioId = "rpc-message", secondsArg = "6", roundsArg = "2", ...variantArgs] = process.argv.slice(2)
const pin = process.env.GC_COST_PIN === "1"
const traceFile = process.env.GC_COST_TRACE
const logFile = process.env.GC_COST_LOG
const profileFile = process.env.GC_COST_PROFILE

interface Variant {
  readonly label: string
  readonly kind: ServerKind
  readonly nodeOptions: ReadonlyArray<string>
  readonly memoryLimitMiB: number | undefined
  readonly rewarmSec: number
  readonly fullGc: boolean
}

const variantOf = (spec: string): Effect.Effect<Variant, BenchError> => {
  const [label = spec, ...settings] = spec.split(/\s+/).filter((s) => s !== "")
  const value = (key: string) => settings.find((s) => s.startsWith(`${key}=`))?.slice(key.length + 1)
  const kind = serverKinds.find((k) => k === (value("server") ?? "ours"))
  const limit = value("limit")
  return kind === undefined
    ? Effect.fail(new BenchError({ message: `no server in ${spec}` }))
    : Effect.succeed({
      label,
      kind,
      nodeOptions: settings.filter((s) => s.startsWith("-")),
      memoryLimitMiB: limit === undefined ? undefined : Number(limit),
      rewarmSec: Number(value("rewarm") ?? "2"),
      fullGc: value("gc") !== "0"
    })
}

/** The trace's collections during the load, per 100,000 requests. */
const per100k = (
  before: Collection | undefined,
  collections: ReadonlyArray<Collection>,
  requests: number
) => {
  const scale = 100_000 / requests
  const scavenges = collections.filter((c) => c.kind === "scavenge")
  const fulls = collections.filter((c) => c.kind === "mark-compact")
  // The old generation's growth between two collections is seen at a scavenge (which does not shrink it): its
  // objects after it, minus those after the collection before it. A mark-compact's interval is not counted (it
  // frees old objects), so this is a lower bound when there are mark-compacts.
  let oldGrowth = 0
  let previous = before
  for (const c of collections) {
    if (c.kind === "scavenge" && previous !== undefined) oldGrowth += c.oldAfter - previous.oldAfter
    previous = c
  }
  const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)
  return {
    scavenges: scavenges.length * scale,
    scavengeMs: sum(scavenges.map((s) => s.pause)) * scale,
    scavengeMedianMs: median(scavenges.map((s) => s.pause)),
    fulls: fulls.length * scale,
    fullMs: sum(fulls.map((s) => s.pause)) * scale,
    promotedMB: sum(scavenges.map((s) => s.promoted)) * scale / 1e6,
    oldGrowthMB: oldGrowth * scale / 1e6
  }
}

/** The server's CPU's busy and stolen time so far, ms (Linux /proc/stat, in USER_HZ ticks of 10 ms). */
const serverCpuTimes = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const stat = yield* fs.readFileString("/proc/stat").pipe(
    Effect.mapError((cause) => new BenchError({ message: "cannot read /proc/stat", cause }))
  )
  const line = stat.split("\n").find((l) => l.startsWith(`cpu${SERVER_CPUS} `)) ?? ""
  // user nice system idle iowait irq softirq steal
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.split(/\s+/).slice(1).map(Number)
  return { busyMs: (user + nice + system + irq + softirq) * 10, stealMs: steal * 10 }
})

const measure = Effect.fnUntraced(function*(variant: Variant, run: number) {
  const scenario = scenarios.find((s) => s.id === scenarioId)
  if (scenario === undefined) return yield* new BenchError({ message: `no scenario ${scenarioId}` })
  const lines: Array<string> = []
  const server = yield* start(variant.kind, {
    nodeOptions: ["--trace-gc-nvp", ...variant.nodeOptions],
    memoryLimitMiB: variant.memoryLimitMiB,
    cpus: pin ? SERVER_CPUS : undefined,
    // No start-up or after-load collection of IdleMemoryRelease inside the measured window.
    releaseMemory: false,
    cpuProfile: profileFile === undefined ? undefined : `${profileFile}-${variant.label}-${run}.cpuprofile`,
    output: (line) => lines.push(line)
  })
  const runner = yield* scenario.prepare(server)
  const settings = { connections: 50, durationSec: 2, idle: { streams: 0, parallel: 1 } }
  yield* runner(settings)
  if (variant.fullGc) {
    // The full GC asked for runs when the server handles the signal: the load starts once it is in the trace.
    const asked = lines.length
    yield* server.collectGarbage
    yield* Effect.sleep("100 millis").pipe(
      Effect.repeat({ until: () => lines.slice(asked).some((line) => collectionOf(line)?.kind === "mark-compact") }),
      Effect.timeoutOrElse({
        duration: "30 seconds",
        orElse: () => Effect.fail(new BenchError({ message: "the full GC asked for did not come" }))
      })
    )
  }
  // The full GC cost the request path its optimized code: optimized again before the measured load (see the module).
  if (variant.rewarmSec > 0) yield* runner({ ...settings, durationSec: variant.rewarmSec })
  const from = lines.length
  yield* server.startProfiler
  const cpuBefore = yield* server.cpuTimes
  const coreBefore = yield* serverCpuTimes
  const sample = yield* runner({ ...settings, durationSec: Number(secondsArg) })
  const cpuAfter = yield* server.cpuTimes
  const userMs = cpuAfter.userMs - cpuBefore.userMs
  const systemMs = cpuAfter.systemMs - cpuBefore.systemMs
  const coreAfter = yield* serverCpuTimes
  // What else ran on the server's CPU meanwhile (when pinned): the load this run's CPU per request was taken under.
  const othersMs = coreAfter.busyMs - coreBefore.busyMs - userMs - systemMs
  const stealMs = coreAfter.stealMs - coreBefore.stealMs
  const loadMs = Number(secondsArg) * 1000
  const { peakKb } = yield* server.memory
  const fs = yield* FileSystem.FileSystem
  if (traceFile !== undefined) {
    yield* fs.writeFileString(`${traceFile}-${variant.label}.txt`, lines.slice(from).join("\n") + "\n", { flag: "a" })
  }
  if (logFile !== undefined) {
    const other = (part: ReadonlyArray<string>) => part.filter((line) => !line.includes(" gc="))
    const text = [...other(lines.slice(0, from)), "--- load", ...other(lines.slice(from))].join("\n")
    yield* fs.writeFileString(`${logFile}-${variant.label}-${run}.txt`, text + "\n")
  }
  // The collection before the load (the full GC asked for, or the second warm-up's last) anchors the first
  // scavenge's old-generation growth.
  const before = lines.slice(0, from).flatMap((line) => collectionOf(line) ?? []).at(-1)
  const gc = per100k(before, lines.slice(from).flatMap((line) => collectionOf(line) ?? []), sample.completed)
  const f = (n: number, digits = 0) => n.toFixed(digits)
  yield* Console.log(
    [
      `${variant.label.padEnd(16)}`,
      `${f(sample.throughput)} req/s p99 ${sample.p99Ms} ms CPU ${
        f((userMs + systemMs) * 1000 / sample.completed, 1)
      } µs/op`,
      `(user ${f(userMs * 1000 / sample.completed, 1)} system ${f(systemMs * 1000 / sample.completed, 1)})`,
      ...(pin
        ? [`CPU ${SERVER_CPUS}: others ${f(othersMs * 100 / loadMs)}% stolen ${f(stealMs * 100 / loadMs)}%`]
        : []),
      `per 100k: ${f(gc.scavenges)} scavenges ${f(gc.scavengeMs)} ms (median ${f(gc.scavengeMedianMs, 2)})`,
      `${f(gc.fulls, 1)} mark-compacts ${f(gc.fullMs)} ms`,
      `promoted ${f(gc.promotedMB, 1)} MB, old gen +${f(gc.oldGrowthMB, 1)} MB`,
      `GC pauses ${f((gc.scavengeMs + gc.fullMs) / 100, 1)} µs/req`,
      `peak RSS ${f(peakKb / 1024)} MiB, errors ${sample.errors}`
    ].join(" | ")
  )
}, Effect.scoped)

const program = Effect.gen(function*() {
  const variants = yield* Effect.forEach(variantArgs.length === 0 ? ["as-serve"] : variantArgs, variantOf)
  if (pin) yield* pinHarness(Os.availableParallelism())
  for (let round = 0; round < Number(roundsArg); round++) {
    for (const variant of variants) yield* measure(variant, round + 1)
  }
})

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
