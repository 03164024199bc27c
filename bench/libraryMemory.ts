/**
 * `node bench/libraryMemory.ts [subjects] [rounds] [seconds]`: resident memory of an A2A server as a library user runs
 * it, side by side with the official SDK and a bare node:http server, idle and after request/response load.
 *
 * Every subject is a plain JavaScript file in bench/servers/library/ run with plain `node` (no V8 flags unless the
 * subject says so) from the built package (`npm run build` first): `ours` is an Effect program on the public entry
 * points as docs/serving.md shows it (`NodeA2AServer.serve` over `DurableServer.layerConfig`, SQLite); `sdk` the
 * SDK's express server as its README sets it up; `bare` node:http answering fixed bodies. Each server runs pinned to
 * CPU 1 (`taskset -c 1`), the harness and its load generator (autocannon, 50 connections) on CPU 0. Per round, in an
 * order that rotates from round to round, each subject is started fresh and read:
 *
 * - **idle**: VmRSS 5 s after its card first answered, no request before (but that one);
 * - **after load**: VmRSS 5 s after `seconds` each of JSON-RPC SendMessage and REST `message:send` (answered with a
 *   direct message: no task kept) and JSON-RPC GetTask of one completed task, one after another; with the peak
 *   (VmHWM) and the requests served.
 *
 * The table gives the median of the rounds and the ratio to the SDK's median, with the load average at the start and
 * the end of the run. Defaults: ours,ours-low,sdk,bare 3 5. Subjects: ours (the docs' program, importing Effect and
 * the platform by module), ours-barrels (the same through the `@effect/platform-node` and `effect` barrels, as the
 * docs showed before), ours-low (ours with `lowMemory: true`), ours-memory (the same program over the memory stores:
 * the store's share of the cost), ours-flag (ours under
 * `NODE_OPTIONS=--max-semi-space-size=8`), ours-low-flag (both), sdk, bare, and `file:<path>` (any program that takes
 * PORT, e.g. ours.js copied into a worktree of an older commit). The per-round line also gives the CPU per request
 * of each load (SendMessage, REST, GetTask).
 *
 *   npm run build && node bench/libraryMemory.ts ours,ours-low,sdk,bare 3 5
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, FileSystem, Schedule } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { BenchError } from "./BenchError.ts"
import { ID, runLoad } from "./LoadGen.ts"
import { describe } from "./Machine.ts"
import { rpcBody, sendMessageParams } from "./Requests.ts"
import { readCpuTimes, readMemory } from "./ServerProcess.ts"

const root = Path.resolve(import.meta.dirname, "..")
const serversDir = Path.join(root, "bench", "servers", "library")
const SERVER_CPU = "1"
const HARNESS_CPU = "0"
const CONNECTIONS = 50
const SETTLE = "5 seconds"

interface Subject {
  readonly file: string
  readonly env?: Record<string, string>
}

/** The NODE_OPTIONS that bounds V8's young generation from the start (docs/production.md). */
const LOW_MEMORY_NODE_OPTIONS = "--max-semi-space-size=8"

const subjects: Record<string, Subject> = {
  ours: { file: "ours.js" },
  "ours-barrels": { file: "ours-barrels.js" },
  "ours-low": { file: "ours.js", env: { LIBRARY_LOW_MEMORY: "true" } },
  "ours-memory": { file: "ours-memory.js" },
  "ours-flag": { file: "ours.js", env: { NODE_OPTIONS: LOW_MEMORY_NODE_OPTIONS } },
  "ours-low-flag": { file: "ours.js", env: { LIBRARY_LOW_MEMORY: "true", NODE_OPTIONS: LOW_MEMORY_NODE_OPTIONS } },
  sdk: { file: "sdk.js" },
  bare: { file: "bare.js" }
}

/**
 * A subject by name; `file:<path>` runs that program (e.g. ours.js copied into a worktree of an older commit, which
 * then imports that commit's build: a regression check in the same run as today's).
 */
const subjectOf = (name: string): Subject | undefined =>
  name.startsWith("file:") ? { file: Path.resolve(name.slice("file:".length)) } : subjects[name]

const [subjectArg = "ours,ours-low,sdk,bare", roundsArg = "3", secondsArg = "5"] = process.argv.slice(2)
const rounds = Number(roundsArg)
const seconds = Number(secondsArg)

