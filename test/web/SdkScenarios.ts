/**
 * What every runtime's server must do for the official SDK's client (@a2a-js/sdk), over JSON-RPC and REST:
 * the card at the origin the client used, a message, a streamed task to its end, a cancel, and a client that
 * goes away in the middle of a stream (the task lives on, the server keeps answering). The servers run the demo
 * agent of examples/runtimes.
 */
import { type Message, Role, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk"
import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { type Binding, connect } from "../fixtures/SdkHttpClient.ts"

export type { Binding }

const request = (text: string, returnImmediately = false) => ({
  tenant: "",
  message: {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: []
  } satisfies Message,
  configuration: { acceptedOutputModes: ["text/plain"], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined
})

const textOf = (parts: ReadonlyArray<{ content?: { $case: string; value: unknown } | undefined }>) =>
  parts.map((p) => p.content?.$case === "text" ? String(p.content.value) : "").join("")

const stateOf = (event: StreamResponse | undefined) =>
  event?.payload?.$case === "statusUpdate"
    ? event.payload.value.status?.state
    : event?.payload?.$case === "task"
    ? event.payload.value.status?.state
    : undefined

/**
 * The scenarios against a server whose card is at `url` and whose interfaces start with `interfaceBase` (the
 * origin, or the path an app mounted A2A under).
 */
export const run = (url: string, binding: Binding, interfaceBase = url) =>
  Effect.gen(function*() {
    const { calls, client } = yield* connect(url, binding)
    assert.strictEqual(client.protocolVersion, "1.0")

    // the card, with interface URLs at the origin the client used
    const card = yield* Effect.promise(() => client.getAgentCard())
    assert.strictEqual(card.name, "effect-a2a demo agent")
    const used = card.supportedInterfaces.find((i) => i.protocolBinding === binding && i.protocolVersion === "1.0")
    expect(used?.url.startsWith(interfaceBase), `${used?.url} under ${interfaceBase}`).toBe(true)

    // a message
    const reply = yield* Effect.promise(() => client.sendMessage(request("hello there")))
    assert.isFalse("status" in reply)
    assert.strictEqual(textOf((reply as Message).parts), "Echo: hello there")
    expect(calls.at(-1)).toBe(binding === "JSONRPC" ? `POST ${used!.url}` : `POST ${used!.url}/message:send`)

    // a streamed task, to its end
    const events = yield* Effect.promise(async () => {
      const out: Array<StreamResponse> = []
      for await (const event of client.sendMessageStream(request("task stream"))) out.push(event)
      return out
    })
    assert.strictEqual(events[0]?.payload?.$case, "task")
    const artifactText = events.flatMap((e) =>
      e.payload?.$case === "artifactUpdate" ? [textOf(e.payload.value.artifact?.parts ?? [])] : []
    ).join("")
    assert.strictEqual(artifactText, "Chunk 1. Chunk 2. Chunk 3.")
    assert.strictEqual(stateOf(events.at(-1)), TaskState.TASK_STATE_COMPLETED)

    // a cancel
    const started = (yield* Effect.promise(() => client.sendMessage(request("slow", true)))) as Task
    const canceled = yield* Effect.promise(() => client.cancelTask({ tenant: "", id: started.id, metadata: undefined }))
    assert.strictEqual(canceled.status?.state, TaskState.TASK_STATE_CANCELED)

    // a client that goes away mid-stream: the task goes on, the server answers, and it can still be canceled
    const abort = new AbortController()
    const stream = client.sendMessageStream(request("slow"), { signal: abort.signal })[Symbol.asyncIterator]()
    const first = yield* Effect.promise(() => stream.next())
    assert.strictEqual(first.value?.payload?.$case, "task")
    const taskId = (first.value!.payload as { value: Task }).value.id
    abort.abort()
    yield* Effect.promise(() => stream.next().catch(() => undefined))
    const after = yield* Effect.promise(() => client.getTask({ tenant: "", id: taskId, historyLength: undefined }))
    assert.strictEqual(after.status?.state, TaskState.TASK_STATE_WORKING)
    const stopped = yield* Effect.promise(() => client.cancelTask({ tenant: "", id: taskId, metadata: undefined }))
    assert.strictEqual(stopped.status?.state, TaskState.TASK_STATE_CANCELED)
  })
