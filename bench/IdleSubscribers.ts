/**
 * Idle subscriptions: create N tasks that stop in input-required, read the server's RSS, open
 * one SubscribeToTask stream per task (each on its own connection) and wait for its first event
 * (the task snapshot), read RSS again, then close them all. The RSS difference per open stream
 * is what a parked subscriber costs the server.
 */
import { Effect, Schema } from "effect"
import * as Http from "node:http"
import { type BenchError } from "./BenchError.ts"
import { A2A_HEADERS } from "./LoadGen.ts"
import { call, rpcBody, RpcResult, sendMessageParams, TaskOf } from "./Requests.ts"
import type { IdleFigures } from "./Sample.ts"
import type { BenchServer } from "./ServerProcess.ts"
import { firstEventEnd } from "./Sse.ts"
import { newMessageId } from "./StreamDriver.ts"
import { WAIT } from "./TrivialAgent.ts"

export interface IdleSettings {
  readonly streams: number
  /** How many tasks are created / streams opened at once. */
  readonly parallel: number
  /** Runs right before each RSS reading (bench/heap.ts takes a heap snapshot there). */
  readonly atReading?: ((reading: "before" | "after") => Effect.Effect<void, BenchError>) | undefined
}

const OPEN_TIMEOUT_MS = 15_000
const SETTLE = "1 second"

const WaitingTask = RpcResult(Schema.Struct({ task: TaskOf(Schema.Literal("TASK_STATE_INPUT_REQUIRED")) }))

const createWaitingTask = (server: BenchServer) =>
  call(WaitingTask, server.endpoints.jsonRpc, {
    method: "POST",
    body: rpcBody("SendMessage", sendMessageParams(`${WAIT} hello`, newMessageId()))
  }).pipe(Effect.map((answer) => answer.result.task.id))

interface OpenStream {
  readonly request: Http.ClientRequest
  readonly isOpen: () => boolean
}

/** Opens a subscription; resolves once its first event arrived (null if it failed or timed out). */
const subscribe = (url: string, taskId: string): Promise<OpenStream | null> =>
  new Promise((resolve) => {
    const body = rpcBody("SubscribeToTask", { id: taskId })
    let settled = false
    let open = true
    const timer = setTimeout(() => settle(null), OPEN_TIMEOUT_MS)
    const settle = (value: OpenStream | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (value === null) request.destroy()
      resolve(value)
    }
    const request = Http.request(url, {
      method: "POST",
      agent: false,
      headers: { ...A2A_HEADERS, accept: "text/event-stream", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        if (settled) return
        text += chunk
        const end = firstEventEnd(text)
        if (end !== -1) {
          const first = text.slice(0, end)
          settle(
            res.statusCode === 200 && first.includes(taskId) && !first.includes("\"error\"")
              ? { request, isOpen: () => open }
              : null
          )
        }
      })
      res.on("close", () => {
        open = false
        settle(null)
      })
    })
    request.on("error", () => {
      open = false
      settle(null)
    })
    request.end(body)
  })

/**
 * Lets the server settle, then has it collect its garbage and settle again: a reading then counts what the
 * server keeps, not the garbage that opening the streams left behind (the young generation alone grows by up
 * to tens of MiB under a burst of requests, which would swamp 1,000 streams' worth).
 */
const settled = (server: BenchServer) =>
  Effect.sleep(SETTLE).pipe(Effect.andThen(server.collectGarbage), Effect.andThen(Effect.sleep(SETTLE)))

export const runIdle = (
  server: BenchServer,
  settings: IdleSettings
): Effect.Effect<IdleFigures, BenchError> =>
  Effect.gen(function*() {
    const taskIds = yield* Effect.forEach(
      Array.from({ length: settings.streams }),
      () => createWaitingTask(server),
      { concurrency: settings.parallel }
    )
    yield* settled(server)
    if (settings.atReading !== undefined) yield* settings.atReading("before")
    const rssBeforeKb = yield* server.rssKb
    const started = performance.now()
    const streams = yield* Effect.acquireRelease(
      Effect.forEach(
        taskIds,
        (id) => Effect.promise(() => subscribe(server.endpoints.jsonRpc, id)),
        { concurrency: settings.parallel }
      ),
      (streams) =>
        Effect.sync(() => {
          for (const stream of streams) stream?.request.destroy()
        })
    )
    const openMs = performance.now() - started
    const opened = streams.filter((s) => s !== null)
    yield* settled(server)
    if (settings.atReading !== undefined) yield* settings.atReading("after")
    const rssAfterKb = yield* server.rssKb
    const stillOpen = opened.filter((s) => s.isOpen()).length
    return {
      requested: settings.streams,
      opened: opened.length,
      stillOpen,
      rssBeforeKb,
      rssAfterKb,
      perStreamKb: opened.length === 0 ? 0 : (rssAfterKb - rssBeforeKb) / opened.length,
      openMs
    }
  }).pipe(Effect.scoped)
