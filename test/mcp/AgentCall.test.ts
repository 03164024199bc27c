/**
 * AgentCall against real A2A servers on 127.0.0.1: ours (the demo agent) and one built with the official SDK. Every
 * outcome (a direct reply, a completed task with streamed artifacts, input-required then answered, failed), the
 * events seen on the way, non-streaming calls, protocol errors, credentials, and interruption cancelling the task.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Schema } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as AgentCall from "../../src/mcp/AgentCall.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { Ours, OursSecured, TOKEN } from "../client/OurServer.ts"
import { kinds } from "../client/Results.ts"
import { SdkPeer } from "../interop/client/SdkServer.ts"

const ours = Effect.flatMap(Ours, (server) => A2AClient.resolve(server.url))
const sdk = Effect.flatMap(SdkPeer, (server) => A2AClient.resolve(server.url))

/** Runs a call and keeps the events it saw. */
const callSeeing = (client: A2AClient.A2AClientShape, input: AgentCall.Input, options: AgentCall.Options = {}) =>
  Effect.gen(function*() {
    const events: Array<v1.StreamResponse> = []
    const outcome = yield* AgentCall.call(client, input, {
      ...options,
      onEvent: (event) => Effect.sync(() => events.push(event))
    })
    return { outcome, events }
  })

/** Starts a call of a task that works until canceled, interrupts it once it works; the task's id. */
const interruptedWhileWorking = (client: A2AClient.A2AClientShape, text: string) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<string>()
    const fiber = yield* AgentCall.call(client, { text }, {
      onEvent: (event) =>
        "statusUpdate" in event && event.statusUpdate.status.state === "TASK_STATE_WORKING"
          ? Deferred.succeed(started, event.statusUpdate.taskId).pipe(Effect.asVoid)
          : Effect.void
    }).pipe(Effect.forkChild)
    const taskId = yield* Deferred.await(started)
    yield* Fiber.interrupt(fiber)
    return taskId
  })

