// The timeline of one uncontended turn (#42): `node bench/turnTimeline.ts POSTGRES_URL [TURNS]`. Starts one
// `effect-a2a serve` node (test/fixtures/ClusterAgent.ts) on a PostgreSQL database (its public schema emptied first),
// engine off and on alternately (BENCH_ENGINE, default "off,on"; BENCH_REPEAT rounds, default 1), and sends TURNS
// (default 20) blocking "sleep 100" messages one at a time, 300 ms apart (BENCH_GAP; 0: back to back), while the server logs every statement with
// its duration (`ALTER SYSTEM SET log_min_duration_statement = 0`, reset at the end; the server must log to a file
// this script can read: BENCH_PG_LOG, default the `server.log` next to `.ci/postgres.sh`'s data, $A2A_PG_DIR).
//
// For each turn, every statement the node ran between the request's start and its answer, as milliseconds from the
// request's start (its start and end on the server's clock, the same machine's), and the gaps between them; then,
// per setup, the median start and end of each statement and of the answer. Gaps are where the node waited (a fiber
// hop, a latch, a poll, the pool): read them as medians over the turns, with the load average printed beside them.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const BIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))
const AGENT = fileURLToPath(new URL("../test/fixtures/ClusterAgent.ts", import.meta.url))
const url = process.argv[2]
const turns = Number(process.argv[3] ?? "20")
if (url === undefined) throw new Error("usage: node bench/turnTimeline.ts POSTGRES_URL [TURNS]")
const LOG = process.env["BENCH_PG_LOG"] ?? join(process.env["A2A_PG_DIR"] ?? "/tmp/effect-a2a-pg", "server.log")
const REPEAT = Number(process.env["BENCH_REPEAT"] ?? "1")
const VERBOSE = process.env["BENCH_VERBOSE"] === "1"
const GAP_MS = Number(process.env["BENCH_GAP"] ?? "300")

const psql = (command: string) => execFileSync("psql", [url, "-qAtc", command]).toString()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const now = () => performance.timeOrigin + performance.now()

const startNode = (cluster: boolean): Promise<{ child: ChildProcess; base: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--agent", AGENT, "--no-ui"], {
      env: {
        ...process.env,
        A2A_DATABASE_URL: url,
        A2A_CLUSTER: String(cluster),
        A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-timeline-"))
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

const send = async (base: string) => {
  const response = await fetch(`${base}/message:send`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "sleep 100" }] }
    })
  })
  const body = await response.json() as { task?: { status: { state: string } } }
  if (body.task?.status.state !== "TASK_STATE_COMPLETED") throw new Error(JSON.stringify(body))
}

/** What a statement is, by its text. */
const label = (text: string): string => {
  const t = text.replace(/\s+/g, " ").replace(/"/g, "")
  if (/a2a_message_receipts/.test(t)) return "receipt"
  if (/INSERT INTO cluster_messages/i.test(t)) return "turn"
  if (/UPDATE cluster_messages( \w+)? SET last_read/i.test(t)) return "read-back"
  if (/UPDATE cluster_messages SET processed/i.test(t)) return "processed"
  if (/INSERT INTO cluster_replies/i.test(t)) return "reply"
  if (/cluster_replies/i.test(t)) return "reply-read"
  if (/pg_locks/.test(t)) return /heartbeat/.test(t) ? "lock+beat" : "lock"
  if (/UPDATE cluster_runners SET last_heartbeat/i.test(t)) return "beat"
  if (/^(SELECT|select)\b/.test(t) && /a2a_tasks/.test(t) && !/INSERT|UPDATE/i.test(t)) return "task-read"
  if (/a2a_tasks|a2a_task_history/.test(t)) return "save"
  if (/pg_notify/.test(t)) return "notify"
  if (/^BEGIN/i.test(t)) return "begin"
  if (/^COMMIT/i.test(t)) return "commit"
  if (/^SAVEPOINT/i.test(t)) return "savepoint"
  if (/^RELEASE/i.test(t)) return "release"
  if (/cluster_runners/.test(t)) return "runners"
  if (/a2a_nodes/.test(t)) return "liveness"
  return t.slice(0, 40)
}

interface Statement {
  readonly pid: string
  readonly start: number
  readonly end: number
  readonly what: string
}

/** The statements of the log's text: an execute (or simple query) with its duration, its end the line's time. */
const statements = (text: string): Array<Statement> => {
  const out: Array<Statement> = []
  const line =
    /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) (\w+) \[(\d+)\] LOG:\s+duration: ([\d.]+) ms\s+(\w+)([^:]*):\s*(.*)$/
  // A statement's text may span lines: its next lines start with a tab.
  const entries = text.split(/\n(?!\t)/).map((entry) => entry.replace(/\n\t/g, " "))
  for (const raw of entries) {
    const m = line.exec(raw)
    if (m === null) continue
    const [, stamp, zone, pid, duration, kind, , statement] = m
    if (kind === "parse" || kind === "bind") continue
    const end = Date.parse(`${stamp!.replace(" ", "T")}${zone === "UTC" ? "Z" : ""}`)
    out.push({ pid: pid!, start: end - Number(duration), end, what: label(statement!) })
  }
  return out
}

