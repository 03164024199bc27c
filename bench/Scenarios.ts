/**
 * The benchmark scenarios. Each one is prepared once per server (setup + a probe that checks a
 * real answer, so a broken server fails loudly instead of measuring fast errors) and then run
 * once per round.
 */
import { Effect, Schema } from "effect"
import { BenchError } from "./BenchError.ts"
import { callGrpcOnce, type GrpcLoad, runGrpcLoad } from "./GrpcLoad.ts"
import { type IdleKind, type IdleSettings, runIdle } from "./IdleStreams.ts"
import { type HttpLoad, ID, type LoadSettings, runLoad } from "./LoadGen.ts"
import { AgentMessage, call, CompletedTask, rpcBody, RpcResult, sendMessageParams, TaskOf } from "./Requests.ts"
import type { Sample } from "./Sample.ts"
import type { BenchServer, ServerKind } from "./ServerProcess.ts"
import { newMessageId, readOneStream, runStreams, type StreamLoad } from "./StreamDriver.ts"
import { DELTAS, ECHO, LLM, LLM_DELTAS, STREAM, TASK } from "./TrivialAgent.ts"

export interface RunSettings extends LoadSettings {
  readonly idle: IdleSettings
}

/** A prepared scenario for one server: runs one measurement (RSS and CPU time are added by the caller). */
export type Runner = (settings: RunSettings) => Effect.Effect<Omit<Sample, "rssKb" | "cpuUsPerOp">, BenchError>

export interface Scenario {
  readonly id: string
  readonly title: string
  readonly measures: string
  readonly unit: "req/s" | "streams/s" | "KiB/stream"
  readonly servers: ReadonlyArray<ServerKind>
  /**
   * Runs on a fresh server process each round instead of the shared one: memory growth is only
   * readable in RSS before the heap has grown (and kept free space) under the other loads.
   */
  readonly isolated: boolean
  readonly prepare: (server: BenchServer) => Effect.Effect<Runner, BenchError>
}

// The gateway (in front of `ours`) only in the A2A scenarios: it forwards them all (bench/gateway.ts reads its cost).
const A2A: ReadonlyArray<ServerKind> = [
  "ours",
  "ours-sqlite",
  "ours-sqlite-full",
  "bun",
  "sdk",
  "gateway",
  "gateway-fetch",
  "gateway-full",
  "gateway-generic"
]
const ALL: ReadonlyArray<ServerKind> = [...A2A, "ceiling"]
/** The servers that serve gRPC (the SQLite variant only changes the store; Bun serves HTTP only). */
const GRPC: ReadonlyArray<ServerKind> = ["ours", "sdk"]

const ECHO_TEXT = `${ECHO} hello`
const TASK_TEXT = `${TASK} hello`

/** Cheap body checks for the load generator: the success marker is there and no error is. */
const has = (...markers: ReadonlyArray<string>) => (body: string) =>
  markers.every((m) => body.includes(m)) && !body.includes("\"error\"")

const httpRunner = (load: HttpLoad): Runner => (settings) => runLoad(load, settings)

const check = (ok: boolean, message: string) => ok ? Effect.void : Effect.fail(new BenchError({ message }))

const echoed = (parts: ReadonlyArray<{ readonly text: string }>, server: BenchServer) =>
  check(parts[0]?.text === ECHO_TEXT, `${server.kind}: the echo reply does not carry the text back`)

/** A completed task to read back (the ceiling answers any id with a fixed task). */
const existingTask = (server: BenchServer) =>
  server.kind === "ceiling"
    ? Effect.succeed("ceiling-task")
    : call(RpcResult(Schema.Struct({ task: CompletedTask })), server.endpoints.jsonRpc, {
      method: "POST",
      body: rpcBody("SendMessage", sendMessageParams(TASK_TEXT, newMessageId()))
    }).pipe(Effect.map((answer) => answer.result.task.id))

