/**
 * One benchmarked server in its own child process: spawned with the Node running the harness,
 * ready once it prints its origin, its endpoints discovered from its agent card, killed (SIGTERM,
 * then SIGKILL) when the scope closes. RSS is read from /proc/<pid>/status.
 */
import { Deferred, Effect, FileSystem, Schema, type Scope, Stream } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Path from "node:path"
import * as V8 from "node:v8"
import { serveFlags } from "../src/cli/Relaunch.ts"
import { BenchError } from "./BenchError.ts"
import {
  AGENT_CARD_PATH,
  ALLOCATION_PROFILE_ENV,
  GC_SIGNAL,
  PROFILE_ENV,
  PROFILE_START_SIGNAL,
  READY_PREFIX,
  RELEASE_MEMORY_ENV
} from "./TrivialAgent.ts"

export const serverKinds = [
  "ours",
  "ours-sqlite",
  "ours-sqlite-full",
  "bun",
  "sdk",
  "ceiling",
  "sse-floor",
  "gateway",
  "gateway-fetch",
  "gateway-full",
  "gateway-generic",
  "proxy-ceiling"
] as const
export type ServerKind = typeof serverKinds[number]

/** What runs when `--servers` is not given: SQLite with `synchronous=FULL` only on request. */
export const defaultServerKinds: ReadonlyArray<ServerKind> = ["ours", "ours-sqlite", "sdk", "ceiling"]

export const serverLabel: Record<ServerKind, string> = {
  ours: "effect-a2a",
  "ours-sqlite": "effect-a2a SQLite",
  "ours-sqlite-full": "effect-a2a SQLite FULL",
  bun: "effect-a2a on Bun",
  sdk: "@a2a-js/sdk",
  ceiling: "node:http ceiling",
  "sse-floor": "node:http SSE floor",
  gateway: "gateway -> effect-a2a",
  "gateway-fetch": "gateway (fetch) -> effect-a2a",
  "gateway-full": "gateway (no relay) -> effect-a2a",
  "gateway-generic": "gateway (relay on Effect's HTTP) -> effect-a2a",
  "proxy-ceiling": "node:http proxy -> effect-a2a"
}

export interface Endpoints {
  readonly card: string
  readonly jsonRpc: string
  readonly rest: string
  /** The gRPC target (`host:port`), when the server's card lists a GRPC interface. */
  readonly grpc?: string | undefined
}

export interface BenchServer {
  readonly kind: ServerKind
  readonly pid: number
  readonly origin: string
  readonly endpoints: Endpoints
  /** Resident set size of the server process, in KiB. */
  readonly rssKb: Effect.Effect<number, BenchError>
  /** Current and peak (VmHWM) resident set size, in KiB. */
  readonly memory: Effect.Effect<Memory, BenchError>
  /** CPU time (user + system) the server process has used so far, ms. */
  readonly cpuMs: Effect.Effect<number, BenchError>
  /** The same, user and system apart (the kernel's share: a socket's writes on loopback carry the receiver's work). */
  readonly cpuTimes: Effect.Effect<CpuTimes, BenchError>
  /** Starts the CPU profiler of a server started with `cpuProfile` (no-op otherwise). */
  readonly startProfiler: Effect.Effect<void>
  /** Starts, then (called again) stops and writes, the allocation profile of a server started with one. */
  readonly toggleAllocationProfile: Effect.Effect<void>
  /** Asks the server for a full garbage collection (it runs shortly after). */
  readonly collectGarbage: Effect.Effect<void>
}

export interface Memory {
  readonly rssKb: number
  readonly peakKb: number
}

