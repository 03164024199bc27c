/**
 * A turn through the cluster engine whose execution is interrupted before its task's first save ends having told
 * nothing (no event, no failure). Its caller hears the task as stored when there is one (a non-blocking send's
 * acknowledged task), else a retryable UNAVAILABLE: never a bare internal error ("The task ended without a
 * response", a 500). The interruption is made deterministic by an agent that interrupts itself before its first
 * event; the engine is Effect's in-memory test runner (its message storage seen through ClusterStorage), the
 * stores are in memory. And a Turn delivered again while its first delivery runs on the same runner answers that
 * delivery's outcome, running nothing; delivered to another runner, it waits for the turn's end as long as its
 * TurnHolder says the node running it lives (below).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Stream } from "effect"
import * as Entity from "effect/cluster/Entity"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import * as RunnerStorage from "effect/cluster/RunnerStorage"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import { isFinal } from "../../../src/protocol/TaskStates.ts"
import * as A2AServer from "../../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as Auth from "../../../src/server/Auth.ts"
import * as CallContext from "../../../src/server/CallContext.ts"
import * as TaskRunner from "../../../src/server/engine/TaskRunner.ts"
import { RequestHandler } from "../../../src/server/RequestHandler.ts"
import { TaskStore } from "../../../src/server/TaskStore.ts"
import { type Local, TurnDispatch } from "../../../src/server/TurnDispatch.ts"
import * as ClusterStorage from "../../../src/sql/cluster/ClusterStorage.ts"
import * as ClusterTurns from "../../../src/sql/cluster/ClusterTurns.ts"
import * as TurnEntity from "../../../src/sql/cluster/TurnEntity.ts"
import * as TurnHolder from "../../../src/sql/cluster/TurnHolder.ts"
import * as TurnMessage from "../../../src/sql/cluster/TurnMessage.ts"
import { baseCard } from "../../server/support.ts"

/** Interrupts itself before it emits anything: its execution ends before its task is first saved. */
const interrupting = AgentExecutor.make(() => Stream.fromEffect(Effect.interrupt))

/** Effect's TestRunner, its messages' storage seen through ClusterStorage, as a node's is. */
const testRunner = Sharding.layer.pipe(
  Layer.provideMerge(Runners.layerNoop),
  Layer.provideMerge(ClusterStorage.layerMessages.pipe(Layer.provide(MessageStorage.layerMemory))),
  Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
  Layer.provide(ShardingConfig.layer())
)

const engine = ClusterTurns.layer({ execute: true, maxExecutions: 4, failover: Duration.seconds(2) }).pipe(
  Layer.provideMerge(A2AServer.memoryServices),
  Layer.provideMerge(testRunner),
  Layer.provideMerge(Layer.succeed(AgentExecutor.AgentExecutor, interrupting))
)

/** What a caller heard: its events, its failure, and when it ended. */
const listening = Effect.gen(function*() {
  const events: Array<TaskRunner.Processed> = []
  const failures: Array<Cause.Cause<unknown>> = []
  const ended = yield* Deferred.make<void>()
  const caller: TaskRunner.Caller = {
    offer: (processed) => void events.push(processed),
    fail: (cause) => void failures.push(cause),
    end: () => void Deferred.doneUnsafe(ended, Exit.void)
  }
  return { caller, events, failures, ended }
})

const message = (messageId: string, text = "hello"): v1.Message => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text }]
})

const send = (runner: TaskRunner.TaskRunner, messageId: string, returnImmediately: boolean) =>
  Effect.gen(function*() {
    const heard = yield* listening
    yield* runner.start({
      message: message(messageId),
      owner: "alice",
      tenant: "",
      call: CallContext.make(),
      metadata: undefined,
      configuration: { returnImmediately },
      pushConfig: undefined
    }, heard.caller)
    yield* Deferred.await(heard.ended).pipe(Effect.timeout("10 seconds"))
    return heard
  })

const errorOf = (failures: ReadonlyArray<Cause.Cause<unknown>>) =>
  failures.map((cause) => Option.getOrUndefined(Cause.findErrorOption(cause)))