layer(Layer.mergeAll(Ours.layer, OursSecured.layer, SdkPeer.layer, FetchHttpClient.layer), {
  excludeTestServices: true
})("AgentCall", (it) => {
  describe("our server", () => {
    it.effect("a direct reply is Completed with its text and context", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const outcome = yield* AgentCall.call(client, { text: "hello" })
        expect(outcome._tag).toBe("Completed")
        if (outcome._tag !== "Completed") return
        expect(outcome.text).toBe("Echo: hello")
        expect(outcome.taskId).toBeUndefined()
        expect(outcome.contextId).toBeTypeOf("string")
      }))

    it.effect("a streamed task: artifact chunks joined, then the final status message; every event seen", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const { events, outcome } = yield* callSeeing(client, { text: "task report" })
        expect(outcome).toMatchObject({ _tag: "Completed", text: "Chunk 1. Chunk 2. Chunk 3.\n\nDone: step 3 of 3" })
        expect(outcome.taskId).toBeTypeOf("string")
        const seen = kinds(events)
        expect(seen[0]).toMatch(/^task:/)
        expect(seen.filter((k) => k.startsWith("artifact:"))).toHaveLength(3)
        expect(seen.at(-1)).toBe("status:TASK_STATE_COMPLETED")
      }))

    it.effect("the same task without streaming: one blocking SendMessage", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const { events, outcome } = yield* callSeeing(client, { text: "task report" }, { streaming: false })
        expect(outcome).toMatchObject({ _tag: "Completed", text: "Chunk 1. Chunk 2. Chunk 3.\n\nDone: step 3 of 3" })
        expect(kinds(events)).toEqual(["task:TASK_STATE_COMPLETED"])
      }))

    it.effect("input-required says what the agent asks; answering with the task id completes it", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const asked = yield* AgentCall.call(client, { text: "ask" })
        if (asked._tag !== "InputRequired") return expect.fail(`expected InputRequired, got ${asked._tag}`)
        expect(asked.question).toBe("What is your name?")
        const answered = yield* AgentCall.call(client, { text: "Ada", taskId: asked.taskId })
        expect(answered).toMatchObject({
          _tag: "Completed",
          taskId: asked.taskId,
          contextId: asked.contextId,
          text: "Hello, Ada!\n\nNice to meet you, Ada."
        })
      }))

    it.effect("a failing agent is Failed with its reason", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const outcome = yield* AgentCall.call(client, { text: "fail now" })
        expect(outcome).toMatchObject({
          _tag: "Failed",
          state: "failed",
          message: "Agent failed: the demo agent failed on purpose"
        })
      }))

    it.effect("an unknown task id is the protocol error TaskNotFound", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const error = yield* Effect.flip(AgentCall.call(client, { text: "hi", taskId: "no-such-task" }))
        expect(error._tag).toBe("TaskNotFound")
      }))

    it.effect("files and data go as parts of the message", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const message = AgentCall.toMessage({
          text: "see attached",
          files: [{ url: "https://example.com/a.pdf", name: "a.pdf", mediaType: "application/pdf" }, {
            bytes: "aGk=",
            name: "hi.txt"
          }],
          data: { n: 1 },
          contextId: "c-1"
        })
        expect(message.parts).toEqual([
          { text: "see attached" },
          { url: "https://example.com/a.pdf", filename: "a.pdf", mediaType: "application/pdf" },
          { raw: "aGk=", filename: "hi.txt" },
          { data: { n: 1 }, mediaType: "application/json" }
        ])
        expect(message.contextId).toBe("c-1")
        // the demo agent takes text/plain only: the server reads the data part and refuses it
        const error = yield* Effect.flip(AgentCall.call(client, { text: "see attached", data: { n: 1 } }))
        expect(error._tag).toBe("ContentTypeNotSupported")
      }))

    it.effect("the input schema refuses a file with both or neither of url and bytes", () =>
      Effect.gen(function*() {
        const decode = Schema.decodeUnknownEffect(AgentCall.Input)
        const both = yield* Effect.flip(decode({ text: "x", files: [{ url: "u", bytes: "aGk=" }] }))
        expect(both.message).toContain("exactly one of url or bytes")
        yield* Effect.flip(decode({ text: "x", files: [{ name: "n" }] }))
        expect(yield* decode({ text: "x", files: [{ url: "u" }] })).toEqual({ text: "x", files: [{ url: "u" }] })
      }))

    it.effect("interrupting the call cancels the remote task", () =>
      Effect.gen(function*() {
        const client = yield* ours
        const taskId = yield* interruptedWhileWorking(client, "slow")
        expect((yield* client.getTask({ id: taskId })).status.state).toBe("TASK_STATE_CANCELED")
      }))

    it.effect("credentials from the client's options are sent", () =>
      Effect.gen(function*() {
        const server = yield* OursSecured
        const refused = yield* A2AClient.resolve(server.url)
        const error = yield* Effect.flip(AgentCall.call(refused, { text: "hi" }))
        expect(error._tag).toBe("Unauthenticated")
        const client = yield* A2AClient.resolve(server.url, { credentials: { bearer: TOKEN } })
        expect(yield* AgentCall.call(client, { text: "hi" })).toMatchObject({ _tag: "Completed", text: "Echo: hi" })
      }))
  })

  describe("@a2a-js/sdk server", () => {
    it.effect("a direct reply", () =>
      Effect.gen(function*() {
        const client = yield* sdk
        expect(yield* AgentCall.call(client, { text: "yo" })).toMatchObject({ _tag: "Completed", text: "echo: yo" })
      }))

    it.effect("a streamed task with appended artifact chunks", () =>
      Effect.gen(function*() {
        const client = yield* sdk
        const { events, outcome } = yield* callSeeing(client, { text: "task" })
        expect(outcome).toMatchObject({ _tag: "Completed", text: "Hello, world\n\ndone" })
        expect(kinds(events)).toEqual([
          "task:TASK_STATE_SUBMITTED",
          "status:TASK_STATE_WORKING",
          "artifact:Hello, ",
          "artifact:world",
          "status:TASK_STATE_COMPLETED"
        ])
      }))

    it.effect("data and files are accepted by an agent that does not check input modes", () =>
      Effect.gen(function*() {
        const client = yield* sdk
        const outcome = yield* AgentCall.call(client, {
          text: "with data",
          data: { n: 1 },
          files: [{ url: "https://example.com/a.pdf" }]
        })
        expect(outcome).toMatchObject({ _tag: "Completed", text: "echo: with data" })
      }))

    it.effect("without streaming", () =>
      Effect.gen(function*() {
        const client = yield* sdk
        const outcome = yield* AgentCall.call(client, { text: "task" }, { streaming: false })
        expect(outcome).toMatchObject({ _tag: "Completed", text: "Hello, world\n\ndone" })
      }))

    it.effect("interrupting the call cancels the remote task", () =>
      Effect.gen(function*() {
        const client = yield* sdk
        const taskId = yield* interruptedWhileWorking(client, "wait")
        expect((yield* client.getTask({ id: taskId })).status.state).toBe("TASK_STATE_CANCELED")
      }))
  })
})
