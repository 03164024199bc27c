/**
 * `npm run bench`: effect-a2a vs the official @a2a-js/sdk vs a bare node:http ceiling, each in
 * its own child process on 127.0.0.1, driven alternately with the same load generator. Prints a
 * table per scenario (median of the rounds) and writes bench/results/latest.json plus a
 * timestamped copy. Every flag also reads an environment variable (BENCH_DURATION, ...).
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Config, Console, Effect, FileSystem, Option } from "effect"
import { Command, Flag } from "effect/cli"
import type { ChildProcessSpawner } from "effect/process"
import * as Path from "node:path"
import { BenchError } from "./BenchError.ts"
import { formatSummary, summariseDir } from "./CpuProfile.ts"
import * as Machine from "./Machine.ts"
import {
  type BenchReport,
  formatHeadline,
  formatMachine,
  formatMemory,
  formatScenario,
  formatSettings,
  ratiosOf,
  type ScenarioResult,
  type ServerMemory,
  type Settings
} from "./Report.ts"
import { medianSample, type Sample } from "./Sample.ts"
import { type Runner, type RunSettings, type Scenario, scenarios } from "./Scenarios.ts"
import {
  type BenchServer,
  defaultServerKinds,
  pinHarness,
  SERVER_CPUS,
  type ServerKind,
  serverKinds,
  serverLabel,
  start,
  type StartOptions
} from "./ServerProcess.ts"

const resultsDir = Path.join(import.meta.dirname, "results")

const number = (name: string, env: string, description: string) =>
  Flag.Finite(name).pipe(
    Flag.withDescription(description),
    Flag.withFallbackConfig(Config.Finite(env)),
    Flag.optional
  )

const list = (name: string, env: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(description),
    Flag.withFallbackConfig(Config.String(env)),
    Flag.optional,
    Flag.map(Option.map((s) => s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)))
  )

const flags = {
  quick: Flag.Boolean("quick").pipe(
    Flag.withDescription("Smoke run: 1 round of 1 s, 0.5 s warm-up, 100 idle streams (explicit flags still win)"),
    Flag.withFallbackConfig(Config.Boolean("BENCH_QUICK")),
    Flag.withDefault(false)
  ),
  duration: number("duration", "BENCH_DURATION", "Seconds per scenario, server and round (default 5)"),
  warmup: number("warmup", "BENCH_WARMUP", "Warm-up seconds per scenario and server (default 2)"),
  rounds: number("rounds", "BENCH_ROUNDS", "Alternating rounds; the report shows their median (default 3)"),
  connections: number("connections", "BENCH_CONNECTIONS", "Concurrent connections / streams (default 32)"),
  idleStreams: number("idle-streams", "BENCH_IDLE_STREAMS", "Idle streams per idle scenario (default 1000)"),
  scenarios: list("scenarios", "BENCH_SCENARIOS", `Comma list of: ${scenarios.map((s) => s.id).join(", ")}`),
  servers: list("servers", "BENCH_SERVERS", `Comma list of: ${serverKinds.join(", ")}`),
  pin: Flag.Boolean("pin").pipe(
    Flag.withDescription(
      "Run each server on CPU 0 only (as a 1-CPU container runs it), the load generator on the others"
    ),
    Flag.withFallbackConfig(Config.Boolean("BENCH_PIN")),
    Flag.withDefault(false)
  ),
  oursNodeOptions: Flag.String("ours-node-options").pipe(
    Flag.withDescription(
      "Node/V8 options for our servers only, space-separated (e.g. \"--max-semi-space-size=8\" or a heap limit)"
    ),
    Flag.withFallbackConfig(Config.String("BENCH_OURS_NODE_OPTIONS")),
    Flag.optional
  ),
  memoryLimit: number(
    "memory-limit",
    "BENCH_MEMORY_LIMIT",
    "MiB each server may use, as in a container: its V8 heap as Node sizes it there (--max-old-space-size, " +
      "--max-semi-space-size) and the server killed once its RSS goes above it (as a cgroup's OOM killer would)"
  ),
  profile: Flag.Literals("profile", serverKinds).pipe(
    Flag.withDescription("Profile this server's CPU during the measured rounds and summarise the profile"),
    Flag.withFallbackConfig(Config.Literals(serverKinds, "BENCH_PROFILE")),
    Flag.optional
  )
}

type Flags = {
  readonly [K in keyof typeof flags]: (typeof flags)[K] extends Flag.Flag<infer A> ? A : never
}

const resolveSettings = (f: Flags): Effect.Effect<Settings, BenchError> =>
  Effect.gen(function*() {
    const pick = (value: Option.Option<number>, normal: number, quick: number) =>
      Option.getOrElse(value, () => f.quick ? quick : normal)
    const known = scenarios.map((s) => s.id)
    const chosenScenarios = Option.getOrElse(f.scenarios, () => known)
    const unknownScenario = chosenScenarios.find((id) => !known.includes(id))
    if (unknownScenario !== undefined) {
      return yield* new BenchError({ message: `unknown scenario "${unknownScenario}" (known: ${known.join(", ")})` })
    }
    const chosenServers = Option.getOrElse(f.servers, () => [...defaultServerKinds])
    const servers = serverKinds.filter((k) => chosenServers.includes(k))
    if (servers.length !== chosenServers.length) {
      return yield* new BenchError({
        message: `unknown server in "${chosenServers.join(",")}" (known: ${serverKinds.join(", ")})`
      })
    }
    const settings: Settings = {
      durationSec: pick(f.duration, 5, 1),
      warmupSec: pick(f.warmup, 2, 0.5),
      rounds: Math.max(1, Math.round(pick(f.rounds, 3, 1))),
      connections: Math.max(1, Math.round(pick(f.connections, 32, 32))),
      idleStreams: Math.max(1, Math.round(pick(f.idleStreams, 1000, 100))),
      scenarios: chosenScenarios,
      servers,
      quick: f.quick,
      pin: f.pin,
      oursNodeOptions: Option.getOrElse(
        Option.map(f.oursNodeOptions, (o) => o.split(" ").filter((x) => x.length > 0)),
        () => []
      ),
      memoryLimitMiB: Option.getOrUndefined(Option.map(f.memoryLimit, (mib) => Math.max(16, Math.round(mib)))),
      profile: Option.getOrUndefined(f.profile)
    }
    if (settings.profile !== undefined && !servers.includes(settings.profile)) {
      return yield* new BenchError({ message: `--profile ${settings.profile} but that server is not selected` })
    }
    return settings
  })

/** Seconds between the end of a scenario's load and the reading of each server's RSS for the memory table. */
const SETTLE_SEC = 5

