/**
 * Safe retries (idempotent sends) through the RequestHandler, over any stores: a message sent again under its
 * messageId is answered with the first send's outcome and never runs the agent again; another body under a known
 * messageId is refused. Run over every store (memory, SQLite, PostgreSQL) by the test files that call
 * `retrySuite`; `CountingAgent` is also what the wire and two-node tests run.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { ContentTypeNotSupported } from "../../src/protocol/A2AError.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import type { CardTemplate } from "../../src/server/AgentCardConfig.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as CallContext from "../../src/server/CallContext.ts"
import type { EventBus } from "../../src/server/EventBus.ts"
import type { PushConfigStore } from "../../src/server/PushConfigStore.ts"
import * as PushNotifier from "../../src/server/PushNotifier.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import type { TaskStore } from "../../src/server/TaskStore.ts"
import { stateOf, uniqueId } from "./support.ts"

export { uniqueId }

const statesOf = (events: ReadonlyArray<v1.StreamResponse>) => events.map(stateOf)

/**
 * An agent that counts its runs, by message text. The first word picks what it does:
 * reply (a direct message) | task (completes) | wait <gate> (works until the gate opens) | ask (input required;
 * a continuation completes, or with hold <gate> works until the gate opens, or with more asks again) | fail (fails before any task) | slow-reply <gate> (replies once the gate opens) |
 * slow-fail <gate> (fails before any task once the gate opens).
 */
export class CountingAgent {
  private readonly counts = new Map<string, number>()
  private readonly gates = new Map<string, Deferred.Deferred<void>>()

  /** How many times the agent ran on a message with this text. */
  runs(text: string): number {
    return this.counts.get(text) ?? 0
  }

  open(name: string): Effect.Effect<void> {
    return Effect.sync(() => Deferred.doneUnsafe(this.gate(name), Effect.void))
  }

  private gate(name: string): Deferred.Deferred<void> {
    let gate = this.gates.get(name)
    if (gate === undefined) this.gates.set(name, gate = Deferred.makeUnsafe<void>())
    return gate
  }

  readonly executor = AgentExecutor.make((ctx) => {
    const text = AgentExecutor.textOf(ctx.message)
    this.counts.set(text, this.runs(text) + 1)
    const [script, arg = ""] = text.split(" ")
    const task = (work: Parameters<typeof AgentExecutor.task>[0]) => AgentExecutor.task(work).execute(ctx)
    if (ctx.task._tag === "Some") {
      // Continuations: hold <gate> works until the gate opens, then asks again; more asks again; else completes.
      if (script === "hold") {
        return task((t) =>
          t.working("holding").pipe(
            Effect.andThen(Deferred.await(this.gate(arg))),
            Effect.andThen(t.requireInput("and then?"))
          )
        )
      }
      if (script === "more") return task((t) => t.requireInput(`more after: ${text}`))
      return task((t) => t.complete(`continued: ${text}`))
    }
    switch (script) {
      case "reply":
        return AgentExecutor.replyWithText(() => `reply to ${text}`).execute(ctx)
      case "slow-reply":
        return Stream.unwrap(
          Effect.as(Deferred.await(this.gate(arg)), AgentExecutor.replyWithText(() => `reply to ${text}`).execute(ctx))
        )
      case "wait":
        return task((t) =>
          t.working("waiting").pipe(Effect.andThen(Deferred.await(this.gate(arg))), Effect.andThen(t.complete("done")))
        )
      case "ask":
        return task((t) => t.requireInput("what next?"))
      case "fail":
        return Stream.fail(new ContentTypeNotSupported({ message: "not today" }))
      case "slow-fail":
        return Stream.unwrap(
          Effect.as(Deferred.await(this.gate(arg)), Stream.fail(new ContentTypeNotSupported({ message: "not today" })))
        )
      default:
        return task((t) =>
          t.artifact({ artifactId: "a", parts: [{ text: `done: ${text}` }] }).pipe(Effect.andThen(t.complete("ok")))
        )
    }
  })
}

