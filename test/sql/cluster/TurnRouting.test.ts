/**
 * A continued task's message sent again through the cluster engine (#42). Its first send claimed the message's
 * receipt, then stopped short of storing its Turn (its node stopping, the engine refusing it): the task, stored
 * before, is then no sign that the message was taken, and a retry answered with it was acknowledged while the
 * message never ran (the rolling-restart test saw "next 1" lost so). Sent again, the message is routed again and
 * runs; sent once more after that, it does not run a second time. A new task's message sent twice at once runs once.
 * A send reaching a server that has stopped is refused, retryable, rather than left waiting. The engine is Effect's
 * in-memory test runner (its message storage seen through ClusterStorage), the stores are in memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as CallContext from "../../../src/server/CallContext.ts"
import { fingerprint, MessageReceipts } from "../../../src/server/MessageReceipts.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import { TaskStore } from "../../../src/server/TaskStore.ts"
import { inMemoryNode } from "./InMemoryEngine.ts"

/** The texts of the turns the agent ran, in order. */
const runs: Array<string> = []

/** Asks for more after every message, saying which it got. */
const asking = AgentExecutor.task((task, context) => {
  const text = AgentExecutor.textOf(context.message)
  runs.push(text)
  return task.requireInput(`got ${text}`)
})

/** A node's server core over the in-memory engine. */
const server = inMemoryNode(asking)

const message = (messageId: string, text: string, taskId?: string): v1.Message => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text }],
  ...(taskId !== undefined ? { taskId } : {})
})

const taskOf = (response: v1.SendMessageResponse) =>
  "task" in response ? Effect.succeed(response.task) : Effect.die(`expected a task, got ${JSON.stringify(response)}`)

describe("a continued task's message sent again through the cluster engine", () => {
  it.live(
    "its first send claimed it and stored no Turn: sent again, it runs, and once only",
    () =>
      Effect.gen(function*() {
        runs.length = 0
        const handler = yield* RequestHandler
        const receipts = yield* MessageReceipts
        const store = yield* TaskStore
        const ctx = CallContext.make()
        const scope = { owner: ctx.principal.id, tenant: "" }
        const asked = yield* taskOf(yield* handler.sendMessage({ message: message("m-ask", "ask") }, ctx))
        assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
        // The first send of "next 1": its receipt claimed, then its node stopped before its Turn was stored.
        const next = message("m-next", "next 1", asked.id)
        const claimed = yield* receipts.claim({ ...scope, messageId: next.messageId }, fingerprint(next), asked.id)
        assert.isTrue(Option.isNone(claimed))
        // Sent again: acknowledged, and run.
        const nonBlocking = { message: next, configuration: { returnImmediately: true } }
        const acknowledged = yield* taskOf(yield* handler.sendMessage(nonBlocking, ctx))
        assert.strictEqual(acknowledged.id, asked.id)
        const ran = (task: v1.Task) => AgentExecutor.textOf(task.status.message ?? message("", "")) === "got next 1"
        let stored = Option.getOrThrow(yield* store.get(asked.id, scope)).task
        for (let i = 0; !ran(stored) && i < 100; i++) {
          yield* Effect.sleep("50 millis")
          stored = Option.getOrThrow(yield* store.get(asked.id, scope)).task
        }
        assert.isTrue(ran(stored), `"next 1" never ran: ${JSON.stringify(stored.status)}`)
        // Sent once more: answered with the task, not run again.
        const again = yield* taskOf(yield* handler.sendMessage(nonBlocking, ctx))
        assert.strictEqual(again.id, asked.id)
        yield* Effect.sleep("300 millis")
        assert.deepStrictEqual(runs, ["ask", "next 1"])
        const history = Option.getOrThrow(yield* store.get(asked.id, scope)).task.history ?? []
        assert.strictEqual(history.filter((m) => m.messageId === next.messageId).length, 1)
      }).pipe(Effect.provide(server), Effect.scoped, Effect.timeout("20 seconds")),
    30_000
  )
})

describe("a new task's message sent twice at once through the cluster engine", () => {
  it.live(
    "claimed in its Turn's storage: it runs once, and both sends answer its task",
    () =>
      Effect.gen(function*() {
        runs.length = 0
        const handler = yield* RequestHandler
        const ctx = CallContext.make()
        for (const immediate of [false, true]) {
          const sent = message(`m-twice-${immediate}`, `twice ${immediate}`)
          const request = immediate ? { message: sent, configuration: { returnImmediately: true } } : { message: sent }
          const [a, b] = yield* Effect.all([handler.sendMessage(request, ctx), handler.sendMessage(request, ctx)], {
            concurrency: 2
          })
          const first = yield* taskOf(a)
          const second = yield* taskOf(b)
          assert.strictEqual(first.id, second.id)
          if (!immediate) {
            assert.strictEqual(first.status.state, "TASK_STATE_INPUT_REQUIRED")
            assert.strictEqual(second.status.state, "TASK_STATE_INPUT_REQUIRED")
          }
        }
        for (let i = 0; runs.length < 2 && i < 100; i++) yield* Effect.sleep("50 millis")
        yield* Effect.sleep("300 millis")
        assert.deepStrictEqual(runs, ["twice false", "twice true"])
      }).pipe(Effect.provide(server), Effect.scoped, Effect.timeout("20 seconds")),
    30_000
  )
})

describe("a send through the cluster engine of a server that has stopped", () => {
  it.live(
    "is refused, retryable, rather than left waiting for a turn that never starts",
    () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(server, scope)
        const handler = Context.get(context, RequestHandler)
        yield* Scope.close(scope, Exit.void)
        for (const configuration of [undefined, { returnImmediately: true }]) {
          const sent = message(`m-stopped-${configuration === undefined}`, "too late")
          const exit = yield* handler.sendMessage(
            { message: sent, ...(configuration ? { configuration } : {}) },
            CallContext.make()
          )
            .pipe(Effect.timeout("5 seconds"), Effect.exit)
          assert.isTrue(Exit.isFailure(exit), `answered: ${JSON.stringify(exit)}`)
          const failure = Exit.isFailure(exit) ? exit.cause.toString() : ""
          assert.include(failure, "Unavailable", failure)
        }
      }),
    30_000
  )
})
