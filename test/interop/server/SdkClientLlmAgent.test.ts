/**
 * Interop: the official @a2a-js/sdk client drives an LLM agent (LlmAgent over a scripted LanguageModel) that our
 * server serves over JSON-RPC and HTTP+JSON: the streamed answer arrives as artifact chunks in order, appends
 * rebuild the text, and an INPUT_REQUIRED task is continued by the next message on it.
 */
import { type Task, TaskState } from "@a2a-js/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as LlmAgent from "../../../src/ai/LlmAgent.ts"
import * as ScriptedModel from "../../../src/ai/ScriptedModel.ts"
import * as DemoAgent from "../../../src/server/DemoAgent.ts"
import { collect, isTask, message, request, textOf } from "../../fixtures/SdkClientCalls.ts"
import { type Binding, connect } from "../../fixtures/SdkHttpClient.ts"
import * as TestServer from "../../http/fixtures/TestServer.ts"

/** Answers "who am I" by asking for the name; a name gets a greeting; anything else streams a sentence. */
const model = ScriptedModel.layer((request) => {
  const last = request.prompt.content.at(-1)
  const said = last?.role === "user"
    ? last.content.map((p) => (p.type === "text" ? p.text : "")).join("")
    : ""
  if (said === "who am I") return ScriptedModel.toolCall("ask_user", { question: "What is your name?" })
  if (said === "Ada") return ScriptedModel.text(["Hello, ", "Ada!"])
  return ScriptedModel.text(["The ", "answer ", "is ", "42."])
})

const startAgent = Effect.gen(function*() {
  const executor = yield* LlmAgent.make({ askUser: true }).pipe(Effect.provide(model))
  return yield* TestServer.startCore(executor, {}, DemoAgent.card)
})

const scenarios = (binding: Binding) =>
  describe(`@a2a-js/sdk client and an LLM agent over ${binding}`, () => {
    it.live("the streamed answer: one artifact in chunks, in order, appended, the last marked", () =>
      Effect.gen(function*() {
        const server = yield* startAgent
        const { client } = yield* connect(server.url, binding)
        const events = yield* collect(client.sendMessageStream(request("question")))
        const chunks = events.flatMap((e) => e.payload?.$case === "artifactUpdate" ? [e.payload.value] : [])
        assert.deepStrictEqual(
          chunks.map((c) => [textOf(c.artifact!.parts), c.append, c.lastChunk]),
          [["The ", false, false], ["answer ", true, false], ["is ", true, false], ["42.", true, true]]
        )
        assert.strictEqual(new Set(chunks.map((c) => c.artifact!.artifactId)).size, 1)
        // the client applies the appends as the spec says
        let text = ""
        for (const c of chunks) text = c.append ? text + textOf(c.artifact!.parts) : textOf(c.artifact!.parts)
        assert.strictEqual(text, "The answer is 42.")
        const last = events.at(-1)?.payload
        assert.strictEqual(
          last?.$case === "statusUpdate" ? last.value.status?.state : -1,
          TaskState.TASK_STATE_COMPLETED
        )
        const taskId = events[0]?.payload?.$case === "task" ? events[0].payload.value.id : ""
        const stored = yield* Effect.promise(() => client.getTask({ tenant: "", id: taskId, historyLength: undefined }))
        assert.strictEqual(textOf(stored.artifacts[0]!.parts), "The answer is 42.")
      }).pipe(Effect.scoped))

    it.live("INPUT_REQUIRED with the model's question; the next message on the task continues it", () =>
      Effect.gen(function*() {
        const server = yield* startAgent
        const { client } = yield* connect(server.url, binding)
        const asked = yield* Effect.promise(() => client.sendMessage(request("who am I")))
        assert.isTrue(isTask(asked))
        const task = asked as Task
        assert.strictEqual(task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
        assert.strictEqual(textOf(task.status?.message?.parts ?? []), "What is your name?")
        const events = yield* collect(client.sendMessageStream({
          ...request("Ada"),
          message: message("Ada", { taskId: task.id, contextId: task.contextId })
        }))
        const last = events.at(-1)?.payload
        assert.strictEqual(
          last?.$case === "statusUpdate" ? last.value.status?.state : -1,
          TaskState.TASK_STATE_COMPLETED
        )
        const done = yield* Effect.promise(() => client.getTask({ tenant: "", id: task.id, historyLength: undefined }))
        assert.strictEqual(textOf(done.artifacts[0]!.parts), "Hello, Ada!")
      }).pipe(Effect.scoped))
  })

scenarios("JSONRPC")
scenarios("HTTP+JSON")
