// The cluster engine's cost (issue #34): `node bench/cluster.ts POSTGRES_URL [SECONDS]`. Starts 1, 2 and 3
// `effect-a2a serve` nodes (test/fixtures/ClusterAgent.ts) on a PostgreSQL database (its public schema is emptied
// before each run), and sends blocking "sleep 100" messages from 64 clients spread over the nodes for SECONDS
// (default 10; BENCH_CLIENTS clients, default 64; BENCH_NODES, default "1,2,3"). Prints, per setup, turns/s and the time a turn adds to its 100 ms (p50/p99 of the blocking
// SendMessage latency minus 100 ms). The baseline is the same with the engine off (each node runs what it
// receives). Also the transactions PostgreSQL committed per turn (pg_stat_database, the nodes' background polls
// included), and with BENCH_STATEMENTS=SCHEMA (where `CREATE EXTENSION pg_stat_statements SCHEMA ...` put its view,
// the server started with shared_preload_libraries = 'pg_stat_statements') the statements per turn: unlike
// turns/s, neither depends on how loaded the machine is. Short, for a loaded laptop-class machine: read the
// timings as orders of magnitude.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const BIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))
const AGENT = fileURLToPath(new URL("../test/fixtures/ClusterAgent.ts", import.meta.url))
const url = process.argv[2]
const seconds = Number(process.argv[3] ?? "10")
if (url === undefined) throw new Error("usage: node bench/cluster.ts POSTGRES_URL [SECONDS]")
const CLIENTS = Number(process.env["BENCH_CLIENTS"] ?? "64")
const SLEEP_MS = 100

const startNode = (cluster: boolean): Promise<{ child: ChildProcess; base: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--agent", AGENT, "--no-ui"], {
      env: {
        ...process.env,
        A2A_DATABASE_URL: url,
        A2A_CLUSTER: String(cluster),
        A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-bench-"))
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

const send = async (base: string): Promise<number> => {
  const started = performance.now()
  const response = await fetch(`${base}/message:send`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: `sleep ${SLEEP_MS}` }] }
    })
  })
  const body = await response.json() as { task?: { status: { state: string } } }
  if (body.task?.status.state !== "TASK_STATE_COMPLETED") throw new Error(JSON.stringify(body))
  return performance.now() - started
}

const STATEMENTS = process.env["BENCH_STATEMENTS"]

/** The transactions committed and statements run in the database so far (PostgreSQL's statistics). */
const counters = (): { readonly commits: number; readonly statements: number } => {
  const statements = STATEMENTS === undefined ? "0" : `(SELECT sum(calls) FROM ${STATEMENTS}.pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()))`
  const [commits, run] = execFileSync("psql", [
    url,
    "-qAtc",
    `SELECT xact_commit, ${statements} FROM pg_stat_database WHERE datname = current_database()`
  ]).toString().trim().split("|").map(Number)
  return { commits: commits!, statements: run! }
}

const run = async (nodes: number, cluster: boolean) => {
  execFileSync("psql", [url, "-qc", "DROP SCHEMA public CASCADE; CREATE SCHEMA public"], { stdio: "ignore" })
  const started: Array<{ child: ChildProcess; base: string }> = []
  for (let i = 0; i < nodes; i++) started.push(await startNode(cluster))
  await new Promise((r) => setTimeout(r, cluster ? 4_000 : 1_000))
  // Warm-up
  await Promise.all(started.map((n) => send(n.base)))
  const latencies: Array<number> = []
  const before = counters()
  const until = performance.now() + seconds * 1000
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    const base = started[c % nodes]!.base
    while (performance.now() < until) latencies.push(await send(base))
  }))
  const after = counters()
  for (const n of started) n.child.kill("SIGTERM")
  await new Promise((r) => setTimeout(r, 1_000))
  latencies.sort((a, b) => a - b)
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!)
  console.log(JSON.stringify({
    nodes,
    engine: cluster,
    turnsPerSecond: Math.round(latencies.length / seconds),
    addedP50Ms: at(0.5) - SLEEP_MS,
    addedP99Ms: at(0.99) - SLEEP_MS,
    commitsPerTurn: Math.round((after.commits - before.commits) / latencies.length * 10) / 10,
    ...(STATEMENTS === undefined ? {} : {
      statementsPerTurn: Math.round((after.statements - before.statements) / latencies.length * 10) / 10
    })
  }))
}

const counts = (process.env["BENCH_NODES"] ?? "1,2,3").split(",").map(Number)
for (const cluster of [false, true]) for (const nodes of counts) await run(nodes, cluster)