const progress = (text: string) => Effect.sync(() => process.stderr.write(`${text}\n`))

/** The order servers take their turn in round `round`: rotated, so none always goes first. */
const rotate = <A>(items: ReadonlyArray<A>, round: number): ReadonlyArray<A> =>
  items.length === 0 ? items : [...items.slice(round % items.length), ...items.slice(0, round % items.length)]

/** A scenario ready to run on one server: on the shared process, or on a fresh one per round. */
interface Entry {
  readonly scenario: Scenario
  readonly kind: ServerKind
  readonly run: (
    settings: RunSettings
  ) => Effect.Effect<Sample, BenchError, ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem>
}

const measure = (server: BenchServer, runner: Runner, settings: RunSettings) =>
  Effect.gen(function*() {
    const cpuBefore = yield* server.cpuMs
    const harnessBefore = process.cpuUsage()
    const wallBefore = performance.now()
    const sample = yield* runner(settings)
    const wallMs = performance.now() - wallBefore
    const harness = process.cpuUsage(harnessBefore)
    const cpuAfter = yield* server.cpuMs
    const rssKb = yield* server.rssKb
    const cpuUsPerOp = sample.completed === 0 ? 0 : ((cpuAfter - cpuBefore) * 1000) / sample.completed
    const pct = (ms: number) => wallMs === 0 ? 0 : (ms / wallMs) * 100
    return {
      ...sample,
      cpuUsPerOp,
      serverCpuPct: pct(cpuAfter - cpuBefore),
      harnessCpuPct: pct((harness.user + harness.system) / 1000),
      rssKb
    } satisfies Sample
  })

