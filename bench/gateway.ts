/**
 * The gateway's cost: SendMessage (a direct Message) and a streamed task (SendStreamingMessage, 10 artifact chunks)
 * through the gateway against the same agent direct, in one run. Each server in its own process (ServerProcess):
 * `ours` direct; `gateway`, the gateway as `effect-a2a gateway` runs it in front of its own `ours`
 * (servers/gateway.ts); `gateway-fetch`, the same with its upstream calls through fetch (the baseline). Each round
 * measures every server in turn (the order rotating), with the same loads:
 *
 * - latency: one caller, one request after another over a keep-alive connection, for `duration` seconds; p50 and
 *   p99 in ms to the microsecond (what one call costs, without queueing);
 * - throughput: `connections` callers at once (autocannon for SendMessage, the stream driver for streams).
 *
 * The gateway's CPU per operation is its own process's; its upstream's is apart; both with one caller and with
 * `connections` (where each side handles several calls per wake-up), and per stream with `connections`. The load average is read before
 * every measurement. Bars (issue #41): the gateway adds at most 1 ms at p50 and keeps at least 70% of the direct
 * throughput.
 *
 * Usage: node bench/gateway.ts [--rounds 3] [--duration 3] [--connections 32] [--servers ours,gateway,gateway-fetch]
 * [--pin]
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Console, Effect, FileSystem } from "effect"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { BenchError } from "./BenchError.ts"
import { ID, runLoad } from "./LoadGen.ts"
import { rpcBody, sendMessageParams } from "./Requests.ts"
import { median, percentile } from "./Sample.ts"
import { type BenchServer, pinHarness, readCpuTimes, SERVER_CPUS, type ServerKind, start } from "./ServerProcess.ts"
import { newMessageId, runStreams, type StreamLoad } from "./StreamDriver.ts"
import { ECHO, STREAM } from "./TrivialAgent.ts"

const arg = (name: string, fallback: string): string => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : process.argv[index + 1] ?? fallback
}
const rounds = Number(arg("rounds", "3"))
const durationSec = Number(arg("duration", "3"))
const connections = Number(arg("connections", "32"))
const kinds = arg("servers", "ours,gateway,gateway-fetch").split(",") as Array<ServerKind>
const pin = process.argv.includes("--pin")

interface Figures {
  readonly sendP50: number
  readonly sendP99: number
  readonly sendRps: number
  readonly streamP50: number
  readonly streamP99: number
  readonly streamsPerSec: number
  /** The server process's CPU per SendMessage under load, µs (for the gateway: its own, not its upstream's). */
  readonly cpuUsPerSend: number
  /** Its upstream's, µs (the gateway's child), when there is one. */
  readonly upstreamUsPerSend: number | undefined
  /** The same two with one caller (no batching of calls per wake-up on either side). */
  readonly cpuUsPerSendAlone: number
  readonly upstreamUsPerSendAlone: number | undefined
  /** The server process's CPU per stream under load, µs, and its upstream's. */
  readonly cpuUsPerStream: number
  readonly upstreamUsPerStream: number | undefined
  readonly load: ReadonlyArray<number>
}

const ECHO_TEXT = `${ECHO} hello`

/** One caller, one SendMessage after another: each call's ms. */
const sequential = (url: string, seconds: number): Effect.Effect<ReadonlyArray<number>, BenchError> =>
  Effect.tryPromise({
    try: async () => {
      const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
      const times: Array<number> = []
      const deadline = performance.now() + seconds * 1000
      try {
        while (performance.now() < deadline) {
          const body = rpcBody("SendMessage", sendMessageParams(ECHO_TEXT, newMessageId()))
          const started = performance.now()
          const answer = await new Promise<string>((resolve, reject) => {
            const req = Http.request(url, {
              method: "POST",
              agent,
              headers: { "content-type": "application/json", "a2a-version": "1.0", "content-length": body.length }
            }, (res) => {
              let text = ""
              res.setEncoding("utf8")
              res.on("data", (chunk: string) => (text += chunk))
              res.on("end", () => resolve(text))
              res.on("error", reject)
            })
            req.on("error", reject)
            req.end(body)
          })
          times.push(performance.now() - started)
          if (!answer.includes("ROLE_AGENT")) throw new Error(`not an agent's message: ${answer.slice(0, 200)}`)
        }
      } finally {
        agent.destroy()
      }
      return times
    },
    catch: (cause) => new BenchError({ message: `sequential SendMessage on ${url} failed`, cause })
  })

/** The pid of the server's first child (the gateway's upstream), if any. */
const childOf = (pid: number) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(`/proc/${pid}/task/${pid}/children`).pipe(Effect.orElseSucceed(() => ""))
    const first = text.trim().split(/\s+/)[0]
    return first === undefined || first === "" ? undefined : Number(first)
  })

