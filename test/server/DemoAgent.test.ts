/** The demo agent through the complete in-memory server layer (A2AServer.layer), and the card it renders. */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Deferred, Duration, Effect, Layer, Schedule, Stream } from "effect"
import * as A2AServer from "../../src/server/A2AServer.ts"
import { AgentCardConfig } from "../../src/server/AgentCardConfig.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { ctxFor, send, stateOf, taskOf } from "./support.ts"

const demo = (options: DemoAgent.DemoOptions = {}) =>
  A2AServer.layer({
    card: DemoAgent.card,
    executor: DemoAgent.make({ stepDelay: Duration.zero, ...options }),
    auth: Auth.bearer({ tokens: { secret: "alice" } })
  })

describe("DemoAgent", () => {
  it.effect("echoes text as a direct message", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const response = yield* handler.sendMessage(send("hello there"), ctxFor())
      assert.deepStrictEqual("message" in response ? response.message.parts : [], [{ text: "Echo: hello there" }])
    }).pipe(Effect.provide(demo())))

  it.effect("'task' streams steps and an artifact in three chunks, then completes", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const events = Array.from(yield* Stream.runCollect(handler.sendStreamingMessage(send("task report"), ctx)))
      assert.deepStrictEqual(events.map(stateOf), [
        "task:TASK_STATE_SUBMITTED",
        "status:TASK_STATE_WORKING",
        "status:TASK_STATE_WORKING",
        "artifact:Chunk 1. ",
        "artifact:Chunk 2. ",
        "artifact:Chunk 3.",
        "status:TASK_STATE_COMPLETED"
      ])
      const id = "task" in events[0]! ? events[0].task.id : ""
      const task = yield* handler.getTask({ id }, ctx)
      assert.deepStrictEqual(
        task.artifacts?.[0]?.parts.map((p) => ("text" in p ? p.text : "")).join(""),
        "Chunk 1. Chunk 2. Chunk 3."
      )
    }).pipe(Effect.provide(demo())))

  it.effect("'ask' is multi-turn: input-required, then the answer completes the task", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
      assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
      const done = yield* taskOf(yield* handler.sendMessage(send("Ada", { taskId: asked.id }), ctx))
      assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
      assert.deepStrictEqual(done.artifacts?.[0]?.parts, [{ text: "Hello, Ada!" }])
    }).pipe(Effect.provide(demo())))

  it.effect("'fail' ends the task FAILED", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const failed = yield* taskOf(yield* handler.sendMessage(send("fail now"), ctxFor()))
      assert.strictEqual(failed.status.state, "TASK_STATE_FAILED")
      assert.match(JSON.stringify(failed.status.message), /failed on purpose/)
    }).pipe(Effect.provide(demo())))

  it.live("'slow' runs until canceled; cancel interrupts it and its finalizer runs", () =>
    Effect.gen(function*() {
      const stopped = yield* Deferred.make<string>()
      const program = Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const task = yield* taskOf(
          yield* handler.sendMessage(send("slow", { configuration: { returnImmediately: true } }), ctx)
        )
        // The answer is the SUBMITTED task; cancel once the agent's work (and so its finalizer) has started.
        yield* handler.getTask({ id: task.id }, ctx).pipe(
          Effect.filterOrFail((t) => t.status.state === "TASK_STATE_WORKING"),
          Effect.retry({ schedule: Schedule.spaced(Duration.millis(2)), times: 500 })
        )
        const canceled = yield* handler.cancelTask({ id: task.id }, ctx)
        assert.strictEqual(canceled.status.state, "TASK_STATE_CANCELED")
        assert.strictEqual(yield* Deferred.await(stopped), task.id)
      })
      yield* program.pipe(Effect.provide(demo({
        stepDelay: Duration.millis(5),
        onSlowStopped: (id) => Effect.asVoid(Deferred.succeed(stopped, id))
      })))
    }))

  it.effect("the card: demo skills, capabilities with defaults, bearer security from Auth, interfaces from the binding", () =>
    Effect.gen(function*() {
      const cards = yield* AgentCardConfig
      const card = cards.publicCard([{
        url: "http://127.0.0.1:9/",
        protocolBinding: "JSONRPC",
        protocolVersion: "1.0"
      }])
      assert.deepStrictEqual(card.skills.map((s) => s.id), ["echo", "task", "ask", "slow"])
      assert.deepStrictEqual(card.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false })
      assert.deepStrictEqual(Object.keys(card.securitySchemes ?? {}), ["bearer"])
      assert.strictEqual(card.supportedInterfaces[0]?.url, "http://127.0.0.1:9/")
      const auth = yield* Auth.Auth
      assert.strictEqual((yield* auth.authenticate({ headers: { authorization: "Bearer secret" } })).id, "alice")
    }).pipe(Effect.provide(demo())))

  it.effect("A2AServer.layer accepts the executor as a layer too", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const response = yield* handler.sendMessage(send("hi"), ctxFor())
      assert.isTrue("message" in response)
    }).pipe(Effect.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.layer() }).pipe(Layer.orDie))))

  it.effect("layerConfig reads the step delay; a bad value is a ConfigError", () =>
    Effect.gen(function*() {
      const withEnv = (env: Record<string, string>) =>
        Effect.provide(
          AgentExecutor.AgentExecutor.useSync(() => undefined),
          DemoAgent.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))
        )
      yield* withEnv({ A2A_DEMO_STEP_DELAY: "1 millis" })
      yield* withEnv({})
      const bad = yield* Effect.flip(withEnv({ A2A_DEMO_STEP_DELAY: "soonish" }))
      assert.strictEqual(bad._tag, "ConfigError")
    }))
})