const startOptions = (settings: Settings, kind: ServerKind): StartOptions => ({
  cpus: settings.pin ? SERVER_CPUS : undefined,
  // Our servers on Node (Bun takes no Node options).
  nodeOptions: kind.startsWith("ours") ? settings.oursNodeOptions : undefined,
  memoryLimitMiB: settings.memoryLimitMiB
})

/**
 * Runs each scenario on fresh server processes: warm-up, then the rounds, each server in turn (the order
 * rotating from round to round). Fresh processes keep one scenario's leftovers out of the next: the tasks a
 * fast server created in an earlier scenario would otherwise make its heap, and so its GC, larger than a slow
 * one's.
 */
const benchmark = (settings: Settings, profileDir: string | undefined) =>
  Effect.gen(function*() {
    const chosen = scenarios.filter((s) => settings.scenarios.includes(s.id))
    const samples = new Map<string, Map<ServerKind, Array<Sample>>>()
    const memory: Partial<Record<ServerKind, ServerMemory>> = {}
    const record = (kind: ServerKind, now: ServerMemory["atEnd"]) => {
      const seen = memory[kind]
      memory[kind] = seen === undefined ? { atStart: now, atEnd: now } : {
        atStart: seen.atStart,
        atEnd: { rssKb: Math.max(seen.atEnd.rssKb, now.rssKb), peakKb: Math.max(seen.atEnd.peakKb, now.peakKb) }
      }
    }
    const runSettings = (durationSec: number): RunSettings => ({
      connections: settings.connections,
      durationSec,
      idle: { streams: settings.idleStreams, parallel: settings.connections }
    })

    for (const scenario of chosen) {
      yield* Effect.scoped(Effect.gen(function*() {
        const entries: Array<Entry> = []
        const servers: Array<BenchServer> = []
        for (const kind of settings.servers.filter((k) => scenario.servers.includes(k))) {
          if (scenario.isolated) {
            // A fresh process per round too (see the scenario).
            const run = (rs: RunSettings) =>
              Effect.gen(function*() {
                // Without the idle release: a collection between two readings would count as the streams' memory.
                const fresh = yield* start(kind, { ...startOptions(settings, kind), releaseMemory: false })
                return yield* measure(fresh, yield* scenario.prepare(fresh), rs)
              }).pipe(Effect.scoped)
            entries.push({ scenario, kind, run })
            continue
          }
          yield* progress(`${scenario.id}: starting ${serverLabel[kind]}...`)
          const cpuProfile = kind === settings.profile && profileDir !== undefined
            ? Path.join(profileDir, `${kind}-${scenario.id}.cpuprofile`)
            : undefined
          const server = yield* start(kind, { ...startOptions(settings, kind), cpuProfile })
          if (memory[kind] === undefined) record(kind, yield* server.memory)
          servers.push(server)
          // Prepared once: the setup and the probe run before any measurement.
          const runner = yield* scenario.prepare(server)
          entries.push({ scenario, kind, run: (rs) => measure(server, runner, rs) })
        }

        if (settings.warmupSec > 0 && !scenario.isolated) {
          yield* progress(`${scenario.id}: warm-up, ${settings.warmupSec} s per server`)
          for (const entry of entries) yield* entry.run(runSettings(settings.warmupSec))
        }
        // The profile covers the measured rounds only.
        for (const server of servers) yield* server.startProfiler

        for (let round = 0; round < settings.rounds; round++) {
          for (const { kind, run } of rotate(entries, round)) {
            const sample = yield* run(runSettings(settings.durationSec))
            const byServer = samples.get(scenario.id) ?? new Map<ServerKind, Array<Sample>>()
            samples.set(scenario.id, byServer.set(kind, [...(byServer.get(kind) ?? []), sample]))
            yield* progress(
              `round ${round + 1}/${settings.rounds} ${scenario.id.padEnd(14)} ${serverLabel[kind].padEnd(18)} `
                + (sample.idle === undefined
                  ? `${Math.round(sample.throughput)} ${scenario.unit}, p99 ${
                    sample.p99Ms.toFixed(2)
                  } ms, errors ${sample.errors}`
                  : `${sample.idle.opened} streams, ${sample.idle.perStreamKb.toFixed(1)} KiB/stream`)
            )
          }
        }
        // Read once the load has been over for a while: what a server keeps after a spell of load, not its peak.
        if (servers.length > 0) yield* Effect.sleep(`${SETTLE_SEC} seconds`)
        for (const server of servers) record(server.kind, yield* server.memory)
      }))
    }

    const results: Array<ScenarioResult> = chosen.map((scenario) => {
      // Report servers in their fixed order (ours, sdk, ceiling), whatever order they ran in.
      const byServer = samples.get(scenario.id)
      const rounds: ScenarioResult["rounds"] = {}
      const median: ScenarioResult["median"] = {}
      for (const kind of serverKinds) {
        const list = byServer?.get(kind)
        if (list === undefined) continue
        rounds[kind] = list
        median[kind] = medianSample(list)
      }
      return {
        id: scenario.id,
        title: scenario.title,
        measures: scenario.measures,
        unit: scenario.unit,
        rounds,
        median,
        ratios: ratiosOf(median)
      }
    })
    return { results, memory }
  })

