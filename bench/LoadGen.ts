/**
 * Request/response load with autocannon (programmatic API): a fixed number of keep-alive
 * connections, each sending the next request as soon as the previous answer arrived, for a
 * bounded time. Every answer body goes through a cheap check, so error bodies are counted.
 */
import autocannon from "autocannon"
import { Effect } from "effect"
import { BenchError } from "./BenchError.ts"

export interface HttpLoad {
  readonly url: string
  readonly method: "GET" | "POST"
  readonly body?: string
  /** Replace each `${ID}` in the body by a fresh id per request (unique messageIds). */
  readonly uniqueIds?: boolean
  /** True when the answer body is a success of the expected shape. */
  readonly verify: (body: string) => boolean
}

export interface LoadSettings {
  readonly connections: number
  readonly durationSec: number
  /** Requests per second over all connections (default: as fast as the server answers). */
  readonly overallRate?: number | undefined
}

export interface LoadFigures {
  readonly throughput: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly completed: number
}

/** Placeholder for a per-request id in a load body. */
export const ID = "{{id}}"

// autocannon's own id replacement miscomputes Content-Length for ids of another length, so the
// body is rebuilt per request instead: a process-unique prefix and a counter.
const uniqueBodies = (template: string): autocannon.RequestSpec => {
  const parts = template.split(ID)
  const prefix = `${process.pid.toString(36)}-${Date.now().toString(36)}-`
  let next = 0
  return { setupRequest: (request) => ({ ...request, body: parts.join(`${prefix}${(next++).toString(36)}`) }) }
}

export const A2A_HEADERS = { "content-type": "application/json", "a2a-version": "1.0" } as const

export const runLoad = (load: HttpLoad, settings: LoadSettings): Effect.Effect<LoadFigures, BenchError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const instance = autocannon({
        url: load.url,
        method: load.method,
        headers: { ...A2A_HEADERS },
        ...(load.body === undefined ? {} : { body: load.body }),
        ...(load.uniqueIds === true && load.body !== undefined ? { requests: [uniqueBodies(load.body)] } : {}),
        connections: settings.connections,
        ...(settings.overallRate === undefined ? {} : { overallRate: settings.overallRate }),
        pipelining: 1,
        duration: settings.durationSec,
        timeout: 10,
        verifyBody: load.verify
      })
      signal.addEventListener("abort", () => instance.stop(), { once: true })
      const result = await instance
      return {
        throughput: result.duration > 0 ? result.requests.total / result.duration : 0,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        errors: result.non2xx + result.errors + result.mismatches,
        completed: result.requests.total
      }
    },
    catch: (cause) => new BenchError({ message: `load on ${load.method} ${load.url} failed`, cause })
  })
