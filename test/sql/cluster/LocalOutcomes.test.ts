/**
 * A turn run on the node that sent it is answered as it ends, not once the engine has stored its reply (#42): a
 * blocking send of a task's turn is answered while the engine's reply is still held back; the agent's direct reply
 * (no task saved) still waits for the engine's; and the Turn, its reply stored afterwards, is not run again by a
 * second send of its message. The engine is Effect's in-memory test runner (its message storage seen through
 * ClusterStorage, its replies held at will), the stores are in memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as Latch from "effect/Latch"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as CallContext from "../../../src/server/CallContext.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import { inMemoryNode } from "./InMemoryEngine.ts"

/** The texts of the turns the agent ran, in order. */
const runs: Array<string> = []

/** "hello" is answered with a message (no task); anything else is a task, completed. */
const agent = AgentExecutor.make((context) => {
  const text = AgentExecutor.textOf(context.message)
  runs.push(text)
  return text === "hello"
    ? AgentExecutor.replyWithText(() => "hi").execute(context)
    : AgentExecutor.task((task) => task.complete(`did ${text}`)).execute(context)
})

/** The engine's replies are stored only while this latch is open. */
const replies = Latch.makeUnsafe(true)

/** The engine's message storage (in memory), its replies stored once `replies` is open. */
const holding = Layer.effect(MessageStorage.MessageStorage)(Effect.gen(function*() {
  const base = yield* MessageStorage.MessageStorage
  return MessageStorage.MessageStorage.of({
    ...base,
    saveReply: (reply) => Effect.andThen(replies.await, base.saveReply(reply))
  })
})).pipe(Layer.provide(MessageStorage.layerMemory))

/** A node's server core over the in-memory engine, its replies held at will. */
const server = inMemoryNode(agent, holding)

const message = (messageId: string, text: string): v1.Message => ({ messageId, role: "ROLE_USER", parts: [{ text }] })

describe("a turn run where it was sent", () => {
  it.live(
    "a task's turn is answered before the engine stores its reply; a direct reply waits for it",
    () =>
      Effect.gen(function*() {
        runs.length = 0
        const handler = yield* RequestHandler
        const ctx = CallContext.make()
        // Warmed up (the entity registered, the shards taken) with the replies flowing.
        yield* handler.sendMessage({ message: message("m-warm", "warm") }, ctx)
        yield* replies.close
        const sent = { message: message("m-work", "work") }
        const work = yield* Effect.forkChild(handler.sendMessage(sent, ctx))
        for (let i = 0; i < 50 && work.pollUnsafe() === undefined; i++) yield* Effect.sleep("100 millis")
        const answered = work.pollUnsafe()
        if (answered === undefined) {
          yield* replies.open
          return assert.fail("a task's turn waited for the engine's reply")
        }
        const response = yield* answered
        assert.isTrue("task" in response && response.task.status.state === "TASK_STATE_COMPLETED")
        // The agent's direct reply: told by the engine only, so not before its reply is stored.
        const hello = yield* Effect.forkChild(handler.sendMessage({ message: message("m-hello", "hello") }, ctx))
        yield* Effect.sleep("500 millis")
        assert.isUndefined(hello.pollUnsafe(), "a direct reply was answered before the engine stored it")
        yield* replies.open
        const reply = yield* Fiber.join(hello).pipe(Effect.timeout("5 seconds"))
        assert.isTrue("message" in reply)
        // Its reply stored since: the same message sent again is answered with its task, not run again.
        const again = yield* handler.sendMessage(sent, ctx).pipe(Effect.timeout("5 seconds"))
        assert.isTrue("task" in again && again.task.status.state === "TASK_STATE_COMPLETED")
        yield* Effect.sleep("300 millis")
        assert.deepStrictEqual(runs, ["warm", "work", "hello"])
      }).pipe(Effect.provide(server), Effect.scoped, Effect.timeout("20 seconds")),
    30_000
  )
})
