/**
 * Streaming load (autocannon cannot count SSE events): `concurrency` workers each open a
 * SendStreamingMessage stream, read it to its end, count and check its events, and start the
 * next one, until the time is up. Keep-alive connections, one per worker.
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import { BenchError } from "./BenchError.ts"
import { A2A_HEADERS, type LoadSettings } from "./LoadGen.ts"
import { percentile } from "./Sample.ts"
import { sseEvents } from "./SseBody.ts"

export interface StreamLoad {
  readonly url: string
  /** A fresh request body per stream. */
  readonly body: () => string
  /** True when the stream's events are the expected ones (all successes, ends as it should). */
  readonly verify: (events: ReadonlyArray<string>) => boolean
}

export interface StreamFigures {
  readonly throughput: number
  readonly eventsPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly completed: number
  readonly eventsPerStream: number
}

interface StreamOutcome {
  readonly ok: boolean
  readonly events: number
  readonly ms: number
}

const TIMEOUT_MS = 10_000

const readStream = (load: StreamLoad, agent: Http.Agent): Promise<StreamOutcome> =>
  new Promise((resolve) => {
    const started = performance.now()
    const body = load.body()
    const fail = () => resolve({ ok: false, events: 0, ms: performance.now() - started })
    const req = Http.request(load.url, {
      method: "POST",
      agent,
      headers: { ...A2A_HEADERS, accept: "text/event-stream", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        text += chunk
      })
      res.on("error", fail)
      res.on("end", () => {
        const events = sseEvents(text)
        const ok = res.statusCode === 200 && load.verify(events)
        resolve({ ok, events: events.length, ms: performance.now() - started })
      })
    })
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error("stream timed out")))
    req.on("error", fail)
    req.end(body)
  })

/** One stream, read whole: for probes. */
export const readOneStream = (load: StreamLoad): Effect.Effect<StreamOutcome, BenchError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => new Http.Agent({ keepAlive: false })),
    (agent) => Effect.promise(() => readStream(load, agent)),
    (agent) => Effect.sync(() => agent.destroy())
  ).pipe(
    Effect.flatMap((outcome) =>
      outcome.ok ? Effect.succeed(outcome) : Effect.fail(new BenchError({ message: `bad stream from ${load.url}` }))
    )
  )

export const runStreams = (
  load: StreamLoad,
  settings: LoadSettings
): Effect.Effect<StreamFigures, BenchError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => new Http.Agent({ keepAlive: true, maxSockets: settings.connections })),
    (agent) =>
      Effect.tryPromise({
        try: async (signal) => {
          const latencies: Array<number> = []
          let events = 0
          let errors = 0
          const started = performance.now()
          const deadline = started + settings.durationSec * 1000
          const worker = async () => {
            while (performance.now() < deadline && !signal.aborted) {
              const outcome = await readStream(load, agent)
              if (outcome.ok) {
                latencies.push(outcome.ms)
                events += outcome.events
              } else {
                errors++
              }
            }
          }
          await Promise.all(Array.from({ length: settings.connections }, worker))
          const seconds = (performance.now() - started) / 1000
          return {
            throughput: latencies.length / seconds,
            eventsPerSec: events / seconds,
            p50Ms: percentile(latencies, 50),
            p99Ms: percentile(latencies, 99),
            errors,
            completed: latencies.length,
            eventsPerStream: latencies.length === 0 ? 0 : events / latencies.length
          }
        },
        catch: (cause) => new BenchError({ message: `stream load on ${load.url} failed`, cause })
      }),
    (agent) => Effect.sync(() => agent.destroy())
  )

export const newMessageId = (): string => randomUUID()
