/**
 * Write load (issue #33): N concurrent streaming tasks of the demo agent's "slow" (a status every 200 ms), on
 * `effect-a2a serve` over its default SQLite store or `--memory`, on 127.0.0.1.
 *
 * Measures, per run: the time from sending each SendStreamingMessage to its first event (its distribution, and how
 * many took over 2 s), the time to open them all, the latency of GetTask calls made every 100 ms from the first
 * stream sent to the end of the hold, the server's RSS with the streams running, the time to cancel every task
 * (100 at a time) and the RSS after. A stream whose first event is not there within 30 s counts as not opened;
 * canceling stops after 60 s (the count canceled says). A send refused with 503 (the store pushing back) is sent
 * again after its `Retry-After`, as a client would; its first event is still timed from the first send, and the
 * refusals are counted.
 *
 * How the streams are opened (`--method`, several comma-separated run one after the other):
 * - `pool` (default): `--parallel` (100) at a time, each next one sent as one before it has its first event;
 * - `all`: every stream sent at once;
 * - `batches`: `--parallel` (100) sent at once, the next batch once every stream of this one has its first event.
 * Stores may be comma-separated too (`memory,sqlite`): each method runs on each store, in that order, `--rounds`
 * times (default 1), and a table ends the output, with each SQLite run's RSS over the memory store's of its round.
 *
 *   node bench/SlowStreams.ts <streams> <sqlite|memory|memory,sqlite> [--method pool|all|batches|all,batches]
 *     [--rounds n] [--hold seconds (default 10)] [--parallel n]
 *     [--count-saves] (SQLite: counts the task rows written, by triggers the bench adds to the server's database
 *       once it started, and the events they hold, at the end of the hold: how many events each save carried, so
 *       what coalescing saved; the triggers add a row update to every save; `writtenOpening`: the same, and the
 *       tasks' first saves among them, once every stream is open)
 *     [--cpu-prof dir] (profiles the server: a .cpuprofile in dir once it stops)
 *     [--open-limit seconds] (stops opening more streams after that long; the rest count as not opened)
 *     [--node-options "flags"] (the server's Node flags; default the V8 flags `serve` starts itself with,
 *       src/cli/Relaunch.ts: `--max-semi-space-size=8 --no-allocation-site-pretenuring --heap-growing-percent=100`
 *       since 2026-11-27 15:30, `--max-semi-space-size=8` alone before; "--max-semi-space-size=64" for V8's own
 *       sizing, as this bench ran before 2026-11-27 12:00)
 *     [--alloc-prof file] (samples the server's allocations that outlive a scavenge, from the last stream opened to
 *       the end of the hold: a .heapprofile, for Chrome DevTools or bench/AllocationProfile.ts)
 *     [--live] (at the end of the hold, after reading the heap, forces a full GC in the server (`--expose-gc`) and
 *       reads it again: the live set, against the old space that held it; the figures after the cancel then follow
 *       that collection) [--heap-snapshot file] (with --live: a heap snapshot of that live set, written to file)
 *
 * `openCpuMs`: the server's CPU time (user + system, /proc) from the first stream sent to the last one open, a count
 * that the machine's load changes less than the times do. `listenOverflows`: the connections the kernel turned away
 * while opening because the server's listen backlog was full (`ListenOverflows` of /proc/net/netstat, counted for the
 * whole machine): each of those clients sent its SYN again after a second, and its stream's first event came that
 * much later.
 *
 * RSS is read with the streams held (and its peak so far, `VmHWM`, and how much of it is anonymous or file-backed) (with V8's heap by space, MiB physical (used), and, from the first stream sent to
 * the end of the hold, the server's event-loop delay p99 / max and its GC pauses by kind: heapSpaces.js), 2 s after canceling them, and again once the server has been quiet for
 * `--quiet` seconds (default 6; `serve` gives the heap back after 2 s without a request: IdleMemoryRelease).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { fileURLToPath } from "node:url"
import * as V8 from "node:v8"
import { Worker } from "node:worker_threads"
import { serveFlags } from "../src/cli/Relaunch.ts"

const BIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))
const OPEN_TIMEOUT_MS = 30_000
/** How long canceling may take before the run gives up on the rest. */
const CANCEL_LIMIT_MS = 60_000
const HEADERS = { "a2a-version": "1.0", "content-type": "application/json" }

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
type Store = "sqlite" | "memory"
type Method = "pool" | "all" | "batches"
const streams = Number(process.argv[2] ?? 300)
const stores: ReadonlyArray<Store> = (process.argv[3] ?? "sqlite").split(",").map((s) =>
  s === "memory" ? "memory" : "sqlite"
)
const methodAt = process.argv.indexOf("--method")
const methods: ReadonlyArray<Method> = (methodAt === -1 ? "pool" : process.argv[methodAt + 1]!).split(",").map((m) =>
  m === "all" || m === "batches" ? m : "pool"
)
const rounds = argument("--rounds", 1)
const countSaves = process.argv.includes("--count-saves")
const holdMs = argument("--hold", 10) * 1000
const parallel = argument("--parallel", 100)
const openLimitMs = argument("--open-limit", Infinity) * 1000
const cpuProfAt = process.argv.indexOf("--cpu-prof")
const cpuProfDir = cpuProfAt === -1 ? undefined : process.argv[cpuProfAt + 1]
const allocProfAt = process.argv.indexOf("--alloc-prof")
const allocProfFile = allocProfAt === -1 ? undefined : process.argv[allocProfAt + 1]
const quietMs = argument("--quiet", 6) * 1000
const live = process.argv.includes("--live")
const heapSnapshotAt = process.argv.indexOf("--heap-snapshot")
const heapSnapshotFile = heapSnapshotAt === -1 ? undefined : process.argv[heapSnapshotAt + 1]
const nodeOptionsAt = process.argv.indexOf("--node-options")
const nodeOptions = nodeOptionsAt === -1
  ? serveFlags(V8.getHeapStatistics().heap_size_limit)
  : process.argv[nodeOptionsAt + 1]!.split(" ").filter((flag) => flag.length > 0)