const median = (values: Array<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const run = async (cluster: boolean) => {
  psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
  const node = await startNode(cluster)
  await sleep(cluster ? 4_000 : 1_000)
  for (let i = 0; i < 3; i++) await send(node.base)
  psql("ALTER SYSTEM SET log_min_duration_statement = 0")
  psql("ALTER SYSTEM SET log_line_prefix = '%m [%p] '")
  psql("SELECT pg_reload_conf()")
  await sleep(500)
  const offset = statSync(LOG).size
  const windows: Array<{ readonly start: number; readonly end: number }> = []
  for (let i = 0; i < turns; i++) {
    const start = now()
    await send(node.base)
    windows.push({ start, end: now() })
    await sleep(GAP_MS)
  }
  psql("ALTER SYSTEM RESET log_min_duration_statement")
  psql("SELECT pg_reload_conf()")
  const load = loadavg().map((l) => Math.round(l * 100) / 100)
  node.child.kill("SIGTERM")
  await sleep(1_000)
  const all = statements(readFileSync(LOG).subarray(offset).toString())
  // Per turn: its statements in order of start, as (label, start, end) from the request's start.
  const rows = windows.map((w) =>
    all.filter((s) => s.end >= w.start - 1 && s.start <= w.end + 1 && s.what !== "liveness" && s.what !== "runners")
      .sort((a, b) => a.start - b.start)
      .map((s) => ({ ...s, start: s.start - w.start, end: s.end - w.start }))
  )
  const total = windows.map((w) => w.end - w.start)
  if (VERBOSE) {
    rows.forEach((r, i) => {
      console.log(`turn ${i}: ${total[i]!.toFixed(1)} ms`)
      for (const s of r) {
        console.log(`  ${s.start.toFixed(1).padStart(7)} ${s.end.toFixed(1).padStart(7)}  ${s.pid} ${s.what}`)
      }
    })
  }
  // The common shape: the sequence of labels most turns have; medians over those turns.
  const shapes = new Map<string, number>()
  for (const r of rows) {
    const key = r.map((s) => s.what).join("|")
    shapes.set(key, (shapes.get(key) ?? 0) + 1)
  }
  const [shape, count] = [...shapes.entries()].sort((a, b) => b[1] - a[1])[0]!
  const same = rows.map((r, i) => ({ r, total: total[i]! })).filter(({ r }) => r.map((s) => s.what).join("|") === shape)
  console.log(
    `engine ${cluster ? "on" : "off"}: ${turns} turns, median ${median(total).toFixed(1)} ms (p90 ${
      [...total].sort((a, b) => a - b)[Math.floor(turns * 0.9)]!.toFixed(1)
    }), load average ${load.join(" ")}; ${count} of ${turns} turns ran: ${shape}`
  )
  const labels = shape.split("|")
  let previous = 0
  labels.forEach((what, i) => {
    const start = median(same.map(({ r }) => r[i]!.start))
    const end = median(same.map(({ r }) => r[i]!.end))
    console.log(
      `  ${what.padEnd(10)} ${start.toFixed(1).padStart(7)} -> ${end.toFixed(1).padStart(7)}   gap before ${
        (start - previous).toFixed(1)
      }`
    )
    previous = end
  })
  // Per turn, all turns: from the request to its receipt's end, from there to the task's first save, from the last
  // save to the answer (the agent's 100 ms between them).
  const spans = rows.map((r, i) => {
    const receipt = r.find((s) => s.what === "receipt")
    const saves = r.filter((s) => s.what === "save")
    return receipt === undefined || saves.length < 2 ? undefined : {
      receipt: receipt.end,
      start: saves[0]!.start - receipt.end,
      end: total[i]! - saves.at(-1)!.end
    }
  }).filter((span) => span !== undefined)
  console.log(
    `  per turn (${spans.length}), medians: request -> receipt ${median(spans.map((s) => s.receipt)).toFixed(1)}, ` +
      `receipt -> first save ${median(spans.map((s) => s.start)).toFixed(1)}, last save -> answer ${
        median(spans.map((s) => s.end)).toFixed(1)
      } ms`
  )
  const answered = median(same.map(({ total }) => total))
  console.log(
    `  answered   ${answered.toFixed(1).padStart(7)}              gap before ${(answered - previous).toFixed(1)}`
  )
}

const engines = (process.env["BENCH_ENGINE"] ?? "off,on").split(",").map((e) => e === "on")
for (let i = 0; i < REPEAT; i++) for (const cluster of engines) await run(cluster)