export const card: CardTemplate = {
  name: "retries",
  description: "counts its runs",
  version: "1.0.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "count", name: "count", description: "counts", tags: ["test"] }]
}

/** The server core for `agent` over the stores (and their EventBus) in context. */
export const coreOver = (agent: CountingAgent) =>
  A2AServer.layerCore({ card }).pipe(
    Layer.provide(AgentExecutor.layer(agent.executor)),
    Layer.provide(PushNotifier.layerNoop),
    Layer.provide(Layer.succeed(Auth.Auth, Auth.none))
  )

export const message = (text: string, options: Partial<v1.Message> = {}): v1.Message => ({
  messageId: uniqueId("m"),
  role: "ROLE_USER",
  parts: [{ text }],
  ...options
})

export const ctxFor = (id = uniqueId("user")) => CallContext.make({ principal: { id, anonymous: false } })

const taskOf = (response: v1.SendMessageResponse): v1.Task => {
  if (!("task" in response)) throw new Error(`expected a task, got ${JSON.stringify(response)}`)
  return response.task
}

export const retrySuite = <E>(name: string, stores: Layer.Layer<TaskStore | PushConfigStore | EventBus, E>) => {
  const agent = new CountingAgent()
  layer(coreOver(agent).pipe(Layer.provideMerge(stores)), { excludeTestServices: true })(name, (it) => {
    it.effect("a message sent again is answered with its task and does not run the agent again", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const sent = message(`task ${uniqueId("x")}`)
        const first = taskOf(yield* handler.sendMessage({ message: sent }, ctx))
        const again = taskOf(yield* handler.sendMessage({ message: sent }, ctx))
        assert.strictEqual(first.status.state, "TASK_STATE_COMPLETED")
        assert.strictEqual(again.id, first.id)
        assert.deepStrictEqual(again, yield* handler.getTask({ id: first.id }, ctx))
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
        // One task for the two sends.
        const listed = yield* handler.listTasks({}, ctx)
        assert.deepStrictEqual(listed.tasks.map((t) => t.id), [first.id])
        // The retry's own historyLength shapes its answer.
        const shaped = taskOf(yield* handler.sendMessage({ message: sent, configuration: { historyLength: 0 } }, ctx))
        assert.isUndefined(shaped.history)
      }))

    it.effect("a retry is answered with the task as it is now, while the first send's agent still works", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const gate = uniqueId("gate")
        const sent = message(`wait ${gate}`)
        const first = taskOf(
          yield* handler.sendMessage({ message: sent, configuration: { returnImmediately: true } }, ctx)
        )
        const again = taskOf(yield* handler.sendMessage({ message: sent }, ctx))
        assert.strictEqual(again.id, first.id)
        assert.notInclude(["TASK_STATE_COMPLETED"], again.status.state)
        yield* agent.open(gate)
        assert.strictEqual(agent.runs(`wait ${gate}`), 1)
      }))

    it.effect("a direct reply is kept: the retry gets the same message", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const sent = message(`reply ${uniqueId("x")}`)
        const first = yield* handler.sendMessage({ message: sent }, ctx)
        const again = yield* handler.sendMessage({ message: sent }, ctx)
        assert.isTrue("message" in first)
        assert.deepStrictEqual(again, first)
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
        // Streamed, the retry hears the same message, and the stream ends.
        const streamed = yield* Stream.runCollect(handler.sendStreamingMessage({ message: sent }, ctx))
        assert.deepStrictEqual(Array.from(streamed), [first])
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
      }))

    it.effect("another body under a known messageId is refused with InvalidParams on message.messageId", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const sent = message(`task ${uniqueId("x")}`)
        yield* handler.sendMessage({ message: sent }, ctx)
        const changed = { ...sent, parts: [{ text: `task ${uniqueId("x")}` }] }
        const error = yield* Effect.flip(handler.sendMessage({ message: changed }, ctx))
        assert.strictEqual(error._tag, "InvalidParams")
        assert.match(error.message, /already sent with a different body/)
        assert.deepStrictEqual(
          error._tag === "InvalidParams" ? error.fieldViolations?.map((v) => v.field) : [],
          ["message.messageId"]
        )
        const streamed = yield* Effect.flip(Stream.runCollect(handler.sendStreamingMessage({ message: changed }, ctx)))
        assert.strictEqual(streamed._tag, "InvalidParams")
        assert.strictEqual(agent.runs(AgentExecutor.textOf(changed)), 0)
        // The same fields in another order, and what the protocol reads as unset, are the same body.
        const reordered: v1.Message = { parts: sent.parts, role: "ROLE_USER", messageId: sent.messageId, metadata: {} }
        assert.isTrue("task" in (yield* handler.sendMessage({ message: reordered }, ctx)))
      }))

    it.effect("receipts are per caller and tenant: the same messageId from another is another message", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const sent = message(`task ${uniqueId("x")}`)
        const alice = taskOf(yield* handler.sendMessage({ message: sent }, ctxFor()))
        const bob = taskOf(yield* handler.sendMessage({ message: sent }, ctxFor()))
        const aliceTenant = taskOf(yield* handler.sendMessage({ message: sent, tenant: "t1" }, ctxFor()))
        assert.strictEqual(new Set([alice.id, bob.id, aliceTenant.id]).size, 3)
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 3)
      }))

    it.effect("a streaming retry follows the same task: its snapshot, then its events to the end", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const gate = uniqueId("gate")
        const sent = message(`wait ${gate}`)
        const firstEvents = yield* Queue.unbounded<v1.StreamResponse, unknown>()
        const first = yield* handler.sendStreamingMessage({ message: sent }, ctx).pipe(
          Stream.runForEach((e) => Queue.offer(firstEvents, e)),
          Effect.forkChild
        )
        // The first stream has its task working.
        while (true) {
          const event = yield* Queue.take(firstEvents)
          if ("statusUpdate" in event && event.statusUpdate.status.state === "TASK_STATE_WORKING") break
        }
        const retried = yield* Queue.unbounded<v1.StreamResponse, unknown>()
        const retry = yield* handler.sendStreamingMessage({ message: sent }, ctx).pipe(
          Stream.runForEach((e) => Queue.offer(retried, e)),
          Effect.forkChild
        )
        const snapshot = yield* Queue.take(retried)
        assert.deepStrictEqual(statesOf([snapshot]), ["task:TASK_STATE_WORKING"])
        yield* agent.open(gate)
        yield* Fiber.join(retry)
        yield* Fiber.join(first)
        const rest = yield* Queue.takeAll(retried)
        assert.deepStrictEqual(statesOf(rest), ["status:TASK_STATE_COMPLETED"])
        assert.strictEqual("task" in snapshot ? snapshot.task.id : "", (yield* handler.listTasks({}, ctx)).tasks[0]?.id)
        assert.strictEqual(agent.runs(`wait ${gate}`), 1)
        // Once the task has ended, a streaming retry hears the task as it ended, and ends.
        const ended = yield* Stream.runCollect(handler.sendStreamingMessage({ message: sent }, ctx))
        assert.deepStrictEqual(statesOf(Array.from(ended)), ["task:TASK_STATE_COMPLETED"])
      }))

    it.effect("concurrent sends of one message run the agent once and all answer its task", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const sent = message(`task ${uniqueId("x")}`)
        const answers = yield* Effect.all(
          Array.from({ length: 8 }, () => handler.sendMessage({ message: sent }, ctx)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(answers.map((a) => taskOf(a).id)).size, 1)
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
      }))

    it.effect("a retry waits for the first send's reply when the agent is still at work on it", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const gate = uniqueId("gate")
        const sent = message(`slow-reply ${gate}`)
        const first = yield* Effect.forkChild(handler.sendMessage({ message: sent }, ctx))
        const retry = yield* Effect.forkChild(handler.sendMessage({ message: sent }, ctx))
        yield* Effect.sleep("50 millis")
        yield* agent.open(gate)
        const [a, b] = [yield* Fiber.join(first), yield* Fiber.join(retry)]
        assert.isTrue("message" in a)
        assert.deepStrictEqual(b, a)
        assert.strictEqual(agent.runs(`slow-reply ${gate}`), 1)
      }))

    it.effect("a retry waiting on a first send that fails before any task runs the message itself", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const gate = uniqueId("gate")
        const sent = message(`slow-fail ${gate}`)
        const first = yield* Effect.forkChild(Effect.flip(handler.sendMessage({ message: sent }, ctx)))
        yield* Effect.sleep("20 millis")
        const retry = yield* Effect.forkChild(Effect.flip(handler.sendMessage({ message: sent }, ctx)))
        yield* Effect.sleep("50 millis")
        assert.strictEqual(agent.runs(`slow-fail ${gate}`), 1)
        yield* agent.open(gate)
        assert.strictEqual((yield* Fiber.join(first))._tag, "ContentTypeNotSupported")
        assert.strictEqual((yield* Fiber.join(retry))._tag, "ContentTypeNotSupported")
        // The first was not accepted: the retry ran the message itself.
        assert.strictEqual(agent.runs(`slow-fail ${gate}`), 2)
      }))

    it.effect("a message sent again to a task it continued does not run the agent again nor join the history twice", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const asked = taskOf(yield* handler.sendMessage({ message: message(`ask ${uniqueId("x")}`) }, ctx))
        assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
        const answer = message(`answer ${uniqueId("x")}`, { taskId: asked.id })
        const first = taskOf(yield* handler.sendMessage({ message: answer }, ctx))
        const again = taskOf(yield* handler.sendMessage({ message: answer }, ctx))
        assert.strictEqual(first.status.state, "TASK_STATE_COMPLETED")
        assert.deepStrictEqual(again, first)
        assert.strictEqual(agent.runs(AgentExecutor.textOf(answer)), 1)
        assert.strictEqual(again.history?.filter((m) => m.messageId === answer.messageId).length, 1)
      }))

    it.effect("a send that was refused or whose agent failed before any task keeps no receipt", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        // Refused (no such task): the messageId is free again, for another body.
        const refused = message(`task ${uniqueId("x")}`, { taskId: "no-such-task" })
        assert.strictEqual((yield* Effect.flip(handler.sendMessage({ message: refused }, ctx)))._tag, "TaskNotFound")
        const { taskId: _, ...fresh } = refused
        assert.isTrue("task" in (yield* handler.sendMessage({ message: fresh }, ctx)))
        // The agent failed before it made a task: sending the message again runs it again.
        const failing = message(`fail ${uniqueId("x")}`)
        const text = AgentExecutor.textOf(failing)
        assert.strictEqual(
          (yield* Effect.flip(handler.sendMessage({ message: failing }, ctx)))._tag,
          "ContentTypeNotSupported"
        )
        assert.strictEqual(
          (yield* Effect.flip(handler.sendMessage({ message: failing }, ctx)))._tag,
          "ContentTypeNotSupported"
        )
        assert.strictEqual(agent.runs(text), 2)
      }))
  })

  // On the test clock: the window passes without waiting.
  const windowAgent = new CountingAgent()
  layer(coreOver(windowAgent).pipe(Layer.provideMerge(stores)))(`${name}, the window`, (it) => {
    it.effect("a message sent again after the window runs again", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const sent = message(`task ${uniqueId("x")}`)
        const first = taskOf(yield* handler.sendMessage({ message: sent }, ctx))
        yield* TestClock.adjust("30 minutes")
        assert.strictEqual(taskOf(yield* handler.sendMessage({ message: sent }, ctx)).id, first.id)
        yield* TestClock.adjust("24 hours")
        const later = taskOf(yield* handler.sendMessage({ message: sent }, ctx))
        assert.notStrictEqual(later.id, first.id)
        assert.strictEqual(windowAgent.runs(AgentExecutor.textOf(sent)), 2)
      }))
  })
}
