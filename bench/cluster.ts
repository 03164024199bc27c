// The cluster engine's cost (issues #34, #42): `node bench/cluster.ts POSTGRES_URL [SECONDS]`. Starts 1, 2 and 3
// `effect-a2a serve` nodes (test/fixtures/ClusterAgent.ts) on a PostgreSQL database (its public schema is emptied
// before each run), and sends "sleep 100" messages from 64 clients spread over the nodes for SECONDS (default 10).
// Engine off (each node runs what it receives, A2A_CLUSTER=false) and on are run alternately, node count by node
// count, BENCH_REPEAT times (default 1), so that both see the same machine.
//
// Settings (environment): BENCH_CLIENTS (default 64), BENCH_NODES (default "1,2,3"), BENCH_ENGINE ("off,on", the
// order of each pair), BENCH_SEND ("blocking", default, or "nonblocking": returnImmediately, the next send of a client
// as soon as the previous is acknowledged), BENCH_SETTLE (seconds the started nodes are given before the first
// turn, default 4 with the engine, 1 without), BENCH_IDLE (seconds the nodes are then left idle, measured, before the
// load, default 5: on a loaded machine give BENCH_SETTLE some more, the engine's shards still being taken at first),
// BENCH_WARMUP (seconds of the load before the idle measurement, default 0: one turn per node), BENCH_STATEMENTS=SCHEMA (where `CREATE EXTENSION pg_stat_statements SCHEMA ...` put its view, the
// server started with shared_preload_libraries = 'pg_stat_statements'), BENCH_STATEMENT_LIST=1 (with it: the load's
// statements by text, with their calls per turn).
//
// BENCH_ALLOCATIONS=DIR writes each node's sampling allocation profile of the load (the garbage counted) to DIR
// (`node bench/cpuOwners.ts --turns=N FILE.heapprofile` gives its bytes per turn by owner).
// BENCH_CALLGRIND=DIR runs each node under valgrind's callgrind (instrumentation off at the start, on for the load
// alone, `node --single-threaded` so that V8's collector and compiler count too) and adds the node's instructions
// per turn: a count other processes do not move, for a loaded machine (give BENCH_SETTLE 60 or more, and expect a
// few turns per second). Every run also gives the nodes' CPU time per turn (their utime + stime from /proc), and its system part.
//
// Prints one JSON line per run: turns/s, the time a turn adds to its 100 ms (p50/p99 of the blocking SendMessage
// latency minus 100 ms; a non-blocking send's latency as it is), the transactions PostgreSQL committed per turn
// (pg_stat_database's xact_commit, the nodes' background included) and per second while the nodes were idle, and
// with BENCH_STATEMENTS the statements per turn; the load average as the run ended. Commits and statements do not
// depend on how loaded the machine is; turns/s and latencies do: on a shared machine read them as orders of
// magnitude, and compare only runs of one invocation.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const BIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))
const AGENT = fileURLToPath(new URL("../test/fixtures/ClusterAgent.ts", import.meta.url))
const url = process.argv[2]
const seconds = Number(process.argv[3] ?? "10")
if (url === undefined) throw new Error("usage: node bench/cluster.ts POSTGRES_URL [SECONDS]")
const CLIENTS = Number(process.env["BENCH_CLIENTS"] ?? "64")
const IDLE_SECONDS = Number(process.env["BENCH_IDLE"] ?? "5")
const SETTLE_SECONDS = process.env["BENCH_SETTLE"]
const WARMUP_SECONDS = Number(process.env["BENCH_WARMUP"] ?? "0")
const REPEAT = Number(process.env["BENCH_REPEAT"] ?? "1")
const NONBLOCKING = process.env["BENCH_SEND"] === "nonblocking"
const SLEEP_MS = 100
const CALLGRIND = process.env["BENCH_CALLGRIND"]
const ALLOCATIONS = process.env["BENCH_ALLOCATIONS"]
const PRELOAD = fileURLToPath(new URL("./servers/allocationPreload.ts", import.meta.url))
// What `serve` would relaunch itself with (src/cli/Relaunch.ts), given here: under valgrind a relaunch (execve)
// would leave the callgrind tool.
const SERVE_FLAGS = ["--max-semi-space-size=8", "--no-allocation-site-pretenuring", "--heap-growing-percent=100"]