/** A port free a moment ago, for the next server (the library user's programs take PORT, as the examples do). */
const freePort = Effect.callback<number, BenchError>((resume) => {
  const server = Net.createServer()
  server.once("error", (cause) => resume(Effect.fail(new BenchError({ message: "no free port", cause }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = address !== null && typeof address === "object" ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const fetchText = (url: string, init?: { readonly method: "POST"; readonly body: string }) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, {
        signal,
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        ...(init ?? {})
      })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      return await response.text()
    },
    catch: (cause) => new BenchError({ message: `${init?.method ?? "GET"} ${url} failed`, cause })
  })

interface Interfaces {
  readonly jsonRpc: string
  readonly rest: string
}

/** Waits for the card (polling), and takes the JSON-RPC and HTTP+JSON URLs from it. */
const awaitCard = (origin: string) =>
  fetchText(`${origin}/.well-known/agent-card.json`).pipe(
    Effect.retry({ times: 300, schedule: Schedule.spaced("100 millis") }),
    Effect.flatMap((text) =>
      Effect.try({
        try: () => {
          const card = JSON.parse(text) as {
            supportedInterfaces: ReadonlyArray<{ url: string; protocolBinding: string }>
          }
          const url = (binding: string) => {
            const found = card.supportedInterfaces.find((i) => i.protocolBinding === binding)?.url
            if (found === undefined) throw new Error(`no ${binding} interface`)
            return found.replace(/\/$/, "")
          }
          return { jsonRpc: url("JSONRPC"), rest: url("HTTP+JSON") } satisfies Interfaces
        },
        catch: (cause) => new BenchError({ message: `bad card at ${origin}`, cause })
      })
    )
  )

/** The id of a completed task made for GetTask (the bare server answers any id). */
const makeTask = (jsonRpc: string) =>
  fetchText(jsonRpc, { method: "POST", body: rpcBody("SendMessage", sendMessageParams("task hello", "prepare-1")) })
    .pipe(Effect.map((text) => /"id":"([^"]+)"/.exec(text.slice(text.indexOf("\"task\"")))?.[1] ?? "t-1"))

interface Reading {
  readonly idleKb: number
  readonly afterKb: number
  readonly peakKb: number
  readonly requests: number
  readonly errors: number
  /** The server's CPU time (user + system) during the load, per request. */
  readonly cpuUsPerRequest: number
  /** Requests per second over the three loads. */
  readonly throughput: number
  /** The server's CPU time per request of each load (SendMessage, REST message:send, GetTask), in µs. */
  readonly cpuUsPerKind: ReadonlyArray<number>
}

const measure = (name: string, subject: Subject) =>
  Effect.scoped(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const port = yield* freePort
    const dataDir = yield* fs.makeTempDirectoryScoped()
    const handle = yield* spawner.spawn(
      ChildProcess.make("taskset", ["-c", SERVER_CPU, process.execPath, Path.resolve(serversDir, subject.file)], {
        cwd: root,
        env: { PORT: String(port), A2A_DATA_DIR: dataDir, NODE_OPTIONS: "", ...subject.env },
        extendEnv: true,
        stdout: "ignore",
        stderr: "inherit",
        forceKillAfter: "5 seconds"
      })
    ).pipe(Effect.mapError((cause) => new BenchError({ message: `cannot start ${name}`, cause })))
    const pid = Number(handle.pid)
    const origin = `http://127.0.0.1:${port}`
    const { jsonRpc, rest } = yield* awaitCard(origin)
    yield* Effect.sleep(SETTLE)
    const idle = yield* readMemory(pid)
    const taskId = yield* makeTask(jsonRpc)
    const settings = { connections: CONNECTIONS, durationSec: seconds }
    const loads = [
      {
        url: jsonRpc,
        method: "POST" as const,
        body: rpcBody("SendMessage", sendMessageParams("echo hello", ID)),
        uniqueIds: true,
        verify: (body: string) => body.includes("\"result\"") && !body.includes("\"error\"")
      },
      {
        url: `${rest}/message:send`,
        method: "POST" as const,
        body: JSON.stringify(sendMessageParams("echo hello", ID)),
        uniqueIds: true,
        verify: (body: string) => body.includes("\"message\"") && !body.includes("\"error\"")
      },
      {
        url: jsonRpc,
        method: "POST" as const,
        body: rpcBody("GetTask", { id: taskId }),
        verify: (body: string) => body.includes("TASK_STATE_COMPLETED")
      }
    ]
    let requests = 0
    let errors = 0
    const cpuUsPerKind: Array<number> = []
    const cpuBefore = yield* readCpuTimes(pid)
    const started = performance.now()
    let kindBefore = cpuBefore
    for (const load of loads) {
      const figures = yield* runLoad(load, settings)
      const kindAfter = yield* readCpuTimes(pid)
      const kindMs = kindAfter.userMs + kindAfter.systemMs - kindBefore.userMs - kindBefore.systemMs
      cpuUsPerKind.push(figures.completed === 0 ? 0 : (kindMs * 1000) / figures.completed)
      kindBefore = kindAfter
      requests += figures.completed
      errors += figures.errors
    }
    const elapsed = (performance.now() - started) / 1000
    const cpuAfter = yield* readCpuTimes(pid)
    const cpuMs = cpuAfter.userMs + cpuAfter.systemMs - cpuBefore.userMs - cpuBefore.systemMs
    yield* Effect.sleep(SETTLE)
    const after = yield* readMemory(pid)
    return {
      idleKb: idle.rssKb,
      afterKb: after.rssKb,
      peakKb: after.peakKb,
      requests,
      errors,
      cpuUsPerRequest: requests === 0 ? 0 : (cpuMs * 1000) / requests,
      throughput: requests / elapsed,
      cpuUsPerKind
    } satisfies Reading
  }))

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const mib = (kb: number) => (kb / 1024).toFixed(1)

