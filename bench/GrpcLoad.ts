/**
 * gRPC load (@grpc/grpc-js, the same client library for every server): `connections` calls in flight at once over
 * as many HTTP/2 connections, each sending the next call as soon as the previous one ended, for a bounded time.
 * Requests are written from the A2A descriptor (src/protocol/generated/v1Proto.ts) and every answer is read back and
 * checked, so errors and wrong answers are counted, as LoadGen does for HTTP.
 */
import { type DescMessage, fromBinary, fromJson, type JsonValue, type MessageShape, toBinary } from "@bufbuild/protobuf"
import * as grpc from "@grpc/grpc-js"
import { Effect } from "effect"
import { A2AService } from "../src/protocol/generated/v1Proto.ts"
import { BenchError } from "./BenchError.ts"
import type { LoadFigures, LoadSettings } from "./LoadGen.ts"
import { percentile } from "./Sample.ts"

export interface GrpcLoad {
  /** `host:port` */
  readonly target: string
  /** The method's name in A2AService, e.g. "SendMessage". */
  readonly method: string
  /** A fresh request per call, as ProtoJSON. */
  readonly request: () => JsonValue
  /** True when the answer (each message of a stream, in order) is a success of the expected shape. */
  readonly verify: (answers: ReadonlyArray<MessageShape<DescMessage>>) => boolean
}

export interface GrpcFigures extends LoadFigures {
  readonly eventsPerSec: number
}

const identity = (b: Buffer) => b

/** The service parameters every call carries, as the HTTP load's headers do. */
const metadata = () => {
  const m = new grpc.Metadata()
  m.set("a2a-version", "1.0")
  return m
}
const TIMEOUT_MS = 10_000

const methodOf = (name: string) => {
  const method = A2AService.methods.find((m) => m.name === name)
  if (method === undefined) throw new Error(`no method ${name}`)
  return method
}

interface Outcome {
  readonly ok: boolean
  readonly messages: number
  readonly ms: number
}

const callOnce = (client: grpc.Client, load: GrpcLoad): Promise<Outcome> => {
  const method = methodOf(load.method)
  const path = `/${A2AService.typeName}/${method.name}`
  const bytes = Buffer.from(toBinary(method.input, fromJson(method.input, load.request())))
  const started = performance.now()
  const deadline = Date.now() + TIMEOUT_MS
  return new Promise((resolve) => {
    const done = (ok: boolean, messages: ReadonlyArray<Buffer>) => {
      let verified = ok
      if (ok) {
        try {
          verified = load.verify(messages.map((m) => fromBinary(method.output, m)))
        } catch {
          verified = false
        }
      }
      resolve({ ok: verified, messages: messages.length, ms: performance.now() - started })
    }
    if (method.methodKind === "server_streaming") {
      const received: Array<Buffer> = []
      const stream = client.makeServerStreamRequest(path, identity, identity, bytes, metadata(), { deadline })
      stream.on("data", (m: Buffer) => received.push(m))
      stream.on("error", () => done(false, received))
      stream.on("end", () => done(true, received))
    } else {
      client.makeUnaryRequest(
        path,
        identity,
        identity,
        bytes,
        metadata(),
        { deadline },
        (error, value) => done(error === null && value !== undefined, value === undefined ? [] : [value])
      )
    }
  })
}

/** One call, for a scenario's probe: fails unless it verifies. */
export const callGrpcOnce = (load: GrpcLoad): Effect.Effect<void, BenchError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => new grpc.Client(load.target, grpc.credentials.createInsecure())),
    (client) =>
      Effect.promise(() => callOnce(client, load)).pipe(
        Effect.flatMap((outcome) =>
          outcome.ok
            ? Effect.void
            : Effect.fail(new BenchError({ message: `gRPC ${load.method} on ${load.target}: not the expected answer` }))
        )
      ),
    (client) => Effect.sync(() => client.close())
  )

export const runGrpcLoad = (load: GrpcLoad, settings: LoadSettings): Effect.Effect<GrpcFigures, BenchError> =>
  Effect.tryPromise({
    try: async () => {
      // one channel (and so one HTTP/2 connection) per connection of the setting, as HTTP/1 keep-alive clients have
      const clients = Array.from(
        { length: settings.connections },
        () => new grpc.Client(load.target, grpc.credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 })
      )
      const latencies: Array<number> = []
      let errors = 0
      let messages = 0
      const started = performance.now()
      const until = started + settings.durationSec * 1000
      try {
        await Promise.all(clients.map(async (client) => {
          while (performance.now() < until) {
            const outcome = await callOnce(client, load)
            if (outcome.ok) {
              latencies.push(outcome.ms)
              messages += outcome.messages
            } else errors++
          }
        }))
      } finally {
        for (const client of clients) client.close()
      }
      const seconds = (performance.now() - started) / 1000
      return {
        throughput: latencies.length / seconds,
        eventsPerSec: messages / seconds,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        errors,
        completed: latencies.length
      }
    },
    catch: (cause) => new BenchError({ message: `gRPC load on ${load.target} ${load.method} failed`, cause })
  })
