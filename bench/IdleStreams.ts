/**
 * Idle streams: what a parked SSE stream costs the server, read in RSS both ways, and whether it is given back.
 *
 * Two kinds of stream, each opened on its own connection:
 * - `subscribe`: N tasks that stop in input-required are created first; then one SubscribeToTask per task.
 * - `send`: one SendStreamingMessage per stream whose agent (`hold`) emits the task, goes working and waits until
 *   the task is canceled; so each stream also carries its task and a waiting execution, as an operator's would.
 *
 * Readings (RSS of the server process): `before` after a forced full GC; the streams are opened and each waits
 * for its first event; `open` after a pause without any forced GC (what an operator sees: the garbage the opening
 * left behind counts until the heap shrinks by itself); `openGc` after a forced GC (what the server keeps);
 * then every client disconnects (for `send` the held tasks are canceled too, so the executions end), and `closed`
 * is read without and `closedGc` with a forced GC: near `before` when the streams' memory was released.
 */
import { Effect, Schema } from "effect"
import * as Http from "node:http"
import { type BenchError } from "./BenchError.ts"
import { A2A_HEADERS } from "./LoadGen.ts"
import { call, rpcBody, RpcResult, sendMessageParams, TaskOf } from "./Requests.ts"
import type { IdleFigures } from "./Sample.ts"
import type { BenchServer } from "./ServerProcess.ts"
import { firstEventEnd, sseEvents } from "./SseBody.ts"
import { newMessageId } from "./StreamDriver.ts"
import { HOLD, WAIT } from "./TrivialAgent.ts"

export type IdleKind = "subscribe" | "send"

export type Reading = "before" | "open" | "openGc" | "closed" | "closedGc"

export interface IdleSettings {
  readonly streams: number
  /** How many tasks are created / streams opened at once. */
  readonly parallel: number
  /** Runs right before each RSS reading (bench/heap.ts takes a heap snapshot there). */
  readonly atReading?: ((reading: Reading) => Effect.Effect<void, BenchError>) | undefined
}

const OPEN_TIMEOUT_MS = 15_000
const SETTLE = "1 second"

const WaitingTask = RpcResult(Schema.Struct({ task: TaskOf(Schema.Literal("TASK_STATE_INPUT_REQUIRED")) }))

const createWaitingTask = (server: BenchServer) =>
  call(WaitingTask, server.endpoints.jsonRpc, {
    method: "POST",
    body: rpcBody("SendMessage", sendMessageParams(`${WAIT} hello`, newMessageId()))
  }).pipe(Effect.map((answer) => answer.result.task.id))

const CanceledTask = RpcResult(TaskOf(Schema.Literal("TASK_STATE_CANCELED")))

const cancelTask = (server: BenchServer, taskId: string) =>
  call(CanceledTask, server.endpoints.jsonRpc, { method: "POST", body: rpcBody("CancelTask", { id: taskId }) })

interface OpenStream {
  readonly request: Http.ClientRequest
  readonly taskId: string
  readonly isOpen: () => boolean
}

/** The task id of a stream's first event (a JSON-RPC result holding the task), if it is one. */
const taskIdOf = (event: string | undefined): string | undefined => {
  if (event === undefined) return undefined
  try {
    const parsed = JSON.parse(event) as { result?: { task?: { id?: unknown } } }
    const id = parsed.result?.task?.id
    return typeof id === "string" ? id : undefined
  } catch {
    return undefined
  }
}

/** Opens a stream; resolves once its first event (the task) arrived, null if it failed or timed out. */
const openStream = (url: string, body: string, expectedTaskId: string | undefined): Promise<OpenStream | null> =>
  new Promise((resolve) => {
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
        if (end === -1) return
        const taskId = taskIdOf(sseEvents(text.slice(0, end))[0])
        settle(
          res.statusCode === 200 && taskId !== undefined && (expectedTaskId === undefined || taskId === expectedTaskId)
            ? { request, taskId, isOpen: () => open }
            : null
        )
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

const disconnect = (streams: ReadonlyArray<OpenStream | null>) => {
  for (const stream of streams) stream?.request.destroy()
}

const pause = Effect.sleep(SETTLE)

/**
 * A pause, then a forced full GC, then a pause: a reading then counts what the server keeps, not the garbage a
 * burst of requests left behind (the young generation alone grows by up to tens of MiB under one).
 */
const collected = (server: BenchServer) => pause.pipe(Effect.andThen(server.collectGarbage), Effect.andThen(pause))

export const runIdle = (
  server: BenchServer,
  kind: IdleKind,
  settings: IdleSettings
): Effect.Effect<IdleFigures, BenchError> =>
  Effect.gen(function*() {
    const read = (reading: Reading) =>
      (settings.atReading === undefined ? Effect.void : settings.atReading(reading)).pipe(
        Effect.andThen(server.rssKb)
      )
    const url = server.endpoints.jsonRpc
    // subscribe: the tasks exist before the first reading; send: each stream makes its own.
    const taskIds = kind === "subscribe"
      ? yield* Effect.forEach(Array.from({ length: settings.streams }), () => createWaitingTask(server), {
        concurrency: settings.parallel
      })
      : Array.from({ length: settings.streams }, () => undefined)
    const bodyOf = (taskId: string | undefined) =>
      taskId === undefined
        ? rpcBody("SendStreamingMessage", sendMessageParams(`${HOLD} hello`, newMessageId()))
        : rpcBody("SubscribeToTask", { id: taskId })
    yield* collected(server)
    const rssBeforeKb = yield* read("before")
    const started = performance.now()
    const streams = yield* Effect.acquireRelease(
      Effect.forEach(
        taskIds,
        (taskId) => Effect.promise(() => openStream(url, bodyOf(taskId), taskId)),
        { concurrency: settings.parallel }
      ),
      // Whatever happens to the run, no connection stays open.
      (streams) => Effect.sync(() => disconnect(streams))
    )
    const openMs = performance.now() - started
    const opened = streams.filter((s) => s !== null)
    yield* pause
    const rssOpenKb = yield* read("open")
    yield* collected(server)
    const rssOpenGcKb = yield* read("openGc")
    const stillOpen = opened.filter((s) => s.isOpen()).length
    disconnect(streams)
    if (kind === "send") {
      // The agent waits until its task is canceled: a stream's going away does not end a task (nor should it).
      yield* Effect.forEach(opened, (s) => cancelTask(server, s.taskId), {
        concurrency: settings.parallel,
        discard: true
      })
    }
    yield* pause
    const rssClosedKb = yield* read("closed")
    yield* collected(server)
    const rssClosedGcKb = yield* read("closedGc")
    const per = (kb: number) => opened.length === 0 ? 0 : (kb - rssBeforeKb) / opened.length
    return {
      requested: settings.streams,
      opened: opened.length,
      stillOpen,
      rssBeforeKb,
      rssOpenKb,
      rssOpenGcKb,
      rssClosedKb,
      rssClosedGcKb,
      perStreamKb: per(rssOpenKb),
      perStreamGcKb: per(rssOpenGcKb),
      leftPerStreamKb: per(rssClosedGcKb),
      openMs
    }
  }).pipe(Effect.scoped)