const program = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  if (!(yield* fs.exists(Path.join(root, "dist", "node", "index.js")))) {
    return yield* new BenchError({ message: "no dist/: run npm run build first" })
  }
  const names = subjectArg.split(",")
  for (const name of names) {
    if (subjectOf(name) === undefined) return yield* new BenchError({ message: `no subject ${name}` })
  }
  yield* spawner.string(ChildProcess.make("taskset", ["-a", "-pc", HARNESS_CPU, String(process.pid)])).pipe(
    Effect.mapError((cause) => new BenchError({ message: "cannot pin the harness with taskset", cause }))
  )
  const machine = yield* describe
  const readings = new Map<string, Array<Reading>>(names.map((name) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!)
    for (const name of order) {
      const reading = yield* measure(name, subjectOf(name)!)
      readings.get(name)!.push(reading)
      yield* Console.error(
        `round ${round + 1} ${name}: idle ${mib(reading.idleKb)}, after load ${mib(reading.afterKb)}, peak `
          + `${mib(reading.peakKb)} MiB, ${reading.requests} requests (${reading.throughput.toFixed(0)}/s, `
          + `${reading.cpuUsPerRequest.toFixed(0)} CPU µs each; SendMessage, REST, GetTask `
          + `${reading.cpuUsPerKind.map((us) => us.toFixed(0)).join(", ")}), ${reading.errors} errors, load average `
          + Os.loadavg().map((l) => l.toFixed(2)).join(" ")
      )
    }
  }
  const sdk = readings.get("sdk")
  const sdkIdle = sdk === undefined ? undefined : median(sdk.map((r) => r.idleKb))
  const sdkAfter = sdk === undefined ? undefined : median(sdk.map((r) => r.afterKb))
  const ratio = (kb: number, base: number | undefined) => base === undefined ? "" : `x${(kb / base).toFixed(2)}`
  yield* Console.log(
    `Library-user memory, ${rounds} rounds (medians), ${seconds} s per load x 3, ${CONNECTIONS} connections, server on `
      + `CPU ${SERVER_CPU}; ${machine.node}, ${machine.cores} cores, commit ${machine.commit}; load average at start `
      + `${machine.loadAverage.join(" ")}, at end ${Os.loadavg().map((l) => l.toFixed(2)).join(" ")}`
  )
  yield* Console.log(
    "| server | RSS idle (MiB) | vs SDK | RSS after load (MiB) | vs SDK | peak (MiB) | req/s | CPU µs/req | errors |\n"
      + "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  )
  for (const name of names) {
    const rs = readings.get(name)!
    const idle = median(rs.map((r) => r.idleKb))
    const after = median(rs.map((r) => r.afterKb))
    yield* Console.log(
      `| ${name} | ${mib(idle)} (${rs.map((r) => mib(r.idleKb)).join(", ")}) | ${ratio(idle, sdkIdle)} | ${mib(after)} `
        + `(${rs.map((r) => mib(r.afterKb)).join(", ")}) | ${ratio(after, sdkAfter)} | `
        + `${mib(median(rs.map((r) => r.peakKb)))} | ${median(rs.map((r) => r.throughput)).toFixed(0)} | `
        + `${median(rs.map((r) => r.cpuUsPerRequest)).toFixed(0)} | `
        + `${rs.reduce((sum, r) => sum + r.errors, 0)} |`
    )
  }
})

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
