/**
 * GetTask answers with the JSON text kept from the last GetTask of the same task (TaskJson), so these tests change a
 * task between reads, through both bindings, and check every answer against what the task is at that moment.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as TaskJson from "../../src/server/internal/TaskJson.ts"
import * as TestServer from "./fixtures/TestServer.ts"

const { call, userMessage } = TestServer

// The first message asks for input; each answer adds an artifact and asks again, until "done" completes the task.
const agent = AgentExecutor.task((task, ctx) => {
  const text = AgentExecutor.textOf(ctx.message)
  if (Option.isNone(ctx.task)) return task.requireInput("What next?")
  return Effect.andThen(
    task.artifact({ artifactId: `a-${text}`, parts: [{ text: `got ${text}` }] }),
    text === "done" ? task.complete("Done") : task.requireInput("And then?")
  )
})

interface Task {
  readonly id: string
  readonly contextId: string
  readonly status: { readonly state: string }
  readonly history?: ReadonlyArray<{ readonly messageId: string }>
  readonly artifacts?: ReadonlyArray<{ readonly artifactId: string }>
}

const V1 = { "a2a-version": "1.0" }

describe("GetTask of a task that changes between reads", () => {
  it.effect("JSON-RPC and REST answer what the task is now, read once or many times, with and without historyLength", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.startCore(agent)
      const rpc = (payload: unknown) =>
        TestServer.request(`${server.url}/`, {
          method: "POST",
          headers: { "content-type": "application/json", ...V1 },
          body: JSON.stringify(payload)
        })
      const viaRpc = (params: Record<string, unknown>) =>
        Effect.map(rpc(call("GetTask", params, "g")), (reply) => (reply.json as { result: Task }).result)
      const viaRest = (id: string, query = "") =>
        Effect.map(
          TestServer.request(`${server.url}/tasks/${id}${query}`, { headers: V1 }),
          (reply) => reply.json as Task
        )
      const send = (taskId: string | undefined, text: string) =>
        rpc(call("SendMessage", { message: userMessage(text, taskId === undefined ? {} : { taskId }) }))

      const created = yield* send(undefined, "start")
      const id = (created.json as { result: { task: Task } }).result.task.id

      // Every read through both bindings, twice each, the full task and its history cut to one message and none:
      // all tell the same task. Answers the length of its history.
      const readAll = Effect.fn(function*(expected: { state: string; artifacts: number }) {
        const full = yield* viaRest(id)
        const history = full.history?.length ?? 0
        for (let round = 0; round < 2; round++) {
          for (const task of [yield* viaRpc({ id }), yield* viaRest(id)]) {
            assert.deepStrictEqual(task, full)
            assert.strictEqual(task.id, id)
            assert.strictEqual(task.status.state, expected.state)
            assert.strictEqual(task.artifacts?.length ?? 0, expected.artifacts)
          }
          for (const task of [yield* viaRpc({ id, historyLength: 1 }), yield* viaRest(id, "?historyLength=1")]) {
            assert.strictEqual(task.status.state, expected.state)
            assert.deepStrictEqual(task.history, full.history?.slice(-1))
          }
          for (const task of [yield* viaRpc({ id, historyLength: 0 }), yield* viaRest(id, "?historyLength=0")]) {
            assert.strictEqual(task.status.state, expected.state)
            assert.isUndefined(task.history)
          }
        }
        const [rpcText, restText] = [
          (yield* rpc(call("GetTask", { id }, "g"))).text,
          (yield* TestServer.request(`${server.url}/tasks/${id}`, { headers: V1 })).text
        ]
        assert.strictEqual(rpcText, `{"jsonrpc":"2.0","id":"g","result":${restText}}`)
        return history
      })

      const first = yield* readAll({ state: "TASK_STATE_INPUT_REQUIRED", artifacts: 0 })
      assert.isAbove(first, 0)
      yield* send(id, "one")
      const second = yield* readAll({ state: "TASK_STATE_INPUT_REQUIRED", artifacts: 1 })
      assert.isAbove(second, first)
      yield* send(id, "two")
      const third = yield* readAll({ state: "TASK_STATE_INPUT_REQUIRED", artifacts: 2 })
      assert.isAbove(third, second)
      const canceled = yield* rpc(call("CancelTask", { id }))
      assert.strictEqual((canceled.json as { result: Task }).result.status.state, "TASK_STATE_CANCELED")
      yield* readAll({ state: "TASK_STATE_CANCELED", artifacts: 2 })
    }).pipe(Effect.scoped))
})

describe("TaskJson", () => {
  it("answers JSON.stringify's text, kept by object from its second read on", () => {
    const text = TaskJson.make()
    const task: { id: string; status: { state: string } } = { id: "t", status: { state: "TASK_STATE_SUBMITTED" } }
    assert.strictEqual(text(task), JSON.stringify(task))
    // Stored tasks never change in place; this one does, to show which text is answered: the first read's is not
    // kept, the second read's is.
    task.status.state = "TASK_STATE_WORKING"
    assert.strictEqual(text(task), JSON.stringify(task))
    task.status.state = "TASK_STATE_COMPLETED"
    assert.include(text(task), "TASK_STATE_WORKING")
    assert.include(text(task), "TASK_STATE_WORKING")
    const changed = { ...task }
    assert.include(text(changed), "TASK_STATE_COMPLETED")
  })

  it("keeps at most maxChars of text, oldest out first, and no text longer than maxTextChars", () => {
    const text = TaskJson.make({ maxChars: 130, maxTextChars: 60 })
    const tasks = Array.from({ length: 4 }, (_, i) => ({ id: `t-${i}`, pad: "x".repeat(20) }))
    const big = { id: "big", pad: "y".repeat(80) }
    // Twice each: a text is kept from the second read on.
    for (const task of [...tasks, big, ...tasks, big]) text(task)
    // Each text is 41 chars: three fit in 130, so the first one went out; the big one was never kept.
    for (const task of [...tasks, big]) task.pad = "changed"
    for (const task of tasks.slice(1)) assert.include(text(task), "x".repeat(20))
    assert.include(text(big), "changed")
    assert.include(text(tasks[0]!), "changed")
  })

  it("stays within its bounds over many tasks", () => {
    const text = TaskJson.make({ maxChars: 1000, maxTextChars: 100 })
    const tasks = Array.from({ length: 5000 }, (_, i) => ({ id: `task-${i}` }))
    for (const task of [...tasks, ...tasks]) assert.strictEqual(text(task), JSON.stringify(task))
    // The last ones are kept (their first text answers), the first ones long gone.
    const last = tasks[tasks.length - 1]!
    const first = tasks[0]!
    last.id = "renamed"
    first.id = "renamed"
    assert.include(text(last), "task-4999")
    assert.include(text(first), "renamed")
  })
})
