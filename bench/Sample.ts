/** One measurement of one server in one scenario, and the statistics the report needs. */

export interface Sample {
  /** Completed requests (or whole streams) per second. */
  readonly throughput: number
  /** SSE events per second (streaming scenario only). */
  readonly eventsPerSec?: number
  /** Latency of a request (of a whole stream), ms. */
  readonly p50Ms: number
  readonly p99Ms: number
  /** Non-2xx answers + socket errors and timeouts + wrong bodies (JSON-RPC errors, missing result). */
  readonly errors: number
  readonly completed: number
  /** Server CPU time (user + system) per completed request or stream, µs: robust on a busy machine. */
  readonly cpuUsPerOp: number
  /**
   * How busy the server and the harness (the load generator) were during the run, in % of one core. A server below
   * ~90 % while the harness is near 100 % was waiting for the load generator: its req/s is the generator's limit.
   */
  readonly serverCpuPct?: number
  readonly harnessCpuPct?: number
  /** Server RSS right after the run, KiB. */
  readonly rssKb: number
  /** Idle-subscription scenario only. */
  readonly idle?: IdleFigures
}

export interface IdleFigures {
  readonly requested: number
  readonly opened: number
  /** Streams still open when RSS was read with the streams open. */
  readonly stillOpen: number
  /** RSS, KiB: before opening (after a forced GC), with the streams open (without, then with a forced GC), after
   * the clients left (without, then with a forced GC). */
  readonly rssBeforeKb: number
  readonly rssOpenKb: number
  readonly rssOpenGcKb: number
  readonly rssClosedKb: number
  readonly rssClosedGcKb: number
  /** RSS growth per open stream, KiB: without a forced GC (what an operator sees) and after one. */
  readonly perStreamKb: number
  readonly perStreamGcKb: number
  /** RSS still above `before` per stream once the clients left and a GC ran, KiB: ~0 when released. */
  readonly leftPerStreamKb: number
  /** Wall time to open all streams (until each delivered its first event), ms. */
  readonly openMs: number
}

/** Nearest-rank percentile of unsorted values (0 when empty). */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank] ?? 0
}

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  const upper = sorted[mid] ?? 0
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? 0) + upper) / 2
}

const medianOf = <K extends string>(samples: ReadonlyArray<{ readonly [k in K]?: number | undefined }>, key: K) => {
  const values = samples.flatMap((s) => s[key] === undefined ? [] : [s[key]])
  return values.length === 0 ? undefined : median(values)
}

/** Field-wise median of the rounds (each field on its own); errors are summed, so none goes unseen. */
export const medianSample = (samples: ReadonlyArray<Sample>): Sample => {
  const eventsPerSec = medianOf(samples, "eventsPerSec")
  const serverCpuPct = medianOf(samples, "serverCpuPct")
  const harnessCpuPct = medianOf(samples, "harnessCpuPct")
  const idles = samples.flatMap((s) => s.idle === undefined ? [] : [s.idle])
  return {
    throughput: median(samples.map((s) => s.throughput)),
    ...(eventsPerSec === undefined ? {} : { eventsPerSec }),
    p50Ms: median(samples.map((s) => s.p50Ms)),
    p99Ms: median(samples.map((s) => s.p99Ms)),
    errors: samples.reduce((sum, s) => sum + s.errors, 0),
    completed: median(samples.map((s) => s.completed)),
    cpuUsPerOp: median(samples.map((s) => s.cpuUsPerOp)),
    ...(serverCpuPct === undefined ? {} : { serverCpuPct }),
    ...(harnessCpuPct === undefined ? {} : { harnessCpuPct }),
    rssKb: median(samples.map((s) => s.rssKb)),
    ...(idles.length === 0 ? {} : {
      idle: {
        requested: median(idles.map((i) => i.requested)),
        opened: median(idles.map((i) => i.opened)),
        stillOpen: median(idles.map((i) => i.stillOpen)),
        rssBeforeKb: median(idles.map((i) => i.rssBeforeKb)),
        rssOpenKb: median(idles.map((i) => i.rssOpenKb)),
        rssOpenGcKb: median(idles.map((i) => i.rssOpenGcKb)),
        rssClosedKb: median(idles.map((i) => i.rssClosedKb)),
        rssClosedGcKb: median(idles.map((i) => i.rssClosedGcKb)),
        perStreamKb: median(idles.map((i) => i.perStreamKb)),
        perStreamGcKb: median(idles.map((i) => i.perStreamGcKb)),
        leftPerStreamKb: median(idles.map((i) => i.leftPerStreamKb)),
        openMs: median(idles.map((i) => i.openMs))
      }
    })
  }
}