export interface StartOptions {
  /** Profile this server's CPU into the file, from `startProfiler` until it exits. */
  readonly cpuProfile?: string | undefined
  /**
   * Sample this server's allocations (garbage included) into the file, from the first PROFILE_START_SIGNAL to the
   * second (see `BenchServer.toggleAllocationProfile`).
   */
  readonly allocationProfile?: string | undefined
  /** Extra Node options for the server process (e.g. `--heapsnapshot-signal=SIGUSR1`). */
  readonly nodeOptions?: ReadonlyArray<string> | undefined
  /** Takes each line the server prints other than its ready line (default: passed through to stderr). */
  readonly output?: ((line: string) => void) | undefined
  /**
   * Runs the server on these CPUs only (`taskset -c`, e.g. "0"): what a 1-CPU container gives it. The harness, and
   * so the load generator, then runs on the others (see `pinHarness`).
   */
  readonly cpus?: string | undefined
  /**
   * false: our servers do not give memory back when quiet (IdleMemoryRelease, on in production). For the idle-stream
   * readings, where a collection between two readings would be counted as the streams' memory.
   */
  readonly releaseMemory?: boolean | undefined
  /**
   * What a container with this much memory (MiB) gives the server: Node is told the heap limit
   * (`--max-old-space-size`) and the young generation it would size for itself in such a container (see
   * `containerFlags`; both before `nodeOptions`, which may set others), and the server is killed (SIGKILL) as soon as
   * its RSS, read every 50 ms, goes above the limit, as a cgroup's OOM killer would (no cgroup could be made on the
   * machines this was written on, and `ulimit -v` keeps Node from starting: V8 reserves address space up front).
   */
  readonly memoryLimitMiB?: number | undefined
}

const benchDir = import.meta.dirname
const repoRoot = Path.resolve(benchDir, "..")

const ReadyLine = Schema.fromJsonString(Schema.Struct({ origin: Schema.String }))

const CardInterfaces = Schema.Struct({
  supportedInterfaces: Schema.Array(Schema.Struct({ url: Schema.String, protocolBinding: Schema.String }))
})

const fetchCard = Effect.fnUntraced(function*(origin: string) {
  const url = `${origin}${AGENT_CARD_PATH}`
  const body = yield* Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, { headers: { "A2A-Version": "1.0" }, signal })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      return (await response.json()) as unknown
    },
    catch: (cause) => new BenchError({ message: `GET ${url} failed`, cause })
  }).pipe(
    Effect.timeoutOrElse({
      duration: "15 seconds",
      orElse: () => Effect.fail(new BenchError({ message: `GET ${url}: no answer within 15 s` }))
    })
  )
  const card = yield* Schema.decodeUnknownEffect(CardInterfaces)(body).pipe(
    Effect.mapError((cause) => new BenchError({ message: `agent card at ${url} has no usable interfaces`, cause }))
  )
  const find = (binding: string) =>
    Effect.fromNullishOr(card.supportedInterfaces.find((i) => i.protocolBinding === binding)?.url).pipe(
      Effect.mapError(() => new BenchError({ message: `agent card at ${url} has no ${binding} interface` }))
    )
  const grpc = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")?.url
  return { card: url, jsonRpc: yield* find("JSONRPC"), rest: yield* find("HTTP+JSON"), grpc } satisfies Endpoints
})

/** The CPUs a pinned server runs on, and those left to the harness (and its load generator). */
export const SERVER_CPUS = "0"

/**
 * Pins the harness process (its threads included) to every CPU but the server's: with `--pin`, the load generator
 * never competes with the server for its core. Fails on a machine with one CPU, or without `taskset`.
 */
export const pinHarness = (cores: number): Effect.Effect<void, BenchError, ChildProcessSpawner.ChildProcessSpawner> =>
  cores < 2
    ? Effect.fail(new BenchError({ message: "--pin needs at least 2 CPUs (server and load generator)" }))
    : Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      yield* spawner.string(ChildProcess.make("taskset", ["-a", "-pc", `1-${cores - 1}`, String(process.pid)])).pipe(
        Effect.mapError((cause) => new BenchError({ message: "cannot pin the harness with taskset", cause }))
      )
    })