const rpcMessage: Scenario = {
  id: "rpc-message",
  title: "JSON-RPC SendMessage -> direct Message",
  measures: "The lightest full A2A round trip: decode, run the agent, encode one Message.",
  unit: "req/s",
  servers: ALL,
  isolated: false,
  prepare: (server) =>
    Effect.gen(function*() {
      const probe = yield* call(RpcResult(Schema.Struct({ message: AgentMessage })), server.endpoints.jsonRpc, {
        method: "POST",
        body: rpcBody("SendMessage", sendMessageParams(ECHO_TEXT, newMessageId()))
      })
      yield* echoed(probe.result.message.parts, server)
      return httpRunner({
        url: server.endpoints.jsonRpc,
        method: "POST",
        body: rpcBody("SendMessage", sendMessageParams(ECHO_TEXT, ID)),
        uniqueIds: true,
        verify: has("\"result\"", "ROLE_AGENT")
      })
    })
}

const rpcTask: Scenario = {
  id: "rpc-task",
  title: "JSON-RPC SendMessage -> Task completed (blocking)",
  measures: "Task lifecycle: create, store, one artifact, complete, answer with the final Task.",
  unit: "req/s",
  servers: A2A,
  isolated: false,
  prepare: (server) =>
    Effect.gen(function*() {
      const probe = yield* call(RpcResult(Schema.Struct({ task: CompletedTask })), server.endpoints.jsonRpc, {
        method: "POST",
        body: rpcBody("SendMessage", sendMessageParams(TASK_TEXT, newMessageId()))
      })
      yield* check(
        probe.result.task.artifacts.length === 1 && probe.result.task.artifacts[0]?.parts[0]?.text === TASK_TEXT,
        `${server.kind}: the completed task does not hold exactly the one artifact`
      )
      return httpRunner({
        url: server.endpoints.jsonRpc,
        method: "POST",
        body: rpcBody("SendMessage", sendMessageParams(TASK_TEXT, ID)),
        uniqueIds: true,
        verify: has("\"result\"", "TASK_STATE_COMPLETED")
      })
    })
}

const restMessage: Scenario = {
  id: "rest-message",
  title: "REST POST /message:send -> direct Message",
  measures: "The same round trip as rpc-message through the HTTP+JSON binding.",
  unit: "req/s",
  servers: ALL,
  isolated: false,
  prepare: (server) =>
    Effect.gen(function*() {
      const url = `${server.endpoints.rest}/message:send`
      const body = JSON.stringify(sendMessageParams(ECHO_TEXT, ID))
      const probe = yield* call(Schema.Struct({ message: AgentMessage }), url, {
        method: "POST",
        body: JSON.stringify(sendMessageParams(ECHO_TEXT, newMessageId()))
      })
      yield* echoed(probe.message.parts, server)
      return httpRunner({ url, method: "POST", body, uniqueIds: true, verify: has("ROLE_AGENT") })
    })
}

const rpcGetTask: Scenario = {
  id: "rpc-get-task",
  title: "JSON-RPC GetTask of an existing task",
  measures: "A read: look the task up in the store and encode it (with history and artifact).",
  unit: "req/s",
  servers: ALL,
  isolated: false,
  prepare: (server) =>
    Effect.gen(function*() {
      const id = yield* existingTask(server)
      const body = rpcBody("GetTask", { id })
      const probe = yield* call(RpcResult(CompletedTask), server.endpoints.jsonRpc, { method: "POST", body })
      yield* check(server.kind === "ceiling" || probe.result.id === id, `${server.kind}: GetTask returned another task`)
      return httpRunner({
        url: server.endpoints.jsonRpc,
        method: "POST",
        body,
        verify: has("\"result\"", "TASK_STATE_COMPLETED")
      })
    })
}

const restGetTask: Scenario = {
  id: "rest-get-task",
  title: "REST GET /tasks/{id} of an existing task",
  measures: "The same read as rpc-get-task through the HTTP+JSON binding.",
  unit: "req/s",
  servers: ALL,
  isolated: false,
  prepare: (server) =>
    Effect.gen(function*() {
      const id = yield* existingTask(server)
      const url = `${server.endpoints.rest}/tasks/${encodeURIComponent(id)}`
      const probe = yield* call(CompletedTask, url, { method: "GET" })
      yield* check(server.kind === "ceiling" || probe.id === id, `${server.kind}: GET /tasks returned another task`)
      return httpRunner({ url, method: "GET", verify: has("TASK_STATE_COMPLETED") })
    })
}

