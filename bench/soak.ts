/**
 * `npm run bench:soak`: is memory flat under sustained load? Each chosen server runs in its own process,
 * all at once, each driven at a fixed rate (not flat out: this measures what memory does over time, not
 * speed) with blocking JSON-RPC SendMessage calls that create a task with an artifact, for
 * BENCH_SOAK_SECONDS (default 600). RSS is sampled every BENCH_SOAK_SAMPLE seconds (default 15).
 *
 * The verdict per server compares the second half of the run with itself: its growth in MiB per minute
 * (least squares over the samples) and its highest RSS. A bounded store reaches a plateau after its
 * bound fills; an unbounded one keeps a slope.
 *
 * Settings (environment): BENCH_SERVERS (default ours,ours-sqlite,sdk), BENCH_SOAK_RATE (requests/s per
 * server, default 300), BENCH_SOAK_CONNECTIONS (default 8).
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Config, Console, Effect, Schedule, Schema } from "effect"
import { BenchError } from "./BenchError.ts"
import { ID, runLoad } from "./LoadGen.ts"
import { call, CompletedTask, rpcBody, RpcResult, sendMessageParams } from "./Requests.ts"
import { type BenchServer, type ServerKind, serverKinds, serverLabel, start } from "./ServerProcess.ts"
import { newMessageId } from "./StreamDriver.ts"
import { TASK } from "./TrivialAgent.ts"

interface Sample {
  readonly atSec: number
  readonly rssKb: number
}

const settings = Config.all({
  seconds: Config.Finite("BENCH_SOAK_SECONDS").pipe(Config.withDefault(600)),
  sampleSec: Config.Finite("BENCH_SOAK_SAMPLE").pipe(Config.withDefault(15)),
  rate: Config.Finite("BENCH_SOAK_RATE").pipe(Config.withDefault(300)),
  connections: Config.Int("BENCH_SOAK_CONNECTIONS").pipe(Config.withDefault(8)),
  servers: Config.String("BENCH_SERVERS").pipe(
    Config.withDefault("ours,ours-sqlite,sdk"),
    Config.map((list) => list.split(",").map((x) => x.trim()).filter((x) => x.length > 0))
  )
})

const isKind = (name: string): name is ServerKind => (serverKinds as ReadonlyArray<string>).includes(name)

const TEXT = `${TASK} soak`

/** Least-squares slope of RSS over time, in MiB per minute. */
const slopeMibPerMin = (samples: ReadonlyArray<Sample>): number => {
  const n = samples.length
  if (n < 2) return 0
  const meanT = samples.reduce((s, x) => s + x.atSec, 0) / n
  const meanR = samples.reduce((s, x) => s + x.rssKb, 0) / n
  let num = 0
  let den = 0
  for (const x of samples) {
    num += (x.atSec - meanT) * (x.rssKb - meanR)
    den += (x.atSec - meanT) ** 2
  }
  return den === 0 ? 0 : ((num / den) * 60) / 1024
}

const mib = (kb: number) => (kb / 1024).toFixed(1)

type Settings = Config.Success<typeof settings>

const soakOne = (server: BenchServer, s: Settings) =>
  Effect.gen(function*() {
    yield* call(RpcResult(Schema.Struct({ task: CompletedTask })), server.endpoints.jsonRpc, {
      method: "POST",
      body: rpcBody("SendMessage", sendMessageParams(TEXT, newMessageId()))
    })
    const started = Date.now()
    const samples: Array<Sample> = []
    const sample = Effect.flatMap(server.rssKb, (rssKb) =>
      Effect.sync(() => samples.push({ atSec: (Date.now() - started) / 1000, rssKb })))
    const sampler = sample.pipe(Effect.repeat(Schedule.spaced(`${s.sampleSec} seconds`)))
    const load = runLoad({
      url: server.endpoints.jsonRpc,
      method: "POST",
      body: rpcBody("SendMessage", sendMessageParams(TEXT, ID)),
      uniqueIds: true,
      verify: (body) =>
        body.includes("TASK_STATE_COMPLETED") && !body.includes("\"error\"")
    }, { connections: s.connections, durationSec: s.seconds, overallRate: s.rate })
    const figures = yield* Effect.raceFirst(load, Effect.andThen(sampler, Effect.never))
    yield* sample
    const secondHalf = samples.filter((x) => x.atSec >= s.seconds / 2)
    return {
      kind: server.kind,
      figures,
      samples,
      first: samples[0]?.rssKb ?? 0,
      highest: Math.max(...samples.map((x) => x.rssKb)),
      last: samples[samples.length - 1]?.rssKb ?? 0,
      slope: slopeMibPerMin(secondHalf),
      highestSecondHalf: Math.max(...secondHalf.map((x) => x.rssKb))
    }
  })

const main = Effect.gen(function*() {
  const s = yield* settings
  const unknown = s.servers.find((k) => !isKind(k))
  if (unknown !== undefined) {
    return yield* new BenchError({ message: `unknown server "${unknown}" (known: ${serverKinds.join(", ")})` })
  }
  const kinds = s.servers.filter(isKind)
  yield* Console.log(
    `soak: ${kinds.map((k) => serverLabel[k]).join(", ")} at once, ${s.rate} req/s each over ` +
      `${s.connections} connections, ${s.seconds} s, RSS every ${s.sampleSec} s`
  )
  const servers = yield* Effect.forEach(kinds, (kind) => start(kind, {}))
  const results = yield* Effect.forEach(servers, (server) => soakOne(server, s), { concurrency: "unbounded" })
  const rows = results.map((r) =>
    `| ${serverLabel[r.kind]} | ${r.figures.completed.toLocaleString("en")} | ${r.figures.errors} | ${
      mib(r.first)
    } | ` +
    `${mib(r.highest)} | ${mib(r.last)} | ${r.slope.toFixed(2)} |`
  )
  yield* Console.log([
    "",
    "| server | tasks created | errors | RSS first MiB | highest | last | 2nd half MiB/min |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    ...results.map((r) =>
      `${serverLabel[r.kind]}: ${r.samples.map((x) => `${Math.round(x.atSec)}s ${mib(x.rssKb)}`).join(", ")}`
    )
  ].join("\n"))
}).pipe(
  Effect.scoped,
  Effect.provide(NodeServices.layer)
)

NodeRuntime.runMain(main)