describe("a cluster turn interrupted before its first save", () => {
  it.live("a blocking send hears a retryable UNAVAILABLE, not an internal error", () =>
    Effect.gen(function*() {
      const runner = yield* TaskRunner.make
      const heard = yield* send(runner, "m-blocking", false)
      assert.deepStrictEqual(heard.events, [])
      const [error] = errorOf(heard.failures)
      assert.strictEqual(heard.failures.length, 1)
      assert.strictEqual((error as { _tag?: string } | undefined)?._tag, "Unavailable", String(heard.failures[0]))
    }).pipe(Effect.provide(engine), Effect.scoped), 30_000)

  it.live("a non-blocking send hears its acknowledged task, as stored, and no failure", () =>
    Effect.gen(function*() {
      const runner = yield* TaskRunner.make
      const heard = yield* send(runner, "m-non-blocking", true)
      assert.deepStrictEqual(heard.failures.map(String), [])
      // Acknowledged, then (the turn's answer) the task as stored: the acknowledged one.
      const acknowledged = Option.getOrThrow(heard.events[0]!.task)
      const stored = yield* (yield* TaskStore).get(acknowledged.id, { owner: "alice", tenant: "" })
      assert.isTrue(Option.isSome(stored))
      for (const { task } of heard.events) assert.strictEqual(Option.getOrThrow(task).id, acknowledged.id)
    }).pipe(Effect.provide(engine), Effect.scoped), 30_000)
})

/**
 * A Turn delivered again while its first delivery still runs on this runner (#42): under load the runner's shard
 * locks are not refreshed in time, it lets go of every shard at once without waiting for the entities on them,
 * takes them back, and the engine hands the Turns still unanswered to new entities. Two entities of one task share
 * the runner here (two test clients of the entity over one RunnerState), the second given the first's Turn while
 * its agent waits: before its task's first save, then after it.
 */
