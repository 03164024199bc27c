/**
 * Interop: the official @a2a-js/sdk gRPC transport (its own generated proto code over @grpc/grpc-js) drives our
 * gRPC server through every operation of A2AService, streaming included, and reads our errors (status code and
 * the google.rpc.Status ErrorInfo detail) as its typed errors.
 */
import { AgentCard, type Message, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk"
import { type Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client"
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc"
import {
  ExtendedAgentCardNotConfiguredError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError
} from "@a2a-js/sdk/errors"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Auth from "../../../src/server/Auth.ts"
import * as DemoAgent from "../../../src/server/DemoAgent.ts"
import { collect, failure, isTask, request, textOf } from "../../fixtures/SdkClientCalls.ts"
import { startDemo } from "../../grpc/fixtures.ts"

/** The SDK's client over its gRPC transport, from a card listing our gRPC interface (it sends A2A-Version). */
const connect = (target: string) =>
  Effect.promise((): Promise<Client> =>
    new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ["GRPC"]
    })).createFromAgentCard(AgentCard.fromJSON({
      name: "ours",
      description: "",
      version: "1",
      supportedInterfaces: [{ url: target, protocolBinding: "GRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: []
    }))
  )

/** GetExtendedAgentCard through the transport (the SDK's Client has no method for it), with the metadata. */
const extendedCard = (client: Client, authorization?: string) =>
  client.transport.getExtendedAgentCard({ tenant: "" }, {
    serviceParameters: { "a2a-version": "1.0", ...(authorization === undefined ? {} : { authorization }) }
  })

const lastState = (events: ReadonlyArray<StreamResponse>) => {
  const last = events[events.length - 1]?.payload
  return last?.$case === "statusUpdate"
    ? last.value.status?.state
    : last?.$case === "task"
    ? last.value.status?.state
    : undefined
}

describe("@a2a-js/sdk gRPC client against our gRPC server", () => {
  it.live("SendMessage: a direct Message, and a finished Task", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const client = yield* connect(target)
      const reply = yield* Effect.promise(() => client.sendMessage(request("hello there")))
      assert.isFalse(isTask(reply))
      assert.strictEqual(textOf((reply as Message).parts), "Echo: hello there")

      const result = yield* Effect.promise(() => client.sendMessage(request("task write")))
      assert.isTrue(isTask(result))
      const task = result as Task
      assert.strictEqual(task.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.strictEqual(textOf(task.artifacts[0]!.parts), "Chunk 1. Chunk 2. Chunk 3.")
    }).pipe(Effect.scoped))

  it.live("GetTask and ListTasks find the task; historyLength applies", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const client = yield* connect(target)
      const task = (yield* Effect.promise(() => client.sendMessage(request("task write")))) as Task
      const got = yield* Effect.promise(() => client.getTask({ tenant: "", id: task.id, historyLength: 1 }))
      assert.strictEqual(got.id, task.id)
      assert.strictEqual(got.history.length, 1)
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
      assert.deepStrictEqual(listed.tasks.map((t) => t.id), [task.id])
      assert.strictEqual(listed.tasks[0]!.artifacts.length, 1)
      assert.strictEqual(listed.nextPageToken, "")
    }).pipe(Effect.scoped))

  it.live("SendStreamingMessage streams a task from submission to completion", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const client = yield* connect(target)
      const events = yield* collect(client.sendMessageStream(request("task stream")))
      const cases = events.map((e) => e.payload?.$case)
      assert.strictEqual(cases[0], "task")
      assert.include(cases, "artifactUpdate")
      assert.strictEqual(lastState(events), TaskState.TASK_STATE_COMPLETED)
    }).pipe(Effect.scoped))

  it.live("SubscribeToTask follows a running task; CancelTask ends it", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const client = yield* connect(target)
      const started = (yield* Effect.promise(() => client.sendMessage(request("slow", true)))) as Task
      const subscription = client.resubscribeTask({ tenant: "", id: started.id })[Symbol.asyncIterator]()
      const first = yield* Effect.promise(() => subscription.next())
      assert.strictEqual(first.value?.payload?.$case, "task")
      const canceled = yield* Effect.promise(() =>
        client.cancelTask({ tenant: "", id: started.id, metadata: undefined })
      )
      assert.strictEqual(canceled.status?.state, TaskState.TASK_STATE_CANCELED)
      const rest = yield* Effect.promise(async () => {
        const out: Array<StreamResponse> = []
        for (let r = await subscription.next(); r.done !== true; r = await subscription.next()) out.push(r.value)
        return out
      })
      assert.strictEqual(lastState(rest), TaskState.TASK_STATE_CANCELED)
    }).pipe(Effect.scoped))

  it.live("push notification configs: create, get, list, delete", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const client = yield* connect(target)
      const task = (yield* Effect.promise(() => client.sendMessage(request("slow", true)))) as Task
      const created = yield* Effect.promise(() =>
        client.createTaskPushNotificationConfig({
          tenant: "",
          id: "hook-1",
          taskId: task.id,
          url: "https://example.com/hook",
          token: "secret",
          authentication: undefined
        })
      )
      assert.strictEqual(created.id, "hook-1")
      assert.strictEqual(created.url, "https://example.com/hook")
      const got = yield* Effect.promise(() =>
        client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" })
      )
      assert.strictEqual(got.token, "secret")
      const listed = yield* Effect.promise(() =>
        client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })
      )
      assert.deepStrictEqual(listed.configs.map((c) => c.id), ["hook-1"])
      yield* Effect.promise(() =>
        client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" })
      )
      const gone = yield* failure(() =>
        client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" })
      )
      assert.instanceOf(gone, TaskNotFoundError)
      yield* Effect.promise(() => client.cancelTask({ tenant: "", id: task.id, metadata: undefined }))
    }).pipe(Effect.scoped))

  it.live("GetExtendedAgentCard: authenticated from the metadata; the typed errors when it is not there", () =>
    Effect.gen(function*() {
      const plain = yield* startDemo()
      const notDeclared = yield* failure(() => Effect.runPromise(connect(plain.target)).then((c) => extendedCard(c)))
      assert.instanceOf(notDeclared, UnsupportedOperationError)

      const auth = Auth.bearer({ tokens: { "token-a": "alice" } })
      const declared = { ...DemoAgent.card, capabilities: { ...DemoAgent.card.capabilities, extendedAgentCard: true } }
      const missing = yield* startDemo({ card: declared, auth })
      const none = yield* failure(() =>
        Effect.runPromise(connect(missing.target)).then((c) => extendedCard(c, "Bearer token-a"))
      )
      assert.instanceOf(none, ExtendedAgentCardNotConfiguredError)

      const extended = yield* startDemo({
        card: declared,
        extendedCard: { ...declared, name: "the extended card" },
        auth
      })
      const client = yield* connect(extended.target)
      const anonymous = yield* failure(() => extendedCard(client))
      assert.include(String(anonymous), "16") // UNAUTHENTICATED: the SDK has no typed error for it
      const wrongToken = yield* failure(() => extendedCard(client, "Bearer nope"))
      assert.include(String(wrongToken), "Invalid bearer token")
      const card = yield* Effect.promise(() => extendedCard(client, "Bearer token-a"))
      assert.strictEqual(card.name, "the extended card")
      assert.deepStrictEqual(card.skills.map((s) => s.id), DemoAgent.card.skills.map((s) => s.id))
    }).pipe(Effect.scoped))

  it.live("our errors arrive as the SDK's typed errors, with their gRPC status", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const client = yield* connect(target)
      const missing = yield* failure(() => client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined }))
      assert.instanceOf(missing, TaskNotFoundError)
      assert.strictEqual((missing as { status?: number }).status, 5) // NOT_FOUND

      const done = (yield* Effect.promise(() => client.sendMessage(request("task done")))) as Task
      const notCancelable = yield* failure(() => client.cancelTask({ tenant: "", id: done.id, metadata: undefined }))
      assert.instanceOf(notCancelable, TaskNotCancelableError)
      assert.strictEqual((notCancelable as { status?: number }).status, 9) // FAILED_PRECONDITION

      const terminal = yield* failure(() =>
        Effect.runPromise(collect(client.resubscribeTask({ tenant: "", id: done.id })))
      )
      assert.instanceOf(terminal, UnsupportedOperationError)
    }).pipe(Effect.scoped))
})