const SAMPLER = fileURLToPath(new URL("servers/allocationSampler.ts", import.meta.url))
const HEAP_SPACES = fileURLToPath(new URL("heapSpaces.js", import.meta.url))

/**
 * The GetTask prober (a worker): given a task id, times a GetTask of it every 100 ms; given null, sends the times.
 * Its first fetch, untimed, loads Node's fetch (hundreds of ms on a loaded machine: it was the p99 of runs before
 * 2026-11-27 12:00, whose prober timed its first fetch).
 */
const PROBER = `
const { parentPort, workerData } = require("node:worker_threads")
const times = []
let timer
const warm = fetch(workerData.base + "/.well-known/agent-card.json").then((r) => r.text(), () => {})
parentPort.on("message", async (id) => {
  await warm
  if (id === null) {
    clearTimeout(timer)
    parentPort.postMessage(times)
    return
  }
  const next = async () => {
    const started = performance.now()
    await fetch(workerData.base + "/tasks/" + id, { headers: workerData.headers }).then((r) => r.text())
    times.push(performance.now() - started)
    timer = setTimeout(next, 100)
  }
  next()
})
`

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The process's RSS (`VmRSS`), or its peak so far (`VmHWM`), in MiB. */
const rssMiB = (pid: number, field: "VmRSS" | "VmHWM" = "VmRSS") => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`))
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024
}

/** The process's resident memory by kind (`/proc/PID/smaps_rollup`), MiB: anonymous (heaps, malloc) and file-backed. */
/** The CPU time the process has used so far (user + system), in milliseconds (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** The machine's count of connections dropped because a listen backlog was full, so far (/proc/net/netstat). */
const listenOverflows = () => {
  const lines = readFileSync("/proc/net/netstat", "utf8").split("\n").filter((line) => line.startsWith("TcpExt:"))
  const names = lines[0]?.split(/\s+/) ?? []
  const values = lines[1]?.split(/\s+/) ?? []
  return Number(values[names.indexOf("ListenOverflows")] ?? 0)
}

const residentMiB = (pid: number) => {
  const fields = Object.fromEntries(
    readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").split("\n").map((line) => /^(\w+):\s+(\d+) kB/.exec(line))
      .filter((m) => m !== null).map((m) => [m[1]!, Number(m[2]) / 1024])
  )
  return {
    anonymous: Math.round(fields.Anonymous ?? 0),
    fileBacked: Math.round((fields.Rss ?? 0) - (fields.Anonymous ?? 0))
  }
}

const quantile = (values: ReadonlyArray<number>, q: number) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

/**
 * The server's V8 heap by space, MiB physical (used), and its event-loop delay and GC pauses since the last call, as
 * heapSpaces.js reports them on SIGURG.
 */
const heapSpaces = async (child: ChildProcess, output: () => string) => {
  const from = output().length
  child.kill("SIGURG")
  for (let i = 0; i < 1200; i++) {
    const line = /HEAP_SPACES (.*)/.exec(output().slice(from))?.[1]
    if (line !== undefined) {
      const { gcMs, live, loopMs, spaces } = JSON.parse(line) as {
        spaces: Record<string, { readonly used: number; readonly physical: number }>
        live?: {
          readonly rss: number
          readonly heapUsed: number
          readonly oldUsed: number
          readonly oldPhysical: number
        }
        loopMs: { readonly p99: number; readonly max: number }
        gcMs: Record<string, { readonly count: number; readonly totalMs: number; readonly maxMs: number }>
      }
      const mib = (n: number) => Math.round(n / 1048576)
      return {
        spaces: Object.fromEntries(
          Object.entries(spaces).filter(([, s]) => s.physical >= 1048576).map((
            [name, s]
          ) => [name, `${mib(s.physical)} (${mib(s.used)})`])
        ),
        liveMiB: live === undefined ? undefined : {
          rss: mib(live.rss),
          heapUsed: mib(live.heapUsed),
          oldSpace: `${mib(live.oldPhysical)} (${mib(live.oldUsed)})`
        },
        loopDelayMs: `${Math.round(loopMs.p99)} / ${Math.round(loopMs.max)}`,
        gcPausesMs: Object.fromEntries(
          Object.entries(gcMs).map((
            [kind, g]
          ) => [kind, `${g.count}x, ${Math.round(g.totalMs)} in all, max ${Math.round(g.maxMs)}`])
        )
      }
    }
    await sleep(50)
  }
  return undefined
}

const startServer = async (
  dir: string,
  store: Store
): Promise<{ child: ChildProcess; base: string; output: () => string }> => {
  const args = [BIN, "serve", "--port", "0", "--host", "127.0.0.1", "--no-ui", "--no-api-docs"]
  const profile = [
    ...nodeOptions,
    ...(cpuProfDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`]),
    ...(allocProfFile === undefined ? [] : ["--import", SAMPLER]),
    ...(live ? ["--expose-gc"] : []),
    "--import",
    HEAP_SPACES
  ]
  const sampling = {
    ...(allocProfFile === undefined
      ? {}
      : { BENCH_ALLOCATION_PROFILE: allocProfFile, BENCH_ALLOCATION_SURVIVORS: "1" }),
    // The second report: the first only starts the window of the event-loop delay and GC pauses.
    ...(live ? { BENCH_LIVE_HEAP: "2" } : {}),
    ...(heapSnapshotFile === undefined ? {} : { BENCH_HEAP_SNAPSHOT: heapSnapshotFile })
  }
  const child = spawn(process.execPath, [...profile, ...(store === "memory" ? [...args, "--memory"] : args)], {
    env: { ...process.env, ...sampling, A2A_DATA_DIR: dir, A2A_LOG_LEVEL: "Warning" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  for (let i = 0; i < 3000; i++) {
    const m = /listening on (https?:\/\/\S+);/.exec(output)
    if (m !== null) return { child, base: m[1]!, output: () => output }
    if (child.exitCode !== null) throw new Error(`serve exited: ${output}`)
    await sleep(20)
  }
  throw new Error(`serve did not start: ${output}`)
}

interface Stream {
  readonly taskId: string
  readonly firstEventMs: number
  readonly request: Http.ClientRequest
}

/** Sends one SendStreamingMessage ("slow"); resolves at its first event, null if none came in time. */
const openStream = (base: string, n: number, refusals: { count: number }): Promise<Stream | null> =>
  new Promise((resolve) => {
    const body = JSON.stringify({ message: { messageId: `slow-${n}`, role: "ROLE_USER", parts: [{ text: "slow" }] } })
    const started = performance.now()
    let settled = false
    let request: Http.ClientRequest | undefined
    const settle = (value: Stream | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (value === null) request?.destroy()
      resolve(value)
    }
    const timer = setTimeout(() => settle(null), OPEN_TIMEOUT_MS)
    const send = () => {
      const sent = Http.request(`${base}/message:stream`, {
        method: "POST",
        agent: false,
        headers: { ...HEADERS, accept: "text/event-stream", "content-length": Buffer.byteLength(body) }
      }, (res) => {
        if (res.statusCode === 503) {
          // The store pushes back: sent again once it says, as a client would.
          refusals.count++
          res.resume()
          const after = Number(res.headers["retry-after"] ?? 1)
          setTimeout(() => settled || send(), (Number.isFinite(after) ? after : 1) * 1000)
          return
        }
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          if (settled) return // later events are read and dropped, as a client that keeps up
          text += chunk
          const end = text.indexOf("\n\n")
          if (end === -1) return
          const data = text.slice(0, end).split("\n").find((line) => line.startsWith("data:"))?.slice(5)
          const taskId = (JSON.parse(data ?? "{}") as { task?: { id?: string } }).task?.id
          settle(taskId === undefined ? null : { taskId, firstEventMs: performance.now() - started, request: sent })
        })
        res.on("close", () => settle(null))
      })
      request = sent
      sent.on("error", () => settle(null))
      sent.end(body)
    }
    send()
  })

