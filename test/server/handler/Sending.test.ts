/**
 * A send whose turn ends having told it nothing, without the cluster engine (issue #42): its execution is
 * interrupted before its task's first save, so no event and no failure reach it. A blocking or non-blocking
 * SendMessage answers a retryable UNAVAILABLE (never the bare internal error "The task ended without a response",
 * a 500), and a SendStreamingMessage ends with that error rather than silently. The interruption is made
 * deterministic by an agent that interrupts itself before its first event; a task it continues is answered as
 * stored. The stores are in memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Stream } from "effect"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as Auth from "../../../src/server/Auth.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import { baseCard, ctxFor, send } from "../support.ts"

/**
 * "interrupt": interrupts itself before it emits anything; "ask": waits for input, and interrupts itself on any
 * message continuing its task.
 */
const agent = AgentExecutor.make((ctx) => {
  const text = AgentExecutor.textOf(ctx.message)
  if (text === "ask" && Option.isNone(ctx.task)) {
    return AgentExecutor.task((task) => task.requireInput("more?")).execute(ctx)
  }
  return Stream.fromEffect(Effect.interrupt)
})

const layer = A2AServer.layerCore({ card: baseCard }).pipe(
  Layer.provide(Layer.succeed(AgentExecutor.AgentExecutor, agent)),
  Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
  Layer.provide(A2AServer.memoryServices)
)

/** The error a failed effect's cause holds, as its tag and message. */
const errorOf = <A, E>(exit: Exit.Exit<A, E>) => {
  assert.isTrue(Exit.isFailure(exit), `expected a failure, got ${JSON.stringify(exit)}`)
  if (Exit.isSuccess(exit)) return undefined
  const error = Option.getOrUndefined(Cause.findErrorOption(exit.cause)) as
    | { readonly _tag?: string; readonly message?: string }
    | undefined
  return { tag: error?._tag, message: error?.message ?? "" }
}

describe("a send whose execution is interrupted before its task's first save (no engine)", () => {
  it.effect("a blocking SendMessage hears a retryable UNAVAILABLE, not an internal error", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const exit = yield* Effect.exit(handler.sendMessage(send("interrupt"), ctxFor()))
      const error = errorOf(exit)
      assert.strictEqual(error?.tag, "Unavailable", JSON.stringify(error))
      assert.notInclude(error?.message ?? "", "without a response")
    }).pipe(Effect.provide(layer)))

  it.effect("a non-blocking SendMessage hears a retryable UNAVAILABLE", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const exit = yield* Effect.exit(
        handler.sendMessage(send("interrupt", { configuration: { returnImmediately: true } }), ctxFor())
      )
      assert.strictEqual(errorOf(exit)?.tag, "Unavailable")
    }).pipe(Effect.provide(layer)))

  it.effect("a SendStreamingMessage ends with a retryable UNAVAILABLE, not silently", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const exit = yield* Effect.exit(Stream.runCollect(handler.sendStreamingMessage(send("interrupt"), ctxFor())))
      assert.strictEqual(errorOf(exit)?.tag, "Unavailable")
    }).pipe(Effect.provide(layer)))

  it.effect("a message continuing a task whose turn is interrupted still answers its task", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const asked = yield* handler.sendMessage(send("ask"), ctx)
      assert.isTrue("task" in asked)
      const task = (asked as { readonly task: v1.Task }).task
      assert.strictEqual(task.status.state, "TASK_STATE_INPUT_REQUIRED")
      const again = yield* handler.sendMessage(send("interrupt", { taskId: task.id }), ctx)
      assert.isTrue("task" in again, JSON.stringify(again))
      assert.strictEqual((again as { readonly task: v1.Task }).task.id, task.id)
    }).pipe(Effect.provide(layer)))
})
