/**
 * The client's side of the A2A 1.1 draft (Generations) against real servers on 127.0.0.1: generations read from
 * tasks and events, `waitForChange` on the long-poll GetTask, `followTask` filling a gap from GetTask, the
 * conditional send's error; and a server without the draft read as "not supported". Each test quotes the draft
 * sentence it checks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as Generations from "../../src/client/Generations.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as DraftServer from "../http/fixtures/DraftServer.ts"

let sequence = 0
const message = (text: string, taskId?: string): v1.Message => ({
  messageId: `gen-${text}-${++sequence}`,
  role: "ROLE_USER",
  parts: [{ text }],
  ...(taskId !== undefined ? { taskId } : {})
})

const taskOf = (response: v1.SendMessageResponse): v1.Task => {
  if (!("task" in response)) throw new Error("expected a task")
  return response.task
}

describe("Generations (client)", () => {
  it.live("generations on tasks and events; waitForChange answers once the task moves past the one given", () =>
    Effect.gen(function*() {
      const server = yield* DraftServer.start(true)
      const client = yield* A2AClient.resolve(server.url)
      const task = taskOf(yield* client.sendMessage({ message: message("start") }))
      assert.strictEqual(Generations.generationOf(task), 4)
      const waiting = yield* Effect.forkScoped(Generations.waitForChange(client, task.id, 4))
      yield* Effect.sleep("200 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* client.sendMessage({ message: message("next", task.id) })
      const changed = yield* Fiber.join(waiting)
      assert.strictEqual(Generations.generationOf(changed), 5)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("waitForChange asks again when the server's wait ends with the task unchanged", () =>
    Effect.gen(function*() {
      const server = yield* DraftServer.start(true, "300 millis")
      const client = yield* A2AClient.resolve(server.url)
      const task = taskOf(yield* client.sendMessage({ message: message("start") }))
      const waiting = yield* Effect.forkScoped(Generations.waitForChange(client, task.id, 4))
      // past two of the server's waits
      yield* Effect.sleep("800 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* client.sendMessage({ message: message("done", task.id) })
      assert.strictEqual((yield* Fiber.join(waiting)).status.state, "TASK_STATE_COMPLETED")
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("\"If a client receives an event with generation = N+2 after previously seeing generation = N, it ... SHOULD re-fetch the full task state via Get Task\": followTask fills the gap", () =>
    Effect.gen(function*() {
      const server = yield* DraftServer.start(true)
      const client = yield* A2AClient.resolve(server.url)
      const task = taskOf(yield* client.sendMessage({ message: message("start") }))
      yield* client.sendMessage({ message: message("a", task.id) })
      // The client last saw generation 4 (before "a"); its resumed stream lost the event of "a" (5) and sees "b" (6)
      // first: a stream as a connection dropped in between would give it.
      const b = taskOf(yield* client.sendMessage({ message: message("b", task.id) }))
      assert.strictEqual(Generations.generationOf(b), 6)
      const lossy: Stream.Stream<v1.StreamResponse> = Stream.make({
        statusUpdate: { taskId: task.id, contextId: task.contextId ?? "", status: b.status, generation: 6 }
      })
      const seen = yield* Stream.runCollect(Generations.followTask(client, task.id, lossy, { after: 4 }))
      const kinds = Array.from(seen).map((e) => Object.keys(e)[0])
      // the gap filled with the task as it is (which holds both changes); nothing older repeated
      assert.deepStrictEqual(kinds, ["task"])
      assert.strictEqual(Generations.generationOf(Array.from(seen)[0]!), 6)
      // with no gap, events pass as they are
      const whole = yield* Stream.runCollect(Generations.followTask(client, task.id, lossy, { after: 5 }))
      assert.deepStrictEqual(Array.from(whole).map((e) => Object.keys(e)[0]), ["statusUpdate"])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("ifGenerationMatch on send: a stale one fails with TaskGenerationMismatch, the current one goes in", () =>
    Effect.gen(function*() {
      const server = yield* DraftServer.start(true)
      const client = yield* A2AClient.resolve(server.url)
      const task = taskOf(yield* client.sendMessage({ message: message("start") }))
      const stale = yield* Effect.flip(
        client.sendMessage({ message: message("x", task.id), configuration: { ifGenerationMatch: 3 } })
      )
      assert.strictEqual(stale._tag, "TaskGenerationMismatch")
      const ok = taskOf(
        yield* client.sendMessage({ message: message("y", task.id), configuration: { ifGenerationMatch: 4 } })
      )
      assert.strictEqual(Generations.generationOf(ok), 5)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("\"Servers that have not yet implemented generation will return 0 ... clients will detect a 0 value as a signal that the server does not support the field\": a server without the draft", () =>
    Effect.gen(function*() {
      const server = yield* DraftServer.start(false)
      const client = yield* A2AClient.resolve(server.url)
      const task = taskOf(yield* client.sendMessage({ message: message("start") }))
      assert.isUndefined(Generations.generationOf(task))
      assert.isUndefined(Generations.generationOf({ task: { ...task, generation: 0 } }))
      const error = yield* Effect.flip(Generations.waitForChange(client, task.id, 4))
      assert.strictEqual(error._tag, "GenerationsNotSupported")
      // a stream without generations passes unchanged
      const events = yield* Stream.runCollect(
        Generations.followTask(client, task.id, client.sendStreamingMessage({ message: message("more", task.id) }))
      )
      assert.isAbove(Array.from(events).length, 0)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})