/** Runs `f` over `items`, `concurrency` at a time. */
const pool = async <A, B>(items: ReadonlyArray<A>, concurrency: number, f: (a: A) => Promise<B>) => {
  const out: Array<B> = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i]!)
    }
  }))
  return out
}

const timed = async (f: () => Promise<unknown>) => {
  const started = performance.now()
  await f()
  return performance.now() - started
}

/** Opens the streams as `method` says; every stream's first event, or null. */
const openAll = async (
  base: string,
  method: Method,
  refusals: { count: number },
  onFirst: (stream: Stream) => void
): Promise<Array<Stream | null>> => {
  const started = performance.now()
  const open = async (i: number) => {
    if (performance.now() - started > openLimitMs) return null
    const stream = await openStream(base, i, refusals)
    if (stream !== null) onFirst(stream)
    return stream
  }
  const all = Array.from({ length: streams }, (_, i) => i)
  if (method === "pool") return pool(all, parallel, open)
  if (method === "all") return Promise.all(all.map(open))
  const out: Array<Stream | null> = []
  for (let from = 0; from < streams; from += parallel) {
    out.push(...await Promise.all(all.slice(from, from + parallel).map(open)))
  }
  return out
}

/** Adds the triggers that count the task rows written (`--count-saves`); the bench's own table holds the count. */
const countingSaves = (dir: string) => {
  const db = new DatabaseSync(join(dir, "a2a.db"), { timeout: 10_000 })
  db.exec(`CREATE TABLE bench_saves (n INTEGER NOT NULL); INSERT INTO bench_saves VALUES (0);
    CREATE TABLE bench_first_saves (n INTEGER NOT NULL); INSERT INTO bench_first_saves VALUES (0);
    CREATE TRIGGER bench_saves_insert AFTER INSERT ON a2a_tasks BEGIN UPDATE bench_saves SET n = n + 1;
      UPDATE bench_first_saves SET n = n + 1; END;
    CREATE TRIGGER bench_saves_update AFTER UPDATE ON a2a_tasks BEGIN UPDATE bench_saves SET n = n + 1; END;`)
  return db
}

