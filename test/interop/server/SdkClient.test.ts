/**
 * Interop: the official @a2a-js/sdk client drives our server over JSON-RPC and over HTTP+JSON/REST. It
 * discovers the transport from our agent card, then sends, streams, gets, lists, cancels and subscribes,
 * and maps our errors to its typed errors.
 */
import { type Message, type Task, TaskState } from "@a2a-js/sdk"
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as DemoAgent from "../../../src/server/DemoAgent.ts"
import { collect, failure, isTask, request, textOf } from "../../fixtures/SdkClientCalls.ts"
import { type Binding, connect } from "../../fixtures/SdkHttpClient.ts"
import * as TestServer from "../../http/fixtures/TestServer.ts"

const startDemo = TestServer.startCore(
  DemoAgent.make({ stepDelay: Duration.millis(2), slowSteps: 100_000 }),
  {},
  DemoAgent.card
)

const scenarios = (binding: Binding) =>
  describe(`@a2a-js/sdk client over ${binding}`, () => {
    it.live("discovers the interface from our card and exchanges a message", () =>
      Effect.gen(function*() {
        const server = yield* startDemo
        const { calls, client } = yield* connect(server.url, binding)
        assert.strictEqual(client.protocolVersion, "1.0")
        const card = yield* Effect.promise(() => client.getAgentCard())
        assert.strictEqual(card.name, DemoAgent.card.name)
        // Our server serves 1.0 and 0.3 by default: the SDK reads every interface and picks a 1.0 one.
        assert.deepStrictEqual(
          card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion]),
          [
            ["JSONRPC", `${server.url}/`, "1.0"],
            ["HTTP+JSON", server.url, "1.0"],
            ["JSONRPC", `${server.url}/`, "0.3"],
            ["HTTP+JSON", server.url, "0.3"]
          ]
        )
        const reply = yield* Effect.promise(() => client.sendMessage(request("hello there")))
        assert.isFalse(isTask(reply))
        assert.strictEqual(textOf((reply as Message).parts), "Echo: hello there")
        assert.deepStrictEqual(calls, [
          binding === "JSONRPC" ? `POST ${server.url}/` : `POST ${server.url}/message:send`
        ])
      }).pipe(Effect.scoped))

    it.live("send (blocking) returns the finished task; get and list find it", () =>
      Effect.gen(function*() {
        const server = yield* startDemo
        const { client } = yield* connect(server.url, binding)
        const result = yield* Effect.promise(() => client.sendMessage(request("task write")))
        assert.isTrue(isTask(result))
        const task = result as Task
        assert.strictEqual(task.status?.state, TaskState.TASK_STATE_COMPLETED)
        assert.strictEqual(textOf(task.artifacts[0]!.parts), "Chunk 1. Chunk 2. Chunk 3.")

        const got = yield* Effect.promise(() => client.getTask({ tenant: "", id: task.id, historyLength: 1 }))
        assert.strictEqual(got.id, task.id)
        assert.isAtMost(got.history.length, 1)

        const listed = yield* Effect.promise(() =>
          client.listTasks({
            tenant: "",
            contextId: "",
            status: TaskState.TASK_STATE_COMPLETED,
            pageSize: 10,
            pageToken: "",
            historyLength: 0,
            statusTimestampAfter: undefined,
            includeArtifacts: true
          })
        )
        assert.include(listed.tasks.map((t) => t.id), task.id)
        assert.strictEqual(listed.nextPageToken, "")
      }).pipe(Effect.scoped))

    it.live("streams a task from submission to completion", () =>
      Effect.gen(function*() {
        const server = yield* startDemo
        const { client } = yield* connect(server.url, binding)
        const events = yield* collect(client.sendMessageStream(request("task stream")))
        const cases = events.map((e) => e.payload?.$case)
        assert.strictEqual(cases[0], "task")
        assert.include(cases, "artifactUpdate")
        const last = events[events.length - 1]!.payload
        assert.strictEqual(last?.$case, "statusUpdate")
        if (last?.$case === "statusUpdate") {
          assert.strictEqual(last.value.status?.state, TaskState.TASK_STATE_COMPLETED)
        }
      }).pipe(Effect.scoped))

    it.live("subscribes to a running task and sees it canceled", () =>
      Effect.gen(function*() {
        const server = yield* startDemo
        const { client } = yield* connect(server.url, binding)
        const started = yield* Effect.promise(() => client.sendMessage(request("slow", true)))
        const taskId = (started as Task).id
        const subscription = client.resubscribeTask({ tenant: "", id: taskId })[Symbol.asyncIterator]()
        const first = yield* Effect.promise(() => subscription.next())
        assert.strictEqual(first.value?.payload?.$case, "task")

        const canceled = yield* Effect.promise(() => client.cancelTask({ tenant: "", id: taskId, metadata: undefined }))
        assert.strictEqual(canceled.status?.state, TaskState.TASK_STATE_CANCELED)

        const rest = yield* Effect.promise(async () => {
          const out = []
          for (let r = await subscription.next(); !r.done; r = await subscription.next()) out.push(r.value)
          return out
        })
        const last = rest[rest.length - 1]?.payload
        assert.strictEqual(last?.$case, "statusUpdate")
        if (last?.$case === "statusUpdate") assert.strictEqual(last.value.status?.state, TaskState.TASK_STATE_CANCELED)
      }).pipe(Effect.scoped))

    it.live("our errors arrive as the SDK's typed errors", () =>
      Effect.gen(function*() {
        const server = yield* startDemo
        const { client } = yield* connect(server.url, binding)
        const missing = yield* failure(() =>
          client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })
        )
        assert.instanceOf(missing, TaskNotFoundError)

        const done = (yield* Effect.promise(() => client.sendMessage(request("task done")))) as Task
        const notCancelable = yield* failure(() => client.cancelTask({ tenant: "", id: done.id, metadata: undefined }))
        assert.instanceOf(notCancelable, TaskNotCancelableError)

        const terminal = yield* failure(() =>
          collect(client.resubscribeTask({ tenant: "", id: done.id })).pipe(Effect.runPromise)
        )
        assert.instanceOf(terminal, UnsupportedOperationError)
      }).pipe(Effect.scoped))
  })

scenarios("JSONRPC")
scenarios("HTTP+JSON")
