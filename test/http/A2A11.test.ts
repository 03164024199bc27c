/**
 * The A2A 1.1 draft behind its switch (A2A11), over real HTTP on 127.0.0.1 with the memory stores: task generations,
 * the long-poll GetTask and conditional sends, each test quoting the sentence of the draft (the specification's
 * dev-1.1 branch, PR #1810) it checks; and, with the switch off, the 1.0 wire as it always was.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as DraftServer from "./fixtures/DraftServer.ts"
import * as TestServer from "./fixtures/TestServer.ts"

const { call, userMessage } = TestServer

const start = DraftServer.start

interface Task {
  readonly id: string
  readonly status: { readonly state: string }
  readonly generation?: number
}

interface RpcError {
  readonly code: number
  readonly message: string
  readonly data?: ReadonlyArray<{ readonly reason?: string; readonly metadata?: Record<string, string> }>
}

let sequence = 0

const client = (url: string, version = "1.1") => {
  const headers = { "content-type": "application/json", "a2a-version": version }
  const rpc = (method: string, params: unknown) =>
    TestServer.request(`${url}/`, { method: "POST", headers, body: JSON.stringify(call(method, params)) })
  const send = (text: string, extra: Record<string, unknown> = {}, configuration?: Record<string, unknown>) =>
    Effect.map(
      rpc("SendMessage", {
        message: userMessage(text, { messageId: `m-${text}-${++sequence}`, ...extra }),
        ...(configuration ? { configuration } : {})
      }),
      (reply) => reply.json as { result?: { task: Task }; error?: RpcError }
    )
  const get = (id: string, query = "") =>
    TestServer.request(`${url}/tasks/${id}${query}`, { headers: { "a2a-version": version } })
  const getTask = (id: string, query = "") => Effect.map(get(id, query), (reply) => reply.json as Task)
  const stream = (text: string, extra: Record<string, unknown> = {}) =>
    TestServer.sse(`${url}/message:stream`, {
      method: "POST",
      headers,
      body: JSON.stringify({ message: userMessage(text, { messageId: `m-${text}-${++sequence}`, ...extra }) })
    })
  return { rpc, send, get, getTask, stream, headers }
}

/** Runs `effect` in the background; its result, once done, and whether it is done yet. */
const background = <A>(effect: Effect.Effect<A>) =>
  Effect.map(Effect.forkScoped(effect), (fiber) => ({
    done: Effect.sync(() => fiber.pollUnsafe() !== undefined),
    result: Fiber.join(fiber)
  }))

const generationsOf = (events: ReadonlyArray<{ readonly data: unknown }>) =>
  events.map(({ data }) => {
    const e = data as Record<string, { generation?: number }>
    return (e["task"] ?? e["statusUpdate"] ?? e["artifactUpdate"] ?? {}).generation
  })

