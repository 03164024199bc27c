/**
 * A turn run on the node that sent it is answered as it ends, not once the engine has stored its reply (#42): a
 * blocking send of a task's turn is answered while the engine's reply is still held back; the agent's direct reply
 * (no task saved) still waits for the engine's; and the Turn, its reply stored afterwards, is not run again by a
 * second send of its message. The engine is Effect's in-memory test runner (its message storage seen through
 * ClusterStorage, its replies held at will), the stores are in memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import * as RunnerStorage from "effect/cluster/RunnerStorage"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Latch from "effect/Latch"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as Auth from "../../../src/server/Auth.ts"
import * as CallContext from "../../../src/server/CallContext.ts"
import * as MemoryMessageReceipts from "../../../src/server/memory/MemoryMessageReceipts.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import * as ClusterStorage from "../../../src/sql/cluster/ClusterStorage.ts"
import * as ClusterTurns from "../../../src/sql/cluster/ClusterTurns.ts"
import { baseCard } from "../../server/support.ts"

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

/** Effect's TestRunner, its messages' storage seen through ClusterStorage, as a node's is. */
const testRunner = Sharding.layer.pipe(
  Layer.provideMerge(Runners.layerNoop),
  Layer.provideMerge(ClusterStorage.layerMessages.pipe(Layer.provide(holding))),
  Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
  Layer.provide(ShardingConfig.layer())
)

const server = A2AServer.layerCore({ card: baseCard }).pipe(
  Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
  Layer.provideMerge(ClusterTurns.layer({ execute: true, maxExecutions: 4, failover: Duration.seconds(2) })),
  Layer.provideMerge(MemoryMessageReceipts.layer),
  Layer.provideMerge(A2AServer.memoryServices),
  Layer.provideMerge(testRunner),
  Layer.provideMerge(Layer.succeed(AgentExecutor.AgentExecutor, agent))
)

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
