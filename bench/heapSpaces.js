// Loaded with `node --import` into the servers bench/startup.ts measures (plain JavaScript, so that it adds no type
// stripping to what is measured): on SIGURG (ignored by default, so a server without this module is unaffected) it
// writes one line to stdout, `HEAP_SPACES {...}`: RSS and where V8's heap is, in bytes, as the process sees it, and,
// since the last such line (or the start), how long the event loop was held (`loopMs`: p99 and max delay) and the
// garbage collections' pauses (`gcMs`: count, total and longest, by kind: scavenge, markCompact, ...). With
// BENCH_LIVE_HEAP=n and `--expose-gc`, at the n-th such line it then forces a full collection and adds what is left
// (`live`: RSS, heap used, old space used and physical, in bytes): the live set, against what the spaces held
// before; with BENCH_HEAP_SNAPSHOT=file too, writes a heap snapshot of it there. (That collection's pause is
// counted in the next line's `gcMs`.)
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import * as V8 from "node:v8"

const loop = monitorEventLoopDelay({ resolution: 5 })
loop.enable()
// perf_hooks.constants.NODE_PERFORMANCE_GC_*
const GC_KINDS = { 1: "scavenge", 2: "minorMarkSweep", 4: "markCompact", 8: "incremental", 16: "weak" }
let gc = {}
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = GC_KINDS[entry.detail?.kind] ?? "other"
    const seen = gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 }
    seen.count++
    seen.totalMs += entry.duration
    seen.maxMs = Math.max(seen.maxMs, entry.duration)
  }
}).observe({ entryTypes: ["gc"] })

const bySpace = () =>
  Object.fromEntries(
    V8.getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, physical: s.physical_space_size }])
  )

let reports = 0

/** The heap after a full collection, when asked for at this report (BENCH_LIVE_HEAP) and possible (`--expose-gc`). */
const liveHeap = () => {
  reports++
  if (Number(process.env.BENCH_LIVE_HEAP) !== reports || typeof globalThis.gc !== "function") return undefined
  globalThis.gc()
  const old = bySpace().old_space
  if (process.env.BENCH_HEAP_SNAPSHOT !== undefined) V8.writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT)
  return {
    rss: process.memoryUsage().rss,
    heapUsed: V8.getHeapStatistics().used_heap_size,
    oldUsed: old.used,
    oldPhysical: old.physical
  }
}

process.on("SIGURG", () => {
  const memory = process.memoryUsage()
  const spaces = bySpace()
  const observed = gc
  process.stdout.write(
    `HEAP_SPACES ${
      JSON.stringify({
        rss: memory.rss,
        external: memory.external,
        arrayBuffers: memory.arrayBuffers,
        heapUsed: memory.heapUsed,
        spaces,
        loopMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
        gcMs: observed,
        live: liveHeap()
      })
    }\n`
  )
  loop.reset()
  gc = {}
})