describe("a cluster Turn delivered again while it runs here", () => {
  /** The agent's starts, and the gate its turn waits on. */
  const agentState = { starts: 0, gate: Deferred.makeUnsafe<void>() }

  /** "before": waits before its first event (so before its task's first save); "after": once it is WORKING. */
  const gated = AgentExecutor.make((ctx) => {
    agentState.starts++
    const text = AgentExecutor.textOf(ctx.message)
    const complete = AgentExecutor.task((task) => task.complete("done")).execute(ctx)
    if (text === "before") return Stream.unwrap(Effect.as(Deferred.await(agentState.gate), complete))
    return AgentExecutor.task((task) =>
      task.working("at work").pipe(
        Effect.andThen(Deferred.await(agentState.gate)),
        Effect.andThen(task.complete("done"))
      )
    ).execute(ctx)
  })

  const twice = (text: string) =>
    Effect.gen(function*() {
      agentState.starts = 0
      agentState.gate = Deferred.makeUnsafe<void>()
      const ready = yield* Deferred.make<Local>()
      // The node's runner, serving the engine through `ready` (as ClusterTurns does), over memory stores.
      const context = yield* Layer.build(
        A2AServer.layerCore({ card: baseCard }).pipe(
          Layer.provide(Layer.succeed(AgentExecutor.AgentExecutor, gated)),
          Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
          Layer.provide(Layer.succeed(TurnDispatch, { route: undefined, serve: (l) => Deferred.succeed(ready, l) })),
          Layer.provideMerge(A2AServer.memoryServices)
        )
      )
      yield* Effect.gen(function*() {
        yield* RequestHandler
        const state = TurnEntity.makeState()
        const entities = TurnEntity.layer(ready, state, 4)
        const first = yield* Entity.makeTestClient(TurnMessage.Task, entities)
        const second = yield* Entity.makeTestClient(TurnMessage.Task, entities)
        const taskId = `task-${text}`
        const payload = TurnMessage.requestOf({
          message: message(`m-${text}`, text),
          owner: "alice",
          tenant: "",
          call: CallContext.make(),
          metadata: undefined,
          configuration: { returnImmediately: false },
          pushConfig: undefined
        }, taskId)
        const store = yield* TaskStore
        const running = yield* Effect.forkChild((yield* first(taskId)).Turn(payload))
        // The first delivery's agent at work: before its first save, or WORKING.
        for (let i = 0; agentState.starts === 0 || (text === "after" && !(yield* saved(store, taskId))); i++) {
          if (i > 500) return yield* Effect.die("the first delivery's agent did not start")
          yield* Effect.sleep("10 millis")
        }
        const again = yield* Effect.forkChild((yield* second(taskId)).Turn(payload))
        yield* Effect.sleep("300 millis")
        yield* Deferred.succeed(agentState.gate, undefined)
        const outcomes = [yield* Fiber.join(running), yield* Fiber.join(again)]
        assert.strictEqual(agentState.starts, 1, "the agent ran once")
        for (const outcome of outcomes) {
          assert.strictEqual(outcome._tag, "Task")
          if (outcome._tag === "Task") {
            assert.strictEqual(outcome.task.id, taskId)
            assert.strictEqual(outcome.task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(outcome.task.status))
          }
        }
        const stored = Option.getOrThrow(yield* store.get(taskId, { owner: "alice", tenant: "" }))
        assert.strictEqual(stored.task.status.state, "TASK_STATE_COMPLETED")
      }).pipe(Effect.provide(context), Effect.provide(ShardingConfig.layer()))
    }).pipe(Effect.scoped, Effect.timeout("20 seconds"))

  it.live("before its task's first save: the agent runs once, both deliveries answer its end", () => twice("before"))

  it.live("after its task's first save: not failed as lost with its node, both deliveries answer its end", () =>
    twice("after"))

  /**
   * The Turn delivered to ANOTHER runner (a RunnerState of its own) while its turn runs on the first: that runner
   * asks its TurnHolder (here one that says "ended" once the task has ended, as the node running it lives on; or
   * "lost" at once, its node gone), and answers the stored end, or deals with the turn as lost, as before.
   */
  const elsewhere = (verdict: "ended" | "lost") =>
    Effect.gen(function*() {
      agentState.starts = 0
      agentState.gate = Deferred.makeUnsafe<void>()
      const ready = yield* Deferred.make<Local>()
      const context = yield* Layer.build(
        A2AServer.layerCore({ card: baseCard }).pipe(
          Layer.provide(Layer.succeed(AgentExecutor.AgentExecutor, gated)),
          Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
          Layer.provide(Layer.succeed(TurnDispatch, { route: undefined, serve: (l) => Deferred.succeed(ready, l) })),
          Layer.provideMerge(A2AServer.memoryServices)
        )
      )
      yield* Effect.gen(function*() {
        yield* RequestHandler
        const store = yield* TaskStore
        let asked = 0
        const holder = Layer.succeed(
          TurnHolder.TurnHolder,
          TurnHolder.TurnHolder.of({
            await: (taskId) =>
              Effect.gen(function*() {
                asked++
                if (verdict === "lost") return verdict
                while (!(yield* ended(store, taskId))) yield* Effect.sleep("10 millis")
                return verdict
              })
          })
        )
        const first = yield* Entity.makeTestClient(TurnMessage.Task, TurnEntity.layer(ready, TurnEntity.makeState(), 4))
        const second = yield* Entity.makeTestClient(
          TurnMessage.Task,
          TurnEntity.layer(ready, TurnEntity.makeState(), 4).pipe(Layer.provide(holder))
        )
        const taskId = `task-elsewhere-${verdict}`
        const payload = TurnMessage.requestOf({
          message: message(`m-elsewhere-${verdict}`, "after"),
          owner: "alice",
          tenant: "",
          call: CallContext.make(),
          metadata: undefined,
          configuration: { returnImmediately: false },
          pushConfig: undefined
        }, taskId)
        const running = yield* Effect.forkChild((yield* first(taskId)).Turn(payload))
        for (let i = 0; !(yield* saved(store, taskId)); i++) {
          if (i > 500) return yield* Effect.die("the first runner's agent did not start")
          yield* Effect.sleep("10 millis")
        }
        const again = yield* Effect.forkChild((yield* second(taskId)).Turn(payload))
        yield* Effect.sleep("300 millis")
        if (verdict === "ended") assert.isUndefined(again.pollUnsafe(), "the second runner waits for the first")
        yield* Deferred.succeed(agentState.gate, undefined)
        const outcomes = [yield* Fiber.join(running), yield* Fiber.join(again)]
        assert.strictEqual(agentState.starts, 1, "the agent ran once")
        assert.strictEqual(asked, 1)
        const states = outcomes.map((outcome) => outcome._tag === "Task" ? outcome.task.status.state : outcome._tag)
        const stored = Option.getOrThrow(yield* store.get(taskId, { owner: "alice", tenant: "" }))
        if (verdict === "ended") {
          assert.deepStrictEqual(states, ["TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED"])
          assert.strictEqual(stored.task.status.state, "TASK_STATE_COMPLETED")
        } else {
          // Taken as lost with its node (a non-restartable agent): FAILED, as before TurnHolder.
          assert.strictEqual(states[1], "TASK_STATE_FAILED")
          assert.include(JSON.stringify(stored.task.status.message?.parts), TurnEntity.NODE_LOST)
        }
      }).pipe(Effect.provide(context), Effect.provide(ShardingConfig.layer()))
    }).pipe(Effect.scoped, Effect.timeout("20 seconds"))

  it.live("to another runner while its node lives: waits for the turn's end and answers it, running nothing", () =>
    elsewhere("ended"))

  it.live("to another runner once its node is judged gone: the turn is lost with it, as before", () =>
    elsewhere("lost"))
})

/** Whether the task's turn has ended (its state final). */
const ended = (store: TaskStore["Service"], taskId: string) =>
  Effect.map(
    store.get(taskId, { owner: "alice", tenant: "" }),
    (found) => Option.isSome(found) && isFinal(found.value.task.status.state)
  )

/** Whether the task is stored by its turn (not only acknowledged). */
const saved = (store: TaskStore["Service"], taskId: string) =>
  Effect.map(
    store.get(taskId, { owner: "alice", tenant: "" }),
    (found) => Option.isSome(found) && found.value.version > 0
  )