const writeReport = (report: BenchReport) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(resultsDir, { recursive: true })
    const json = `${JSON.stringify(report, null, 2)}\n`
    const stamped = Path.join(resultsDir, `bench-${report.startedAt.replace(/[:.]/g, "-")}.json`)
    yield* fs.writeFileString(stamped, json)
    yield* fs.writeFileString(Path.join(resultsDir, "latest.json"), json)
    return stamped
  }).pipe(Effect.mapError((cause) => new BenchError({ message: "cannot write the results", cause })))

const main = Command.make("bench", flags, (f) =>
  Effect.gen(function*() {
    const settings = yield* resolveSettings(f)
    const startedAt = new Date().toISOString()
    const machine = yield* Machine.describe
    if (settings.pin) yield* pinHarness(machine.cores)
    yield* Console.log(`# effect-a2a benchmarks, ${startedAt}\n${formatMachine(machine)}\n${formatSettings(settings)}`)

    const profileDir = settings.profile === undefined
      ? undefined
      : Path.join(resultsDir, "profiles", startedAt.replace(/[:.]/g, "-"))
    if (profileDir !== undefined) {
      const fs = yield* FileSystem.FileSystem
      yield* fs.makeDirectory(profileDir, { recursive: true }).pipe(
        Effect.mapError((cause) => new BenchError({ message: `cannot create ${profileDir}`, cause }))
      )
    }

    const { memory, results } = yield* benchmark(settings, profileDir)
    if (results.some((r) => r.unit === "req/s")) yield* Console.log(`\n## Headline\n${formatHeadline(results)}`)
    for (const result of results) yield* Console.log(`\n${formatScenario(result, settings.rounds)}`)
    yield* Console.log(`\n## Server memory\n${formatMemory(memory)}`)

    // The profiled server has exited with the scope above, so its profile is on disk now.
    const profiles = profileDir === undefined ? [] : yield* summariseDir(profileDir, 25)
    for (const summary of profiles) yield* Console.log(`\n## ${formatSummary(summary)}`)

    const file = yield* writeReport({
      startedAt,
      finishedAt: new Date().toISOString(),
      machine,
      settings,
      memory,
      scenarios: results,
      profiles
    })
    yield* Console.log(`\nResults: ${Path.relative(process.cwd(), file)} (and bench/results/latest.json)`)
  })).pipe(Command.withDescription("Benchmark effect-a2a against the official A2A SDK and a bare node:http ceiling"))

main.pipe(
  Command.run({ version: "0.1.0" }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
