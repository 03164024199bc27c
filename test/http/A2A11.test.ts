/**
 * The A2A 1.1 draft behind its switch (A2A11), over real HTTP on 127.0.0.1 with the memory stores: task generations,
 * the long-poll GetTask and conditional sends, each test quoting the sentence of the draft (the specification's
 * dev-1.1 branch, PR #1810) it checks; and, with the switch off, the 1.0 wire as it always was.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Option, type Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2A11 from "../../src/server/A2A11.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as StubHandler from "./fixtures/StubHandler.ts"
import * as TestServer from "./fixtures/TestServer.ts"

const { call, userMessage } = TestServer

// First message: WORKING with a progress message, an artifact, then input required. "done" completes; "slow" works
// for a while first.
const agent = AgentExecutor.task((task, ctx) => {
  const text = AgentExecutor.textOf(ctx.message)
  if (Option.isNone(ctx.task)) {
    return Effect.andThen(
      task.working("On it"),
      Effect.andThen(task.artifact({ artifactId: "a-1", parts: [{ text: "first" }] }), task.requireInput("More?"))
    )
  }
  if (text === "slow") return Effect.andThen(Effect.sleep("300 millis"), task.requireInput("Slept"))
  return text === "done" ? task.complete("Done") : task.requireInput("And then?")
})

const start = (draft: boolean): Effect.Effect<{ readonly url: string }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(A2AServer.layer({ card: StubHandler.card, executor: agent })),
      Layer.provide(draft ? A2A11.layer({ maxWait: "2 seconds" }) : Layer.empty),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    return { url: `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}` }
  })

interface Task {
  readonly id: string
  readonly status: { readonly state: string }
  readonly generation?: number
}

const client = (url: string, version = "1.1") => {
  const headers = { "content-type": "application/json", "a2a-version": version }
  const rpc = (method: string, params: unknown) =>
    TestServer.request(`${url}/`, { method: "POST", headers, body: JSON.stringify(call(method, params)) })
  const send = (text: string, extra: Record<string, unknown> = {}, configuration?: Record<string, unknown>) =>
    Effect.map(
      rpc("SendMessage", { message: userMessage(text, extra), ...(configuration ? { configuration } : {}) }),
      (reply) => reply.json as { result?: { task: Task }; error?: { code: number; data?: unknown; message: string } }
    )
  const get = (id: string, query = "") =>
    TestServer.request(`${url}/tasks/${id}${query}`, { headers: { "a2a-version": version } })
  return { rpc, send, get, headers }
}

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
    }).pipe(Effect.scoped))
})
