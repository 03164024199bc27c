/**
 * The benchmark report: per scenario the median of the rounds for each server, the ratios
 * ours/theirs and ours/ceiling, as text tables (stdout) and as JSON (bench/results).
 */
import type { ProfileSummary } from "./CpuProfile.ts"
import type { Machine } from "./Machine.ts"
import type { Sample } from "./Sample.ts"
import type { Scenario } from "./Scenarios.ts"
import { type Memory, type ServerKind, serverLabel } from "./ServerProcess.ts"

export interface Settings {
  readonly durationSec: number
  readonly warmupSec: number
  readonly rounds: number
  readonly connections: number
  readonly idleStreams: number
  readonly scenarios: ReadonlyArray<string>
  readonly servers: ReadonlyArray<ServerKind>
  readonly quick: boolean
  /** Servers on CPU 0 only, the harness on the others. */
  readonly pin: boolean
  /** Node/V8 options our servers ran with (none by default). */
  readonly oursNodeOptions: ReadonlyArray<string>
  /** Every server limited to this many MiB, as a container would be (see `StartOptions.memoryLimitMiB`). */
  readonly memoryLimitMiB?: number | undefined
  readonly profile?: ServerKind | undefined
}

export interface Ratios {
  /** ours / sdk; > 1 is better for throughput, < 1 is better for latency and memory. */
  readonly oursVsSdk?: Partial<
    Record<"throughput" | "p50Ms" | "p99Ms" | "cpuUsPerOp" | "rssKb" | "perStreamKb" | "perStreamGcKb", number>
  >
  readonly oursVsCeiling?: Partial<Record<"throughput" | "cpuUsPerOp", number>>
  readonly sdkVsCeiling?: Partial<Record<"throughput", number>>
}

export interface ScenarioResult {
  readonly id: string
  readonly title: string
  readonly measures: string
  readonly unit: Scenario["unit"]
  readonly rounds: Partial<Record<ServerKind, ReadonlyArray<Sample>>>
  readonly median: Partial<Record<ServerKind, Sample>>
  readonly ratios: Ratios
}

export interface ServerMemory {
  readonly atStart: Memory
  readonly atEnd: Memory
}

export interface BenchReport {
  readonly startedAt: string
  readonly finishedAt: string
  readonly machine: Machine
  readonly settings: Settings
  readonly memory: Partial<Record<ServerKind, ServerMemory>>
  readonly scenarios: ReadonlyArray<ScenarioResult>
  readonly profiles: ReadonlyArray<ProfileSummary>
}

const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? undefined : Math.round((a / b) * 100) / 100

const defined = <K extends string>(record: Partial<Record<K, number | undefined>>): Partial<Record<K, number>> =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Partial<Record<K, number>>

export const ratiosOf = (median: Partial<Record<ServerKind, Sample>>): Ratios => {
  const { ceiling, ours, sdk } = median
  const sdkVsCeiling = sdk === undefined || ceiling === undefined
    ? {}
    : { sdkVsCeiling: defined({ throughput: ratio(sdk.throughput, ceiling.throughput) }) }
  if (ours === undefined) return sdkVsCeiling
  return {
    ...sdkVsCeiling,
    ...(sdk === undefined ? {} : {
      oursVsSdk: defined({
        throughput: ratio(ours.throughput, sdk.throughput),
        p50Ms: ratio(ours.p50Ms, sdk.p50Ms),
        p99Ms: ratio(ours.p99Ms, sdk.p99Ms),
        cpuUsPerOp: ratio(ours.cpuUsPerOp, sdk.cpuUsPerOp),
        rssKb: ratio(ours.rssKb, sdk.rssKb),
        perStreamKb: ratio(ours.idle?.perStreamKb, sdk.idle?.perStreamKb),
        perStreamGcKb: ratio(ours.idle?.perStreamGcKb, sdk.idle?.perStreamGcKb)
      })
    }),
    ...(ceiling === undefined
      ? {}
      : {
        oursVsCeiling: defined({
          throughput: ratio(ours.throughput, ceiling.throughput),
          cpuUsPerOp: ratio(ours.cpuUsPerOp, ceiling.cpuUsPerOp)
        })
      })
  }
}

// --- text ---

const int = (n: number) => Math.round(n).toLocaleString("en-US")
// autocannon's latencies are whole milliseconds; the stream driver's are not.
const ms = (n: number) => Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 2 : 1)
const mb = (kb: number) => (kb / 1024).toFixed(1)
const x = (n: number | undefined) => n === undefined ? "-" : `x${n.toFixed(2)}`

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)).join("  ").trimEnd()
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n")
}

