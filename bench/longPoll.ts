/**
 * `node bench/longPoll.ts [--polls N] [--runs R] [--idle SECONDS]`: what waiting long-poll GetTasks (the A2A 1.1
 * draft, `?currentGeneration=N`) cost the server while their tasks do not change. Our server (bench/servers/ours.ts,
 * memory stores) runs in its own process with the draft on (BENCH_A2A11=1, polls held up to 10 minutes); N tasks
 * that wait for input are created, then per run:
 *
 * - `idle`: the server's CPU time over an idle window with no poll open (the baseline: its own timers);
 * - N long polls are opened, one connection each, on the tasks' current generations, and none may be answered;
 * - the server's RSS after a forced GC, before and with the polls open (per poll: the difference / N), and its CPU
 *   time over the same idle window with the polls open;
 * - one task per ten is then changed (a message sent to it): its poll must answer, with the next generation; the
 *   time from the send to the answer is recorded; the other connections are closed.
 *
 * The runs alternate baseline and polls on the same server; each line carries the load average (`uptime`), since
 * the machine is shared. Prints one line per run and the medians.
 *
 *   node bench/longPoll.ts --polls 5000 --runs 3
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as Http from "node:http"
import * as Os from "node:os"
import { BenchError } from "./BenchError.ts"
import { call, rpcBody, RpcResult, sendMessageParams } from "./Requests.ts"
import { type BenchServer, start } from "./ServerProcess.ts"
import { newMessageId } from "./StreamDriver.ts"
import { WAIT } from "./TrivialAgent.ts"

const WaitingTask = RpcResult(Schema.Struct({
  task: Schema.Struct({ id: Schema.String, generation: Schema.Number, status: Schema.Struct({ state: Schema.String }) })
}))

const createTask = (server: BenchServer) =>
  call(WaitingTask, server.endpoints.jsonRpc, {
    method: "POST",
    body: rpcBody("SendMessage", sendMessageParams(`${WAIT} hello`, newMessageId()))
  }).pipe(Effect.map((answer) => answer.result.task))

const continueTask = (server: BenchServer, taskId: string) =>
  call(WaitingTask, server.endpoints.jsonRpc, {
    method: "POST",
    body: rpcBody("SendMessage", { message: { ...sendMessageParams(`${WAIT} again`, newMessageId()).message, taskId } })
  })

interface Poll {
  readonly request: Http.ClientRequest
  /** Resolves with the generation answered (-1: failed or closed). */
  readonly answer: Promise<number>
  readonly answered: () => boolean
}

/** Opens a long poll; `opened` resolves once its request is sent on a connected socket. */
const openPoll = (url: string): Promise<Poll> =>
  new Promise((opened) => {
    let done = false
    let resolveAnswer: (generation: number) => void = () => {}
    const answer = new Promise<number>((resolve) => {
      resolveAnswer = (generation) => {
        done = true
        resolve(generation)
      }
    })
    const request = Http.request(url, { agent: false, headers: { "a2a-version": "1.1" } }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => {
        try {
          resolveAnswer((JSON.parse(text) as { generation?: number }).generation ?? -1)
        } catch {
          resolveAnswer(-1)
        }
      })
    })
    request.on("error", () => resolveAnswer(-1))
    request.on("socket", (socket) => socket.on("connect", () => opened({ request, answer, answered: () => done })))
    request.end()
  })

const loadAverage = () => Os.loadavg().map((n) => n.toFixed(2)).join(" ")

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!
}

const polls = Flag.Int("polls").pipe(Flag.withDescription("Long polls held at once"), Flag.withDefault(5000))
const runs = Flag.Int("runs").pipe(Flag.withDescription("Runs (baseline, then polls)"), Flag.withDefault(3))
const idle = Flag.Int("idle").pipe(Flag.withDescription("Idle window, seconds"), Flag.withDefault(10))