const measure = (server: BenchServer) =>
  Effect.gen(function*() {
    const load: Array<number> = []
    const loadNow = () => load.push(Os.loadavg()[0]!)
    const url = server.endpoints.jsonRpc
    const stream: StreamLoad = {
      url,
      body: () => rpcBody("SendStreamingMessage", sendMessageParams(`${STREAM} hello`, newMessageId())),
      verify: (events) => events.length >= 2 && (events.at(-1)?.includes("TASK_STATE_COMPLETED") ?? false)
    }
    const child = yield* childOf(server.pid)
    const childCpu = child === undefined
      ? Effect.succeed(undefined)
      : Effect.map(readCpuTimes(child), (t) => t.userMs + t.systemMs)
    loadNow()
    const aloneBefore = yield* server.cpuMs
    const aloneChildBefore = yield* childCpu
    const times = yield* sequential(url, durationSec)
    const aloneMs = (yield* server.cpuMs) - aloneBefore
    const aloneChildAfter = yield* childCpu
    loadNow()
    const cpuBefore = yield* server.cpuMs
    const childBefore = child === undefined ? undefined : yield* readCpuTimes(child)
    const sent = yield* runLoad({
      url,
      method: "POST",
      body: rpcBody("SendMessage", sendMessageParams(ECHO_TEXT, ID)),
      uniqueIds: true,
      verify: (body) => body.includes("ROLE_AGENT") && !body.includes("\"error\"")
    }, { connections, durationSec })
    const cpuMs = (yield* server.cpuMs) - cpuBefore
    const childAfter = child === undefined ? undefined : yield* readCpuTimes(child)
    loadNow()
    const oneStream = yield* runStreams(stream, { connections: 1, durationSec })
    loadNow()
    const streamCpuBefore = yield* server.cpuMs
    const streamChildBefore = yield* childCpu
    const streams = yield* runStreams(stream, { connections, durationSec })
    const streamCpuMs = (yield* server.cpuMs) - streamCpuBefore
    const streamChildAfter = yield* childCpu
    if (sent.errors > 0 || streams.errors > 0 || oneStream.errors > 0) {
      yield* Console.error(
        `${server.kind}: errors ${sent.errors} (send), ${streams.errors + oneStream.errors} (stream)`
      )
    }
    const perSend = (ms: number) => sent.completed === 0 ? 0 : (ms * 1000) / sent.completed
    const perCall = (ms: number) => times.length === 0 ? 0 : (ms * 1000) / times.length
    const perStream = (ms: number) => streams.completed === 0 ? 0 : (ms * 1000) / streams.completed
    return {
      sendP50: percentile(times, 50),
      sendP99: percentile(times, 99),
      sendRps: sent.throughput,
      streamP50: oneStream.p50Ms,
      streamP99: oneStream.p99Ms,
      streamsPerSec: streams.throughput,
      cpuUsPerSend: perSend(cpuMs),
      upstreamUsPerSend: childBefore === undefined || childAfter === undefined
        ? undefined
        : perSend(childAfter.userMs + childAfter.systemMs - childBefore.userMs - childBefore.systemMs),
      cpuUsPerSendAlone: perCall(aloneMs),
      upstreamUsPerSendAlone: aloneChildBefore === undefined || aloneChildAfter === undefined
        ? undefined
        : perCall(aloneChildAfter - aloneChildBefore),
      cpuUsPerStream: perStream(streamCpuMs),
      upstreamUsPerStream: streamChildBefore === undefined || streamChildAfter === undefined
        ? undefined
        : perStream(streamChildAfter - streamChildBefore),
      load
    } satisfies Figures
  })

const fixed = (n: number, digits = 2) => n.toFixed(digits)
const int = (n: number) => Math.round(n).toLocaleString("en-US")

