/**
 * A turn through the cluster engine whose execution is interrupted before its task's first save ends having told
 * nothing (no event, no failure). Its caller hears the task as stored when there is one (a non-blocking send's
 * acknowledged task), else a retryable UNAVAILABLE: never a bare internal error ("The task ended without a
 * response", a 500). The interruption is made deterministic by an agent that interrupts itself before its first
 * event; the engine is Effect's in-memory test runner (its message storage seen through ClusterStorage), the
 * stores are in memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Duration, Effect, Exit, Layer, Option, Stream } from "effect"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import * as RunnerStorage from "effect/cluster/RunnerStorage"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as CallContext from "../../../src/server/CallContext.ts"
import * as TaskRunner from "../../../src/server/engine/TaskRunner.ts"
import { TaskStore } from "../../../src/server/TaskStore.ts"
import * as ClusterStorage from "../../../src/sql/cluster/ClusterStorage.ts"
import * as ClusterTurns from "../../../src/sql/cluster/ClusterTurns.ts"

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

const message = (messageId: string): v1.Message => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text: "hello" }]
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