const main = Command.make("longPoll", { polls, runs, idle }, (settings) =>
  Effect.gen(function*() {
    process.env.BENCH_A2A11 = "1"
    const server = yield* start("ours", { releaseMemory: false })
    const tasks = yield* Effect.forEach(Array.from({ length: settings.polls }), () => createTask(server), {
      concurrency: 32
    })
    const idleCpu = Effect.gen(function*() {
      const before = yield* server.cpuMs
      yield* Effect.sleep(`${settings.idle} seconds`)
      return (yield* server.cpuMs) - before
    })
    const settle = Effect.sleep("1 second").pipe(
      Effect.andThen(server.collectGarbage),
      Effect.andThen(Effect.sleep("1 second"))
    )
    const lines: Array<{ baseCpu: number; pollCpu: number; perPollKb: number; wakeMs: number }> = []
    yield* Console.log(`long polls: ${settings.polls}, idle window ${settings.idle} s, ${settings.runs} runs`)
    for (let run = 1; run <= settings.runs; run++) {
      yield* settle
      const baseCpu = yield* idleCpu
      const rssBefore = yield* server.rssKb
      // the current generation of each task, as the last run left it
      const current = yield* Effect.forEach(tasks, (task) =>
        call(Schema.Struct({ generation: Schema.Number }), `${server.endpoints.rest}/tasks/${task.id}`, {
          method: "GET"
        }), { concurrency: 32 })
      const open = yield* Effect.acquireRelease(
        Effect.forEach(
          tasks,
          (task, i) =>
            Effect.promise(() =>
              openPoll(`${server.endpoints.rest}/tasks/${task.id}?currentGeneration=${current[i]!.generation}`)
            ),
          { concurrency: 64 }
        ),
        (open) =>
          Effect.sync(() =>
            open.forEach((poll) =>
              poll.request.destroy()
            )
          )
      )
      yield* settle
      const early = open.filter((poll) => poll.answered()).length
      if (early > 0) return yield* new BenchError({ message: `${early} long polls answered before any change` })
      const rssOpen = yield* server.rssKb
      const pollCpu = yield* idleCpu
      // one task per ten changes: its poll answers with the next generation
      const woken = tasks.flatMap((_, i) => i % 10 === 0 ? [i] : [])
      const wakeMs = yield* Effect.forEach(woken, (i) =>
        Effect.gen(function*() {
          const started = performance.now()
          yield* continueTask(server, tasks[i]!.id)
          const generation = yield* Effect.promise(() => open[i]!.answer)
          if (generation !== current[i]!.generation + 1) {
            return yield* new BenchError({ message: `poll ${i} answered generation ${generation}` })
          }
          return performance.now() - started
        }), { concurrency: 16 })
      open.forEach((poll) => poll.request.destroy())
      const line = {
        baseCpu,
        pollCpu,
        perPollKb: (rssOpen - rssBefore) / settings.polls,
        wakeMs: median(wakeMs)
      }
      lines.push(line)
      yield* Console.log(
        `run ${run}: idle CPU ${baseCpu.toFixed(0)} ms without polls, ${pollCpu.toFixed(0)} ms with ${settings.polls}` +
          ` | RSS ${(rssBefore / 1024).toFixed(1)} -> ${(rssOpen / 1024).toFixed(1)} MiB, ` +
          `${line.perPollKb.toFixed(2)} KiB per poll | send-to-answer median ${line.wakeMs.toFixed(1)} ms ` +
          `(${woken.length} woken) | load ${loadAverage()}`
      )
    }
    yield* Console.log(
      `median: idle CPU ${median(lines.map((l) => l.baseCpu)).toFixed(0)} ms without polls, ` +
        `${median(lines.map((l) => l.pollCpu)).toFixed(0)} ms with; ${
          median(lines.map((l) => l.perPollKb)).toFixed(2)
        } KiB per poll; send-to-answer ${median(lines.map((l) => l.wakeMs)).toFixed(1)} ms`
    )
  }).pipe(Effect.scoped))

main.pipe(Command.run({ version: "0.1.0" }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