const card: Scenario = {
  id: "card",
  title: "GET /.well-known/agent-card.json",
  measures: "Discovery: serve the agent card (a static document).",
  unit: "req/s",
  servers: ALL,
  isolated: false,
  prepare: (server) =>
    Effect.gen(function*() {
      yield* call(Schema.Struct({ name: Schema.Literal("bench-agent") }), server.endpoints.card, { method: "GET" })
      return httpRunner({ url: server.endpoints.card, method: "GET", verify: has("supportedInterfaces") })
    })
}

/** A stream is right when it starts with the task, ends completed and carries no error. */
const streamIsComplete = (events: ReadonlyArray<string>) =>
  events.length >= 2
  && (events[0]?.includes("\"task\"") ?? false)
  && (events[events.length - 1]?.includes("TASK_STATE_COMPLETED") ?? false)
  && events.every((e) => !e.includes("\"error\""))

/** Whole SendStreamingMessage streams over JSON-RPC, each for `${word} hello`, read to their end and checked. */
const streamScenario = (
  fields: Pick<Scenario, "id" | "title" | "measures" | "servers">,
  word: string,
  verify: StreamLoad["verify"]
): Scenario => ({
  ...fields,
  unit: "streams/s",
  isolated: false,
  prepare: (server) =>
    Effect.gen(function*() {
      const load: StreamLoad = {
        url: server.endpoints.jsonRpc,
        body: () => rpcBody("SendStreamingMessage", sendMessageParams(`${word} hello`, newMessageId())),
        verify
      }
      yield* readOneStream(load)
      return (settings) => runStreams(load, settings)
    })
})

const rpcStream = streamScenario(
  {
    id: "rpc-stream",
    title: "JSON-RPC SendStreamingMessage, 10 artifact chunks",
    measures: "SSE streaming: task, 10 artifact-update events, final status; whole streams read and checked.",
    servers: A2A
  },
  STREAM,
  streamIsComplete
)

/** An LLM agent's streamed answer: the task, LLM_DELTAS chunks of one artifact, completed; effect-a2a only. */
const deltaStream = (id: string, word: string, title: string, measures: string): Scenario =>
  streamScenario(
    { id, title, measures, servers: ["ours"] },
    word,
    (events) => streamIsComplete(events) && events.length === LLM_DELTAS + 2
  )

const llmStream = deltaStream(
  "llm-stream",
  LLM,
  `LLM agent (effect-a2a/ai) streaming ${LLM_DELTAS} text deltas`,
  `LlmAgent over a scripted LanguageModel: each of ${LLM_DELTAS} deltas becomes an artifact chunk (one artifact, ` +
    "appended, the last marked); the conversation kept per task in memory."
)

const llmStreamHand = deltaStream(
  "llm-stream-hand",
  DELTAS,
  `Hand-written AgentExecutor sending the same ${LLM_DELTAS} chunks`,
  `The same ${LLM_DELTAS + 2} events from AgentExecutor.task and TaskUpdater.artifact: what the bridge costs ` +
    "above it."
)

/** Idle streams of one kind (see IdleStreams), on a server checked to park a task in input-required. */
const idleStreams = (id: string, kind: IdleKind, title: string): Scenario => ({
  id,
  title,
  measures: "Memory per idle stream: server RSS growth per open stream, without and with a forced GC, and what is "
    + "left once the clients disconnected.",
  unit: "KiB/stream",
  servers: A2A,
  isolated: true,
  prepare: (server) =>
    Effect.gen(function*() {
      yield* call(
        RpcResult(Schema.Struct({ task: TaskOf(Schema.Literal("TASK_STATE_INPUT_REQUIRED")) })),
        server.endpoints.jsonRpc,
        {
          method: "POST",
          body: rpcBody("SendMessage", sendMessageParams("wait probe", newMessageId()))
        }
      )
      return (settings) =>
        runIdle(server, kind, settings.idle).pipe(
          Effect.map((idle) => ({
            throughput: idle.opened,
            p50Ms: 0,
            p99Ms: 0,
            errors: idle.requested - idle.opened + (idle.opened - idle.stillOpen),
            completed: idle.opened,
            idle
          }))
        )
    })
})