const loadTable = (result: ScenarioResult): string => {
  const streaming = result.unit === "streams/s"
  const header = [
    "server",
    result.unit,
    ...(streaming ? ["events/s"] : []),
    "p50 ms",
    "p99 ms",
    "CPU µs/op",
    "server CPU %",
    "generator CPU %",
    "errors",
    "RSS MiB"
  ]
  const rows = Object.entries(result.median).map(([kind, s]) => [
    serverLabel[kind as ServerKind],
    int(s.throughput),
    ...(streaming ? [int(s.eventsPerSec ?? 0)] : []),
    ms(s.p50Ms),
    ms(s.p99Ms),
    int(s.cpuUsPerOp),
    s.serverCpuPct === undefined ? "-" : int(s.serverCpuPct),
    s.harnessCpuPct === undefined ? "-" : int(s.harnessCpuPct),
    int(s.errors),
    mb(s.rssKb)
  ])
  return table(header, rows)
}

const idleTable = (result: ScenarioResult): string => {
  const header = [
    "server",
    "streams",
    "opened",
    "still open",
    "RSS MiB before / open / open+GC / closed / closed+GC",
    "KiB/stream",
    "KiB/stream GC",
    "KiB left",
    "open s"
  ]
  const rows = Object.entries(result.median).flatMap(([kind, s]) =>
    s.idle === undefined ? [] : [[
      serverLabel[kind as ServerKind],
      int(s.idle.requested),
      int(s.idle.opened),
      int(s.idle.stillOpen),
      [s.idle.rssBeforeKb, s.idle.rssOpenKb, s.idle.rssOpenGcKb, s.idle.rssClosedKb, s.idle.rssClosedGcKb].map(mb)
        .join(" / "),
      s.idle.perStreamKb.toFixed(1),
      s.idle.perStreamGcKb.toFixed(1),
      s.idle.leftPerStreamKb.toFixed(1),
      (s.idle.openMs / 1000).toFixed(2)
    ]]
  )
  return table(header, rows)
}

const ratioLine = (result: ScenarioResult): string => {
  const { oursVsCeiling, oursVsSdk } = result.ratios
  const parts: Array<string> = []
  if (oursVsSdk !== undefined) {
    parts.push(
      result.unit === "KiB/stream"
        ? `ours/sdk: memory per stream ${x(oursVsSdk.perStreamKb)} without a forced GC, ${
          x(oursVsSdk.perStreamGcKb)
        } after one`
        : [
          `ours/sdk: ${result.unit} ${x(oursVsSdk.throughput)}`,
          `p50 ${x(oursVsSdk.p50Ms)}`,
          `p99 ${x(oursVsSdk.p99Ms)}`,
          `CPU/op ${x(oursVsSdk.cpuUsPerOp)}`,
          `RSS ${x(oursVsSdk.rssKb)}`
        ].join(", ")
    )
  }
  if (oursVsCeiling !== undefined) {
    parts.push(`ours/ceiling: ${result.unit} ${x(oursVsCeiling.throughput)}, CPU/op ${x(oursVsCeiling.cpuUsPerOp)}`)
  }
  if (result.ratios.sdkVsCeiling !== undefined) {
    parts.push(`sdk/ceiling: ${result.unit} ${x(result.ratios.sdkVsCeiling.throughput)}`)
  }
  return parts.join("\n")
}

/** Below this share of its core a server was not the bottleneck: it waited for the load generator. */
const BUSY_PCT = 85

/** What held a server back in a run: its own core, the load generator, or neither (other load on the machine). */
export const limitOf = (sample: Sample): "server" | "generator" | "machine" | "unknown" =>
  sample.serverCpuPct === undefined || sample.harnessCpuPct === undefined
    ? "unknown"
    : sample.serverCpuPct >= BUSY_PCT
    ? "server"
    : sample.harnessCpuPct >= BUSY_PCT
    ? "generator"
    : "machine"

const pct = (n: number | undefined) => n === undefined ? "-" : `${Math.round(n * 100)}%`
const busy = (s: Sample | undefined) => s?.serverCpuPct === undefined ? "-" : `${Math.round(s.serverCpuPct)}%`