/** The task rows written so far, and the events they hold (a task's version is the sequence of its last event). */
const savesSoFar = (db: DatabaseSync) => {
  const saves = Number((db.prepare("SELECT n FROM bench_saves").get() as { n: number }).n)
  const firstSaves = Number((db.prepare("SELECT n FROM bench_first_saves").get() as { n: number }).n)
  const events = Number((db.prepare("SELECT SUM(version) AS v FROM a2a_tasks").get() as { v: number | null }).v ?? 0)
  return { saves, firstSaves, events, eventsPerSave: saves === 0 ? 0 : Number((events / saves).toFixed(2)) }
}

const runOnce = async (store: Store, method: Method) => {
  const dir = mkdtempSync(join(tmpdir(), "a2a-slow-streams-"))
  const { base, child, output } = await startServer(dir, store)
  try {
    await sleep(1000)
    const counter = countSaves && store === "sqlite" ? countingSaves(dir) : undefined
    const rssBefore = rssMiB(child.pid!)
    // GetTask latency, every 100 ms, from the first stream opened to the end of the hold: timed in a worker thread of
    // its own, so that this process reading thousands of streams does not delay the answer's reading.
    const prober = new Worker(PROBER, { eval: true, workerData: { base, headers: HEADERS } })
    const getTaskLatencies = new Promise<Array<number>>((resolve) => prober.once("message", resolve))
    let probe: string | undefined
    await heapSpaces(child, output) // from now on: the event loop's delay and the GC pauses
    const refusals = { count: 0 }
    const cpuBefore = cpuMs(child.pid!)
    const overflowsBefore = listenOverflows()
    const openStarted = performance.now()
    const opened = await openAll(base, method, refusals, (stream) => {
      if (probe !== undefined) return
      probe = stream.taskId
      prober.postMessage(probe)
    })
    const openAllMs = performance.now() - openStarted
    const openCpuMs = cpuMs(child.pid!) - cpuBefore
    const overflowsOpening = listenOverflows() - overflowsBefore
    const writtenOpening = counter === undefined ? undefined : savesSoFar(counter)
    const ok = opened.filter((s): s is Stream => s !== null)
    console.error(`${store}, ${method}: opened ${ok.length} of ${streams} in ${Math.round(openAllMs)} ms`)
    if (allocProfFile !== undefined) child.kill("SIGUSR2")
    await sleep(holdMs)
    const written = counter === undefined ? undefined : savesSoFar(counter)
    counter?.close()
    const rssHeld = rssMiB(child.pid!)
    const rssPeak = rssMiB(child.pid!, "VmHWM")
    const resident = residentMiB(child.pid!)
    const heldSpaces = await heapSpaces(child, output)
    if (allocProfFile !== undefined) child.kill("SIGUSR2")
    prober.postMessage(null)
    const getTaskMs = await getTaskLatencies
    await prober.terminate()
    let canceled = 0
    const cancelStarted = performance.now()
    const cancelMs = await timed(() =>
      pool(ok, 100, async (s) => {
        if (performance.now() - cancelStarted > CANCEL_LIMIT_MS) return
        await fetch(`${base}/tasks/${s.taskId}:cancel`, { method: "POST", headers: HEADERS, body: "{}" })
          .then((r) => r.text())
        canceled++
      })
    )
    for (const s of ok) s.request.destroy()
    await sleep(2000)
    const rssAfter = rssMiB(child.pid!)
    await sleep(Math.max(0, quietMs - 2000))
    const rssQuiet = rssMiB(child.pid!)
    const first = ok.map((s) => s.firstEventMs)
    const result = {
      store,
      method,
      streams,
      nodeOptions: nodeOptions.join(" "),
      load: loadAverage(),
      opened: ok.length,
      refused: refusals.count,
      firstEventP50Ms: Math.round(quantile(first, 0.5)),
      firstEventP90Ms: Math.round(quantile(first, 0.9)),
      firstEventP99Ms: Math.round(quantile(first, 0.99)),
      firstEventMaxMs: Math.round(quantile(first, 1)),
      firstEventOver2s: first.filter((ms) => ms > 2000).length,
      openAllMs: Math.round(openAllMs),
      getTasks: getTaskMs.length,
      getTaskP50Ms: Math.round(quantile(getTaskMs, 0.5)),
      getTaskP99Ms: Math.round(quantile(getTaskMs, 0.99)),
      getTaskMaxMs: Math.round(quantile(getTaskMs, 1)),
      getTaskOver100ms: getTaskMs.filter((ms) => ms > 100).length,
      written,
      writtenOpening,
      openCpuMs,
      listenOverflows: overflowsOpening,
      rssBeforeMiB: Math.round(rssBefore),
      rssHeldMiB: Math.round(rssHeld),
      rssPeakMiB: Math.round(rssPeak),
      residentHeldMiB: resident,
      heldHeapMiB: heldSpaces?.spaces,
      liveHeapMiB: heldSpaces?.liveMiB,
      loopDelayP99MaxMs: heldSpaces?.loopDelayMs,
      gcPausesMs: heldSpaces?.gcPausesMs,
      canceled,
      cancelMs: Math.round(cancelMs),
      rssAfterCancelMiB: Math.round(rssAfter),
      rssQuietMiB: Math.round(rssQuiet)
    }
    console.log(JSON.stringify(result))
    return result
  } finally {
    child.kill("SIGTERM")
    // A profile is written only by a server that stops by itself: give it longer.
    await Promise.race([
      new Promise((resolve) => child.once("exit", resolve)),
      sleep(cpuProfDir === undefined ? 10_000 : 60_000)
    ])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The 1-minute load average, as `uptime` gives it. */
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0]!

const main = async () => {
  const rows: Array<string> = []
  for (let round = 1; round <= rounds; round++) {
    for (const method of methods) {
      const memoryRss: Array<number> = []
      for (const store of stores) {
        const r = await runOnce(store, method)
        if (store === "memory") memoryRss.push(r.rssHeldMiB)
        const ratio = store === "sqlite" && memoryRss.length > 0
          ? ` (x${(r.rssHeldMiB / memoryRss[memoryRss.length - 1]!).toFixed(2)})`
          : ""
        rows.push(
          `| ${round} | ${store} | ${method} | ${r.load} | ${r.opened} | ${r.refused} | ${r.openAllMs} | ` +
            `${r.firstEventP50Ms} / ${r.firstEventP90Ms} / ${r.firstEventP99Ms} / ${r.firstEventMaxMs} | ` +
            `${r.firstEventOver2s} | ${r.getTaskP50Ms} / ${r.getTaskP99Ms} / ${r.getTaskMaxMs} | ` +
            `${r.rssHeldMiB}${ratio} | ${r.cancelMs} |`
        )
      }
    }
  }
  console.log([
    "| round | store | method | load | opened | refused | open all ms | first event p50 / p90 / p99 / max ms | over 2 s | " +
    "GetTask p50 / p99 / max ms | RSS held MiB (x memory) | cancel ms |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows
  ].join("\n"))
}

await main()