describe("A2A 1.1 draft, switched on", () => {
  it.live("\"It is initialised to `1` when a task is created and MUST be incremented by exactly `1`\"", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const c = client(server.url)
      const sent = yield* c.send("start")
      const task = sent.result!.task
      // created (1), WORKING with a message (2), artifact (3), INPUT_REQUIRED (4)
      assert.strictEqual(task.status.state, "TASK_STATE_INPUT_REQUIRED")
      assert.strictEqual(task.generation, 4)
      const read = (yield* c.get(task.id)).json as Task
      assert.strictEqual(read.generation, 4)
      // "incremented by exactly 1 ... on every state-changing mutation": another turn, one status update
      const next = yield* c.send("next", { taskId: task.id })
      assert.strictEqual(next.result!.task.generation, 5)
    }).pipe(Effect.scoped))

  it.live("\"The `generation` value carried in TaskStatusUpdateEvent and TaskArtifactUpdateEvent MUST reflect the task's generation after the mutation\"", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const c = client(server.url)
      const reply = yield* c.stream("start")
      // the task (1), WORKING (2), the artifact (3), INPUT_REQUIRED (4): no two events share a generation
      assert.deepStrictEqual(generationsOf(reply.events), [1, 2, 3, 4])
      const id = (reply.events[0]!.data as { task: Task }).task.id
      const more = yield* c.stream("done", { taskId: id })
      // a continued task's stream starts with the task as it is, then the one update of this turn
      assert.deepStrictEqual(generationsOf(more.events), [4, 5])
    }).pipe(Effect.scoped))

  it.live("the card and the A2A-Version negotiation name 1.1 beside 1.0", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const card = (yield* TestServer.request(`${server.url}/.well-known/agent-card.json`)).json as {
        supportedInterfaces: ReadonlyArray<{ protocolVersion: string; protocolBinding: string }>
      }
      const versions = card.supportedInterfaces.map((i) => i.protocolVersion)
      assert.strictEqual(versions[0], "1.0")
      assert.include(versions, "1.1")
      const viaRest = yield* c11(server.url).get("missing")
      assert.strictEqual(viaRest.status, 404)
    }).pipe(Effect.scoped))

  it.live("\"If `currentGeneration` is set and the task's current `generation` is equal to or less than the supplied value, the server SHOULD hold the request open and return only once the task's `generation` advances beyond the supplied value\"", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const c = client(server.url)
      const task = (yield* c.send("start")).result!.task
      assert.strictEqual(task.generation, 4)
      const viaRest = yield* background(c.getTask(task.id, "?currentGeneration=4"))
      const viaRpc = yield* background(
        Effect.map(
          c.rpc("GetTask", { id: task.id, currentGeneration: "4" }),
          (r) => (r.json as { result: Task }).result
        )
      )
      yield* Effect.sleep("300 millis")
      assert.isFalse(yield* viaRest.done)
      assert.isFalse(yield* viaRpc.done)
      yield* c.send("next", { taskId: task.id })
      assert.strictEqual((yield* viaRest.result).generation, 5)
      assert.strictEqual((yield* viaRpc.result).generation, 5)
    }).pipe(Effect.scoped))

  it.live("\"If `currentGeneration` is set and the task's current `generation` is already greater than the supplied value, the server MUST return the current state immediately\"; a task that has ended answers at once", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const c = client(server.url)
      const task = (yield* c.send("start")).result!.task
      const started = Date.now()
      assert.strictEqual((yield* c.getTask(task.id, "?currentGeneration=3")).generation, 4)
      const done = (yield* c.send("done", { taskId: task.id })).result!.task
      assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
      assert.strictEqual((yield* c.getTask(task.id, "?currentGeneration=99")).generation, 5)
      assert.isBelow(Date.now() - started, 1500)
    }).pipe(Effect.scoped))

  it.live("\"The server MAY return earlier (for example, on an implementation-defined timeout) with the current task state\": after the server's maxWait", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const c = client(server.url)
      const task = (yield* c.send("start")).result!.task
      const started = Date.now()
      const read = yield* c.getTask(task.id, "?currentGeneration=4")
      const waited = Date.now() - started
      assert.strictEqual(read.generation, 4)
      assert.isAtLeast(waited, 1900)
      assert.isBelow(waited, 4000)
    }).pipe(Effect.scoped))

  it.live("\"If the values do not match, the server MUST reject the request with TaskGenerationMismatchError (HTTP 409 Conflict / gRPC ABORTED)\"", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const c = client(server.url)
      const task = (yield* c.send("start")).result!.task
      // matching: goes in (and moves the task to 5)
      const ok = yield* c.send("next", { taskId: task.id }, { ifGenerationMatch: 4 })
      assert.strictEqual(ok.result?.task.generation, 5)
      // stale: JSON-RPC -32010 with the generations in the ErrorInfo
      const stale = yield* c.send("again", { taskId: task.id }, { ifGenerationMatch: "4" })
      assert.strictEqual(stale.error?.code, -32010)
      const info = stale.error?.data?.find((d) => d.reason === "TASK_GENERATION_MISMATCH")
      assert.deepStrictEqual(info?.metadata, { taskId: task.id, expectedGeneration: "4", currentGeneration: "5" })
      // over REST: 409 and a google.rpc.Status with status ABORTED
      const rest = yield* TestServer.request(`${server.url}/message:send`, {
        method: "POST",
        headers: c.headers,
        body: JSON.stringify({
          message: userMessage("rest", { messageId: "m-rest-409", taskId: task.id }),
          configuration: { ifGenerationMatch: "3" }
        })
      })
      assert.strictEqual(rest.status, 409)
      const status = (rest.json as { error: { code: number; status: string } }).error
      assert.strictEqual(status.code, 409)
      assert.strictEqual(status.status, "ABORTED")
      // the refused messages did not go in
      const read = yield* c.getTask(task.id)
      assert.strictEqual(read.generation, 5)
    }).pipe(Effect.scoped))

  it.live("\"If the task referenced by the message does not yet exist (i.e., a new task will be created), this field MUST be ignored\"", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const created = yield* client(server.url).send("start", {}, { ifGenerationMatch: 42 })
      assert.strictEqual(created.result?.task.generation, 4)
    }).pipe(Effect.scoped))

  it.live("two clients sending on the same generation: only one message goes in", () =>
    Effect.gen(function*() {
      const server = yield* start(true)
      const c = client(server.url)
      const task = (yield* c.send("start")).result!.task
      const [a, b] = yield* Effect.all([
        c.send("slow", { taskId: task.id }, { ifGenerationMatch: 4 }),
        c.send("slow", { taskId: task.id }, { ifGenerationMatch: 4 })
      ], { concurrency: 2 })
      const outcomes = [a, b].map((r) => r.error?.code ?? r.result?.task.generation)
      assert.sameMembers(outcomes, [5, -32010])
    }).pipe(Effect.scoped))
})

const c11 = (url: string) => client(url, "1.1")

describe("A2A 1.1 draft, switched off (the default)", () => {
  it.live("no generation anywhere, 1.1 not negotiated, currentGeneration and ifGenerationMatch ignored", () =>
    Effect.gen(function*() {
      const server = yield* start(false)
      const c = client(server.url, "1.0")
      const sent = yield* c.send("start", {}, { ifGenerationMatch: 7 })
      const task = sent.result!.task
      assert.notProperty(task, "generation")
      assert.notInclude((yield* c.get(task.id)).text, "generation")
      // answered at once, as if the parameter were not there
      const started = Date.now()
      assert.notInclude((yield* c.get(task.id, "?currentGeneration=99")).text, "generation")
      const rpc = yield* c.rpc("GetTask", { id: task.id, currentGeneration: 99 })
      assert.notInclude(rpc.text, "generation")
      assert.isBelow(Date.now() - started, 1000)
      // a condition that does not hold is not checked
      const next = yield* c.send("next", { taskId: task.id }, { ifGenerationMatch: 1 })
      assert.strictEqual(next.result?.task.status.state, "TASK_STATE_INPUT_REQUIRED")
      const streamed = yield* c.stream("start")
      assert.notInclude(streamed.raw, "generation")
      const card = yield* TestServer.request(`${server.url}/.well-known/agent-card.json`)
      assert.notInclude(card.text, "\"1.1\"")
      const refused = yield* client(server.url, "1.1").rpc("GetTask", { id: task.id })
      assert.strictEqual((refused.json as { error: RpcError }).error.code, -32009)
    }).pipe(Effect.scoped))
})