/**
 * The headline: per request/response scenario, the share of the bare node:http ceiling that ours and the SDK reached
 * in the same run, their p99, how busy each server and the load generator were, and ours/sdk only where both A2A
 * servers were the bottleneck: a ratio against a server that waited for the load generator (or for a busy machine)
 * says nothing about the server.
 */
export const formatHeadline = (results: ReadonlyArray<ScenarioResult>): string => {
  const rows = results.filter((r) => r.unit === "req/s").map((r) => {
    const { ceiling, ours, sdk } = r.median
    const limits = (["ours", "sdk", "ceiling"] as const).flatMap((name) => {
      const s = r.median[name]
      return s === undefined ? [] : [`${name}: ${limitOf(s)}`]
    })
    const ratioCell = ours === undefined || sdk === undefined
      ? "-"
      : limitOf(ours) === "server" && limitOf(sdk) === "server"
      ? x(r.ratios.oursVsSdk?.throughput)
      : `(${x(r.ratios.oursVsSdk?.throughput)}, not server-bound)`
    return [
      r.id,
      ceiling === undefined ? "-" : int(ceiling.throughput),
      pct(r.ratios.oursVsCeiling?.throughput),
      pct(r.ratios.sdkVsCeiling?.throughput),
      ratioCell,
      `${ours === undefined ? "-" : ms(ours.p99Ms)} / ${sdk === undefined ? "-" : ms(sdk.p99Ms)}`,
      `${busy(ours)} / ${busy(sdk)} / ${busy(ceiling)}`,
      ceiling?.harnessCpuPct === undefined ? "-" : `${Math.round(ceiling.harnessCpuPct)}%`,
      limits.join(", ")
    ]
  })
  return table(
    [
      "scenario",
      "ceiling req/s",
      "ours/ceiling",
      "sdk/ceiling",
      "ours/sdk",
      "p99 ms ours / sdk",
      "server CPU ours / sdk / ceiling",
      "generator CPU (ceiling run)",
      "limit"
    ],
    rows
  ) + `\n\nCPU in % of one core. limit: "server" when the server used ${BUSY_PCT}% of a core or more; "generator" `
    + `when it did not and the load generator did (its req/s is the generator's limit); "machine" when neither did `
    + "(other processes held the CPUs: no figure of that run says much)."
}

export const formatScenario = (result: ScenarioResult, rounds: number): string =>
  [
    `## ${result.title} (${result.id})`,
    result.measures,
    "",
    result.unit === "KiB/stream" ? idleTable(result) : loadTable(result),
    ...(ratioLine(result) === "" ? [] : ["", ratioLine(result)]),
    `(median of ${rounds} round${rounds === 1 ? "" : "s"}; errors summed over the rounds)`
  ].join("\n")

export const formatMachine = (machine: Machine): string =>
  `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node}; `
  + `load average ${machine.loadAverage.join(" / ")}; commit ${machine.commit}`

export const formatSettings = (settings: Settings): string =>
  `Settings: ${settings.rounds} round(s) x ${settings.durationSec} s per scenario and server, warm-up ${settings.warmupSec} s, `
  + `${settings.connections} connections, ${settings.idleStreams} idle streams${settings.quick ? " (quick)" : ""}`
  + (settings.pin ? "; servers pinned to CPU 0, load generator on the others" : "; not pinned")
  + (settings.oursNodeOptions.length === 0 ? "" : `; our servers run with ${settings.oursNodeOptions.join(" ")}`)
  + (settings.memoryLimitMiB === undefined
    ? ""
    : `; every server limited to ${settings.memoryLimitMiB} MiB (V8 heap as Node sizes it in such a container, killed above it in RSS)`)

// Under the memory table, so that its "RSS after start" is not read as the package's start-up.
export const memoryNote = "RSS after start: each server as its bench/servers/*.ts file through Node's type stripping "
  + "(ours: all of src/ as TypeScript; the SDK: 3 bench files over its built JavaScript), gRPC on in both; "
  + "`effect-a2a serve` built, against the SDK's server as plain JavaScript: `npm run bench:startup`."

export const formatMemory = (memory: BenchReport["memory"]): string =>
  table(
    ["server", "RSS after start MiB", "RSS 5 s after a scenario's load (highest) MiB", "peak RSS MiB"],
    Object.entries(memory).map(([kind, m]) => [
      serverLabel[kind as ServerKind],
      mb(m.atStart.rssKb),
      mb(m.atEnd.rssKb),
      mb(m.atEnd.peakKb)
    ])
  ) + `\n\n${memoryNote}`