/** VmRSS and VmHWM of a process, in KiB (Linux /proc). */
export const readMemory = (pid: number): Effect.Effect<Memory, BenchError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const status = yield* fs.readFileString(`/proc/${pid}/status`)
    const field = (name: string) => {
      const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, "m").exec(status)
      return match?.[1] === undefined ? undefined : Number(match[1])
    }
    const rssKb = field("VmRSS")
    const peakKb = field("VmHWM")
    if (rssKb === undefined || peakKb === undefined) {
      return yield* new BenchError({ message: `no VmRSS/VmHWM in /proc/${pid}/status` })
    }
    return { rssKb, peakKb }
  }).pipe(
    Effect.catchTag(
      "PlatformError",
      (cause) => Effect.fail(new BenchError({ message: `cannot read RSS of ${pid}`, cause }))
    )
  )

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on every Linux build in use). */
const USER_HZ = 100

export interface CpuTimes {
  readonly userMs: number
  readonly systemMs: number
}

/** User and system CPU time of a process, in ms (Linux /proc). */
export const readCpuTimes = (pid: number): Effect.Effect<CpuTimes, BenchError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const stat = yield* fs.readFileString(`/proc/${pid}/stat`)
    // Fields after "(comm)": state is field 3, utime 14, stime 15 (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const utime = Number(fields[11])
    const stime = Number(fields[12])
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) {
      return yield* new BenchError({ message: `cannot parse /proc/${pid}/stat` })
    }
    return { userMs: (utime * 1000) / USER_HZ, systemMs: (stime * 1000) / USER_HZ }
  }).pipe(
    Effect.catchTag(
      "PlatformError",
      (cause) => Effect.fail(new BenchError({ message: `cannot read CPU time of ${pid}`, cause }))
    )
  )

/**
 * The V8 flags a Node server gets in a container of `limitMiB`: the heap limit, and the young generation Node sizes
 * from the memory the container gives it (Node configures V8's heap from the cgroup's limit, not the machine's
 * memory: V8's `Heap::HeapSizeFromPhysicalMemory` takes a quarter of it, times 2 on 64-bit without pointer compression,
 * as old generation, and `YoungGenerationSizeFromOldGenerationSize` a 256th of that, at least 1 MiB, as semi-space
 * up to 256 MiB of old generation, a 128th beyond). Outside a container V8 sizes both from the machine's memory, whose
 * young generation may reach 64 MiB semi-spaces: this harness cannot make a cgroup, so it says so with flags.
 */
export const containerFlags = (limitMiB: number): ReadonlyArray<string> => {
  const oldGeneration = limitMiB / 2
  const semiSpace = Math.max(1, Math.floor(oldGeneration / (oldGeneration <= 256 ? 256 : 128)))
  return [`--max-old-space-size=${limitMiB}`, `--max-semi-space-size=${semiSpace}`]
}

/** Kills the server once its RSS goes above `limitMiB` (see `StartOptions.memoryLimitMiB`). */
const enforceLimit = (
  kind: ServerKind,
  pid: number,
  memory: Effect.Effect<Memory, BenchError>,
  limitMiB: number
): Effect.Effect<void, never, Scope.Scope> =>
  memory.pipe(
    Effect.flatMap(({ rssKb }) => {
      if (rssKb <= limitMiB * 1024) return Effect.void
      return Effect.sync(() => {
        process.stderr.write(
          `[${kind}] killed: RSS ${Math.round(rssKb / 1024)} MiB, above the ${limitMiB} MiB limit (--memory-limit)\n`
        )
        process.kill(pid, "SIGKILL")
      }).pipe(Effect.andThen(Effect.fail(new BenchError({ message: `${kind} killed above its memory limit` }))))
    }),
    Effect.andThen(Effect.sleep("50 millis")),
    Effect.forever,
    Effect.ignore,
    Effect.forkScoped,
    Effect.asVoid
  )