const main = Effect.gen(function*() {
  const startedAt = new Date().toISOString()
  yield* Console.log(`# Gateway cost, ${startedAt}`)
  yield* Console.log(
    `${Os.cpus()[0]?.model ?? "?"}, ${Os.cpus().length} cores; Node ${process.version}; ` +
      `load average at start ${Os.loadavg().map((n) => n.toFixed(2)).join(" / ")}; ` +
      `${rounds} round(s) x ${durationSec} s per measurement, ${connections} connections; ` +
      (pin ? `servers on CPU ${SERVER_CPUS} (the gateway and its upstream share it)` : "not pinned")
  )
  if (pin) yield* pinHarness(Os.cpus().length)
  const servers: Array<BenchServer> = []
  for (const kind of kinds) {
    servers.push(yield* start(kind, pin ? { cpus: SERVER_CPUS } : {}))
  }
  // warm-up: each server once, briefly
  for (const server of servers) {
    yield* sequential(server.endpoints.jsonRpc, 1)
  }
  const samples = new Map<ServerKind, Array<Figures>>()
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
    for (const server of order) {
      const figures = yield* measure(server)
      samples.set(server.kind, [...(samples.get(server.kind) ?? []), figures])
      yield* Console.error(
        `round ${round + 1}/${rounds} ${server.kind.padEnd(14)} send p50 ${fixed(figures.sendP50, 3)} ms, ` +
          `${int(figures.sendRps)} req/s; stream p50 ${fixed(figures.streamP50)} ms, ` +
          `${int(figures.streamsPerSec)} streams/s; load ${figures.load.map((n) => n.toFixed(1)).join(" ")}`
      )
    }
  }
  const med = (kind: ServerKind, pick: (f: Figures) => number | undefined) => {
    const values = (samples.get(kind) ?? []).flatMap((f) => {
      const v = pick(f)
      return v === undefined ? [] : [v]
    })
    return values.length === 0 ? undefined : median(values)
  }
  const loads = [...samples.values()].flat().flatMap((f) => f.load)
  const rows = kinds.map((kind) =>
    `| ${kind} | ${fixed(med(kind, (f) => f.sendP50)!, 3)} | ${fixed(med(kind, (f) => f.sendP99)!)} | ${
      int(med(kind, (f) => f.sendRps)!)
    } | ${fixed(med(kind, (f) => f.streamP50)!)} | ${int(med(kind, (f) => f.streamsPerSec)!)} | ${
      int(med(kind, (f) => f.cpuUsPerSend)!)
    } | ${med(kind, (f) => f.upstreamUsPerSend) === undefined ? "-" : int(med(kind, (f) => f.upstreamUsPerSend)!)} | ${
      int(med(kind, (f) => f.cpuUsPerSendAlone)!)
    } | ${
      med(kind, (f) => f.upstreamUsPerSendAlone) === undefined ? "-" : int(med(kind, (f) => f.upstreamUsPerSendAlone)!)
    } | ${int(med(kind, (f) => f.cpuUsPerStream)!)} | ${
      med(kind, (f) => f.upstreamUsPerStream) === undefined ? "-" : int(med(kind, (f) => f.upstreamUsPerStream)!)
    } |`
  )
  yield* Console.log(
    [
      "",
      `| server | SendMessage p50 ms (1 caller) | p99 ms | SendMessage req/s (${connections}) | stream p50 ms (1 caller) ` +
      `| streams/s (${connections}) | CPU µs/SendMessage (${connections}) | upstream's (${connections}) ` +
      `| CPU µs/SendMessage (1 caller) | upstream's (1 caller) | CPU µs/stream (${connections}) | upstream's (${connections}) |`,
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...rows,
      "",
      `Medians of ${rounds} round(s); load average (1 min) during the run: ${Math.min(...loads).toFixed(1)} to ${
        Math.max(...loads).toFixed(1)
      }.`
    ].join("\n")
  )
  const direct = "ours" as ServerKind
  if (samples.has(direct)) {
    for (const kind of kinds.filter((k) => k !== direct)) {
      const added = med(kind, (f) => f.sendP50)! - med(direct, (f) => f.sendP50)!
      const addedStream = med(kind, (f) => f.streamP50)! - med(direct, (f) => f.streamP50)!
      const share = med(kind, (f) => f.sendRps)! / med(direct, (f) => f.sendRps)!
      const streamShare = med(kind, (f) => f.streamsPerSec)! / med(direct, (f) => f.streamsPerSec)!
      yield* Console.log(
        `${kind}: adds ${fixed(added, 3)} ms at p50 to SendMessage, ${fixed(addedStream)} ms to a stream; keeps ` +
          `${Math.round(share * 100)}% of the direct SendMessage throughput, ${
            Math.round(streamShare * 100)
          }% of the streams (bars: +1 ms, 70%)`
      )
    }
  }
  const fs = yield* FileSystem.FileSystem
  const dir = Path.join(import.meta.dirname, "results")
  yield* fs.makeDirectory(dir, { recursive: true })
  const file = Path.join(dir, `gateway-${startedAt.replace(/[:.]/g, "-")}.json`)
  yield* fs.writeFileString(
    file,
    `${
      JSON.stringify(
        { startedAt, rounds, durationSec, connections, pin, samples: Object.fromEntries(samples) },
        null,
        2
      )
    }\n`
  )
  yield* Console.log(`\nResults: ${Path.relative(process.cwd(), file)}`)
}).pipe(Effect.scoped)

main.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