const startNode = (cluster: boolean): Promise<{ child: ChildProcess; base: string }> =>
  new Promise((resolve, reject) => {
    const serve = [BIN, "serve", "--port", "0", "--agent", AGENT, "--no-ui"]
    const [command, args] = CALLGRIND === undefined
      ? [process.execPath, serve]
      : ["valgrind", [
        "--tool=callgrind",
        "--instr-atstart=no",
        `--callgrind-out-file=${CALLGRIND}/callgrind.out.%p`,
        process.execPath,
        "--single-threaded",
        ...SERVE_FLAGS,
        ...serve
      ]]
    const child = spawn(command, args, {
      env: {
        ...process.env,
        A2A_DATABASE_URL: url,
        A2A_CLUSTER: String(cluster),
        A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-bench-")),
        ...(ALLOCATIONS === undefined ? {} : {
          NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --import ${PRELOAD}`,
          BENCH_ALLOCATION_PROFILE: join(ALLOCATIONS, `engine-${cluster ? "on" : "off"}-${Date.now()}.heapprofile`)
        })
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const seen = (chunk: Buffer) => {
      output += chunk.toString()
      const m = /listening on (https?:\/\/\S+);/.exec(output)
      if (m !== null) resolve({ child, base: m[1]! })
    }
    child.stdout.on("data", seen)
    child.stderr.on("data", seen)
    child.on("exit", () => reject(new Error(output)))
  })

const send = async (base: string, nonblocking: boolean): Promise<number> => {
  const started = performance.now()
  const response = await fetch(`${base}/message:send`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: `sleep ${SLEEP_MS}` }] },
      ...(nonblocking ? { configuration: { returnImmediately: true } } : {})
    })
  })
  const body = await response.json() as { task?: { status: { state: string } } }
  const state = body.task?.status.state
  const ok = nonblocking ? state !== undefined && state !== "TASK_STATE_FAILED" : state === "TASK_STATE_COMPLETED"
  if (!ok) throw new Error(JSON.stringify(body))
  return performance.now() - started
}

const STATEMENTS = process.env["BENCH_STATEMENTS"]
// With BENCH_STATEMENTS: the load's statements listed by text, with their calls per turn (the view reset before).
const STATEMENT_LIST = STATEMENTS !== undefined && process.env["BENCH_STATEMENT_LIST"] === "1"

/** The transactions committed and statements run in the database so far (PostgreSQL's statistics). */
const counters = (): { readonly commits: number; readonly statements: number } => {
  const statements = STATEMENTS === undefined ? "0" : `(SELECT sum(calls) FROM ${STATEMENTS}.pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()))`
  // The statistics of the transactions that just ended are flushed now, not up to a second later.
  const [commits, run] = execFileSync("psql", [
    url,
    "-qAtc",
    `SELECT pg_stat_force_next_flush(); SELECT pg_stat_clear_snapshot();
     SELECT xact_commit, ${statements} FROM pg_stat_database WHERE datname = current_database()`
  ]).toString().trim().split("\n").at(-1)!.split("|").map(Number)
  return { commits: commits!, statements: run! }
}
// psql's own session commits (the statements of `counters`): taken off each difference.
const PROBE_COMMITS = 2

/** A node's CPU time so far, in microseconds: user and system (utime, stime of /proc/PID/stat, clock ticks of 10 ms). */
const cpuMicros = (pid: number): { readonly user: number; readonly system: number } => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 }
}

/** The PostgreSQL server's process (the first line of its data directory's postmaster.pid; same machine). */
const postmaster = (): number => {
  const directory = execFileSync("psql", [url, "-qAtc", "SHOW data_directory"]).toString().trim()
  return Number(readFileSync(join(directory, "postmaster.pid"), "utf8").split("\n")[0])
}

/**
 * The PostgreSQL server's CPU time so far, in microseconds: its live processes' (the backends, the background
 * workers) and, through the server's cutime and cstime, those of the backends that ended and were reaped.
 */
const pgCpuMicros = (server: number): number => {
  let ticks = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    let fields: Array<string>
    try {
      fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")
    } catch {
      continue
    }
    const pid = Number(entry)
    if (pid === server) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    else if (Number(fields[1]) === server) ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks * 10_000
}

/**
 * The statements of the load by text (pg_stat_statements, reset before it), each with its calls per turn and its
 * execution time per turn in µs (the executor's, planning and the protocol's round trip not included).
 */
const statementList = (turns: number): Array<[number, number, string]> =>
  execFileSync("psql", [
    url,
    "-qAtc",
    `SELECT calls, total_exec_time, regexp_replace(left(query, 90), '\\s+', ' ', 'g')
     FROM ${STATEMENTS}.pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY calls DESC LIMIT 25`
  ]).toString().trim().split("\n").map((line) => {
    const [calls, ms, ...text] = line.split("|")
    return [
      Math.round(Number(calls) / turns * 100) / 100,
      Math.round(Number(ms) * 1000 / turns),
      text.join("|")
    ] as [number, number, string]
  })

/** Turns callgrind's instrumentation of a node on or off. */
const instrument = (pid: number, on: boolean) =>
  execFileSync("callgrind_control", [`--instr=${on ? "on" : "off"}`, String(pid)], { stdio: "ignore" })

/** The instructions callgrind counted in a node, once it has exited and written its file. */
const instructions = (pid: number): number => {
  const text = readFileSync(join(CALLGRIND!, readdirSync(CALLGRIND!).find((f) => f.endsWith(`.${pid}`))!), "utf8")
  return Number(/^totals: (\d+)/m.exec(text)![1])
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** CLIENTS clients, each sending turn after turn to its node until `until`; each latency pushed to `latencies`. */
const load = (started: ReadonlyArray<{ base: string }>, until: number, latencies: Array<number>) =>
  Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    const base = started[c % started.length]!.base
    while (performance.now() < until) latencies.push(await send(base, NONBLOCKING))
  }))

const run = async (nodes: number, cluster: boolean) => {
  execFileSync("psql", [url, "-qc", "DROP SCHEMA public CASCADE; CREATE SCHEMA public"], { stdio: "ignore" })
  const started: Array<{ child: ChildProcess; base: string }> = []
  for (let i = 0; i < nodes; i++) started.push(await startNode(cluster))
  await sleep(SETTLE_SECONDS !== undefined ? Number(SETTLE_SECONDS) * 1000 : cluster ? 4_000 : 1_000)
  // Warm-up: one turn per node, then BENCH_WARMUP seconds of the load (for the JIT, under callgrind).
  await Promise.all(started.map((n) => send(n.base, false)))
  await load(started, performance.now() + WARMUP_SECONDS * 1000, [])
  await sleep(1_000)
  const server = postmaster()
  const pids = started.map((n) => n.child.pid!)
  const idleFrom = counters()
  const idleCpuFrom = pids.map(cpuMicros)
  const idlePgFrom = pgCpuMicros(server)
  const idleStart = performance.now()
  await sleep(IDLE_SECONDS * 1000)
  const idleTo = counters()
  const idleSeconds = (performance.now() - idleStart) / 1000
  const idleCommits = (idleTo.commits - idleFrom.commits - PROBE_COMMITS) / idleSeconds
  // The nodes' and PostgreSQL's CPU time per second while idle: their background (polls, heartbeats, timers).
  const idleNodeCpu = pids.map(cpuMicros).reduce(
    (sum, now, i) => sum + now.user + now.system - idleCpuFrom[i]!.user - idleCpuFrom[i]!.system,
    0
  ) / idleSeconds
  const idlePgCpu = (pgCpuMicros(server) - idlePgFrom) / idleSeconds
  const latencies: Array<number> = []
  if (CALLGRIND !== undefined) { for (const pid of pids) instrument(pid, true) }
  if (ALLOCATIONS !== undefined) { for (const pid of pids) process.kill(pid, "SIGUSR2") }
  if (STATEMENT_LIST) {
    execFileSync("psql", [url, "-qAtc", `SELECT ${STATEMENTS}.pg_stat_statements_reset()`], { stdio: "ignore" })
  }
  const pgCpuBefore = pgCpuMicros(server)
  const benchCpuBefore = process.cpuUsage()
  const cpuBefore = pids.map(cpuMicros)
  const windowFrom = process.hrtime.bigint() / 1000n
  const before = counters()
  const until = performance.now() + seconds * 1000
  await load(started, until, latencies)
  // A non-blocking send's turn runs on after its acknowledgement: its commits are counted once it has ended.
  if (NONBLOCKING) await sleep(SLEEP_MS * 3)
  const windowTo = process.hrtime.bigint() / 1000n
  const after = counters()
  const pgCpu = pgCpuMicros(server) - pgCpuBefore
  const benchCpu = process.cpuUsage(benchCpuBefore)
  const perNode = pids.map((pid, i) => {
    const now = cpuMicros(pid)
    return { user: now.user - cpuBefore[i]!.user, system: now.system - cpuBefore[i]!.system }
  })
  const cpu = perNode.reduce((a, b) => ({ user: a.user + b.user, system: a.system + b.system }))
  const statements = STATEMENT_LIST ? statementList(latencies.length) : undefined
  if (CALLGRIND !== undefined) { for (const pid of pids) instrument(pid, false) }
  if (ALLOCATIONS !== undefined) {
    for (const pid of pids) process.kill(pid, "SIGUSR2")
    await sleep(2_000)
  }
  const loadAverage = loadavg()
  const exited = started.map((n) => new Promise((resolve) => n.child.on("exit", resolve)))
  for (const n of started) n.child.kill("SIGTERM")
  await (CALLGRIND === undefined ? sleep(1_000) : Promise.all(exited))
  latencies.sort((a, b) => a - b)
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!)
  const added = NONBLOCKING ? 0 : SLEEP_MS
  console.log(JSON.stringify({
    nodes,
    clients: CLIENTS,
    send: NONBLOCKING ? "nonblocking" : "blocking",
    engine: cluster,
    turnsPerSecond: Math.round(latencies.length / seconds),
    [NONBLOCKING ? "p50Ms" : "addedP50Ms"]: at(0.5) - added,
    [NONBLOCKING ? "p99Ms" : "addedP99Ms"]: at(0.99) - added,
    commitsPerTurn: Math.round((after.commits - before.commits - PROBE_COMMITS) / latencies.length * 10) / 10,
    idleCommitsPerSecond: Math.round(idleCommits * 10) / 10,
    nodeCpuMicrosPerTurn: Math.round((cpu.user + cpu.system) / latencies.length),
    // The kernel's share: the sockets' writes and reads (to PostgreSQL, to the clients) above all.
    nodeSystemMicrosPerTurn: Math.round(cpu.system / latencies.length),
    // Each node's part of it, and PostgreSQL's (every backend's, the measuring psql sessions' included) and the
    // bench's own (its clients) CPU time per turn: with several nodes on one machine, the cores they share.
    eachNodeCpuMicrosPerTurn: perNode.map((c) => Math.round((c.user + c.system) / latencies.length)),
    pgCpuMicrosPerTurn: Math.round(pgCpu / latencies.length),
    idleNodeCpuMicrosPerSecond: Math.round(idleNodeCpu),
    idlePgCpuMicrosPerSecond: Math.round(idlePgCpu),
    benchCpuMicrosPerTurn: Math.round((benchCpu.user + benchCpu.system) / latencies.length),
    turns: latencies.length,
    // The load's window on the monotonic clock, in µs: what a node's CPU profile's sample times are on
    // (bench/cpuOwners.ts --from --to).
    window: [Number(windowFrom), Number(windowTo)],
    ...(CALLGRIND === undefined ? {} : {
      instructionsPerTurn: Math.round(pids.reduce((sum, pid) => sum + instructions(pid), 0) / latencies.length)
    }),
    ...(STATEMENTS === undefined ? {} : {
      statementsPerTurn: Math.round((after.statements - before.statements) / latencies.length * 10) / 10
    }),
    loadAverage: loadAverage.map((l) => Math.round(l * 100) / 100)
  }))
  if (statements !== undefined) {
    for (const [perTurn, micros, text] of statements) {
      console.log(`  ${perTurn.toFixed(2).padStart(6)} ${String(micros).padStart(6)} µs  ${text}`)
    }
  }
}

const counts = (process.env["BENCH_NODES"] ?? "1,2,3").split(",").map(Number)
const engines = (process.env["BENCH_ENGINE"] ?? "off,on").split(",").map((e) => e === "on")
for (let i = 0; i < REPEAT; i++) for (const nodes of counts) for (const cluster of engines) await run(nodes, cluster)