export const start = Effect.fnUntraced(function*(
  kind: ServerKind,
  options: StartOptions
): Effect.fn.Return<
  BenchServer,
  BenchError,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem
> {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const fs = yield* FileSystem.FileSystem
  const script = Path.join(benchDir, "servers", `${kind}.ts`)
  // The Bun server runs on the bun devDependency's runtime (Node options do not apply there).
  const [program, programArgs] = kind === "bun"
    ? [Path.join(repoRoot, "node_modules", ".bin", "bun"), [script]]
    : [process.execPath, [
      "--expose-gc",
      // A container's sizing; then ours as `effect-a2a serve` runs under that heap limit (src/cli/Relaunch.ts,
      // `serveFlags`; without one, the machine's: this process's); `nodeOptions` come last and win
      // (`--allocation-site-pretenuring`, `--heap-growing-percent=0` give V8's defaults back).
      ...(options.memoryLimitMiB === undefined ? [] : containerFlags(options.memoryLimitMiB)),
      ...(kind.startsWith("ours")
        ? serveFlags(
          options.memoryLimitMiB === undefined
            ? V8.getHeapStatistics().heap_size_limit
            : options.memoryLimitMiB * 1048576
        )
        : []),
      ...(options.nodeOptions ?? []),
      script
    ]]
  // taskset execs the server in place, so the pid is still the server's.
  const [command, args] = options.cpus === undefined
    ? [program, programArgs]
    : ["taskset", ["-c", options.cpus, program, ...programArgs]]
  const handle = yield* spawner.spawn(
    ChildProcess.make(command, args, {
      cwd: repoRoot,
      env: {
        NODE_ENV: "production",
        [PROFILE_ENV]: options.cpuProfile,
        [ALLOCATION_PROFILE_ENV]: options.allocationProfile,
        [RELEASE_MEMORY_ENV]: options.releaseMemory === false ? "false" : undefined
      },
      extendEnv: true,
      stdout: "pipe",
      stderr: "inherit",
      forceKillAfter: "10 seconds"
    })
  ).pipe(Effect.mapError((cause) => new BenchError({ message: `cannot start the ${kind} server`, cause })))
  const pid = Number(handle.pid)

  // The first READY line resolves `ready`; every other stdout line is passed through, prefixed.
  const ready = yield* Deferred.make<string, BenchError>()
  yield* handle.stdout.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.runForEach((line) =>
      line.startsWith(READY_PREFIX)
        ? Schema.decodeEffect(ReadyLine)(line.slice(READY_PREFIX.length)).pipe(
          Effect.flatMap(({ origin }) => Deferred.succeed(ready, origin)),
          Effect.catch((cause) => Deferred.fail(ready, new BenchError({ message: `bad ready line: ${line}`, cause })))
        )
        : Effect.sync(() =>
          options.output !== undefined ? options.output(line) : process.stderr.write(`[${kind}] ${line}\n`)
        )
    ),
    Effect.ensuring(Deferred.fail(ready, new BenchError({ message: `the ${kind} server exited before it was ready` }))),
    Effect.ignore,
    Effect.forkScoped
  )
  const origin = yield* Deferred.await(ready).pipe(
    Effect.timeoutOrElse({
      duration: "60 seconds",
      orElse: () => Effect.fail(new BenchError({ message: `the ${kind} server was not ready within 60 s` }))
    })
  )
  const endpoints = yield* fetchCard(origin)
  const memory = readMemory(pid).pipe(Effect.provideService(FileSystem.FileSystem, fs))
  const cpuTimes = readCpuTimes(pid).pipe(Effect.provideService(FileSystem.FileSystem, fs))
  if (options.memoryLimitMiB !== undefined) yield* enforceLimit(kind, pid, memory, options.memoryLimitMiB)
  const startProfiler = options.cpuProfile === undefined || kind === "bun"
    ? Effect.void
    : Effect.ignore(Effect.try(() => process.kill(pid, PROFILE_START_SIGNAL)))
  return {
    kind,
    pid,
    origin,
    endpoints,
    memory,
    rssKb: Effect.map(memory, (m) => m.rssKb),
    cpuMs: Effect.map(cpuTimes, (t) => t.userMs + t.systemMs),
    cpuTimes,
    startProfiler,
    toggleAllocationProfile: options.allocationProfile === undefined || kind === "bun"
      ? Effect.void
      : Effect.ignore(Effect.try(() => process.kill(pid, PROFILE_START_SIGNAL))),
    collectGarbage: Effect.ignore(Effect.try(() => process.kill(pid, GC_SIGNAL)))
  }
})