const idleSubscribe = idleStreams(
  "idle-subscribe",
  "subscribe",
  "Idle SubscribeToTask streams on input-required tasks"
)

const idleSend = idleStreams(
  "idle-send",
  "send",
  "Idle SendStreamingMessage streams (the agent emits the task, goes working and waits)"
)

/** The server's gRPC target, or the error saying its card lists none. */
const grpcTarget = (server: BenchServer) =>
  server.endpoints.grpc === undefined
    ? Effect.fail(new BenchError({ message: `${server.kind}: the agent card lists no GRPC interface` }))
    : Effect.succeed(server.endpoints.grpc)

/** A decoded gRPC answer, read as loosely as the HTTP checks read bodies. */
type Answer = Readonly<Record<string, unknown>>

const caseOf = (answer: Answer | undefined): Answer | undefined => {
  const payload = answer?.["payload"] as { case?: string; value?: Answer } | undefined
  return payload?.value
}

const stateOf = (task: Answer | undefined): number | undefined =>
  (task?.["status"] as { state?: number } | undefined)?.state

/** TaskState enum numbers (the proto's). */
const COMPLETED = 3

/** A gRPC scenario's preparation: its load against the server's gRPC target, checked by one call first. */
const grpcPrepare = (
  make: (server: BenchServer) => Effect.Effect<Omit<GrpcLoad, "target">, BenchError>
): Scenario["prepare"] =>
(server) =>
  Effect.gen(function*() {
    const load: GrpcLoad = { target: yield* grpcTarget(server), ...(yield* make(server)) }
    yield* callGrpcOnce(load)
    return (settings) => runGrpcLoad(load, settings)
  })

const grpcMessage: Scenario = {
  id: "grpc-message",
  title: "gRPC SendMessage -> direct Message",
  measures: "The round trip of rpc-message over gRPC (protobuf over HTTP/2).",
  unit: "req/s",
  servers: GRPC,
  isolated: false,
  prepare: grpcPrepare(() =>
    Effect.succeed({
      method: "SendMessage",
      request: () => sendMessageParams(ECHO_TEXT, newMessageId()),
      verify: ([answer]) => {
        const payload = (answer as Answer | undefined)?.["payload"] as { case?: string } | undefined
        return payload?.case === "message"
      }
    })
  )
}

const grpcGetTask: Scenario = {
  id: "grpc-get-task",
  title: "gRPC GetTask of an existing task",
  measures: "The read of rpc-get-task over gRPC.",
  unit: "req/s",
  servers: GRPC,
  isolated: false,
  prepare: grpcPrepare((server) =>
    Effect.map(existingTask(server), (id) => ({
      method: "GetTask",
      request: () => ({ id }),
      verify: ([task]) => (task as Answer | undefined)?.["id"] === id && stateOf(task as Answer) === COMPLETED
    }))
  )
}

const grpcStream: Scenario = {
  id: "grpc-stream",
  title: "gRPC SendStreamingMessage, 10 artifact chunks",
  measures: "The stream of rpc-stream over gRPC: task, 10 artifact updates, final status, each read and checked.",
  unit: "streams/s",
  servers: GRPC,
  isolated: false,
  prepare: grpcPrepare(() =>
    Effect.succeed({
      method: "SendStreamingMessage",
      request: () => sendMessageParams(`${STREAM} hello`, newMessageId()),
      verify: (answers) => {
        const first = (answers[0] as Answer | undefined)?.["payload"] as { case?: string } | undefined
        const last = caseOf(answers[answers.length - 1] as Answer | undefined)
        return answers.length >= 2 && first?.case === "task" && stateOf(last) === COMPLETED
      }
    })
  )
}

export const scenarios: ReadonlyArray<Scenario> = [
  rpcMessage,
  rpcTask,
  restMessage,
  rpcGetTask,
  restGetTask,
  card,
  rpcStream,
  llmStream,
  llmStreamHand,
  idleSubscribe,
  idleSend,
  grpcMessage,
  grpcGetTask,
  grpcStream
]
