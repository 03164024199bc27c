/**
 * The message claims' waiting: a retry of a message whose claim a send in this process holds answers as soon as
 * that send's execution decides the claim, driven by the decision and not by the clock. Run under the TestClock,
 * which never moves here: a retry that polled on a schedule would never answer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { ContentTypeNotSupported } from "../../src/protocol/A2AError.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import * as PushNotifier from "../../src/server/PushNotifier.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { card, ctxFor, message } from "./MessageRetries.ts"

/** An agent held at a gate before its first event, then answering as its message's first word says. */
const gatedAgent = (gate: Deferred.Deferred<void>, runs: { count: number }) =>
  AgentExecutor.make((ctx) => {
    runs.count++
    const script = AgentExecutor.textOf(ctx.message)
    const after = script === "reply"
      ? AgentExecutor.replyWithText(() => "a reply").execute(ctx)
      : script === "fail" && runs.count === 1
      ? Stream.fail(new ContentTypeNotSupported({ message: "not now" }))
      : AgentExecutor.task((t) => t.complete("done")).execute(ctx)
    return Stream.unwrap(Effect.as(Deferred.await(gate), after))
  })

const serverWith = (gate: Deferred.Deferred<void>, runs: { count: number }) =>
  A2AServer.layerCore({ card }).pipe(
    Layer.provide(AgentExecutor.layer(gatedAgent(gate, runs))),
    Layer.provide(PushNotifier.layerNoop),
    Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
    Layer.provide(Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer, EventBus.layerInProcess))
  )

/** Real time passing, whatever the TestClock says: long enough for the retry to be waiting. */
const meanwhile = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 50)))

/** Sends `text` twice at once; the gate opens once the second is waiting. Both answers, and the agent's runs. */
const sendTwice = (text: string) =>
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    const runs = { count: 0 }
    return yield* Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const sent = message(text)
      const first = yield* Effect.forkChild(Effect.result(handler.sendMessage({ message: sent }, ctx)))
      yield* meanwhile
      const retry = yield* Effect.forkChild(Effect.result(handler.sendMessage({ message: sent }, ctx)))
      yield* meanwhile
      assert.strictEqual(runs.count, 1)
      assert.isUndefined(retry.pollUnsafe(), "the retry waits while the first send's agent has not answered")
      yield* Deferred.succeed(gate, undefined)
      return { first: yield* Fiber.join(first), retry: yield* Fiber.join(retry), runs: runs.count }
    }).pipe(Effect.provide(serverWith(gate, runs)))
  })

describe("MessageClaims", () => {
  it.effect("a retry waiting on a claim held here is answered with the task once it is stored", () =>
    Effect.gen(function*() {
      const { first, retry, runs } = yield* sendTwice("task")
      assert.isTrue(first._tag === "Success" && "task" in first.success)
      assert.isTrue(retry._tag === "Success" && "task" in retry.success)
      if (first._tag === "Success" && retry._tag === "Success" && "task" in first.success && "task" in retry.success) {
        assert.strictEqual(retry.success.task.id, first.success.task.id)
      }
      assert.strictEqual(runs, 1)
    }))

  it.effect("a retry waiting on a claim held here is answered with the first send's reply", () =>
    Effect.gen(function*() {
      const { first, retry, runs } = yield* sendTwice("reply")
      assert.isTrue(first._tag === "Success" && "message" in first.success)
      assert.deepStrictEqual(retry, first)
      assert.strictEqual(runs, 1)
    }))

  it.effect("a retry waiting on a claim given back here runs the message itself", () =>
    Effect.gen(function*() {
      const { first, retry, runs } = yield* sendTwice("fail")
      assert.isTrue(first._tag === "Failure" && first.failure._tag === "ContentTypeNotSupported")
      assert.isTrue(retry._tag === "Success" && "task" in retry.success)
      assert.strictEqual(runs, 2)
    }))
})
