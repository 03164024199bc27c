/**
 * Safe retries over PostgreSQL: the store suite (test/server/MessageRetries.ts), then two nodes on one database,
 * each with its own pool, node id and event bus, as two server processes behind a load balancer: a message sent to
 * both at once runs once, and a retry on the other node is answered with the first send's outcome (following its
 * task live, for a stream). Needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Queue, Stream } from "effect"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { coreOver, CountingAgent, ctxFor, message, retrySuite, uniqueId } from "../server/MessageRetries.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl, withFreshSchema } from "./pg.ts"

/** Two nodes on one fresh schema, running the same agent. */
const twoNodes = Effect.gen(function*() {
  const url = yield* freshSchemaUrl
  const agent = new CountingAgent()
  const node = Effect.map(
    Layer.build(coreOver(agent).pipe(Layer.provideMerge(SqlStore.layerPg({ url })))),
    (context) => Context.get(context, RequestHandler)
  )
  const a = yield* node
  const b = yield* node
  return { agent, a, b }
})

const taskIdOf = (response: v1.SendMessageResponse) => ("task" in response ? response.task.id : "")

if (testDatabaseUrl !== undefined) {
  retrySuite("safe retries (PostgreSQL stores)", withFreshSchema((url) => SqlStore.layerPg({ url })))

  describe("safe retries, two nodes on one PostgreSQL", () => {
    it.live("a message sent to both nodes at once runs once; each answers its task", () =>
      Effect.gen(function*() {
        const { a, agent, b } = yield* twoNodes
        const ctx = ctxFor("alice")
        const sent = message(`task ${uniqueId("x")}`)
        const answers = yield* Effect.all(
          Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).sendMessage({ message: sent }, ctx)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(answers.map(taskIdOf)).size, 1)
        assert.notStrictEqual(taskIdOf(answers[0]!), "")
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
      }).pipe(Effect.scoped))

    it.live("a streaming retry on the other node follows the task live; a reply and another body likewise", () =>
      Effect.gen(function*() {
        const { a, agent, b } = yield* twoNodes
        const ctx = ctxFor("alice")
        const gate = uniqueId("gate")
        const sent = message(`wait ${gate}`)
        const started = yield* a.sendMessage({ message: sent, configuration: { returnImmediately: true } }, ctx)
        const events = yield* Queue.unbounded<v1.StreamResponse, unknown>()
        const retry = yield* b.sendStreamingMessage({ message: sent }, ctx).pipe(
          Stream.runForEach((e) => Queue.offer(events, e)),
          Effect.forkChild
        )
        const snapshot = yield* Queue.take(events)
        assert.isTrue("task" in snapshot && snapshot.task.id === taskIdOf(started))
        assert.notStrictEqual("task" in snapshot ? snapshot.task.status.state : "", "TASK_STATE_COMPLETED")
        yield* agent.open(gate)
        yield* Fiber.join(retry)
        const rest = yield* Queue.takeAll(events)
        const last = rest[rest.length - 1]
        assert.strictEqual(
          last !== undefined && "statusUpdate" in last ? last.statusUpdate.status.state : "",
          "TASK_STATE_COMPLETED"
        )
        assert.strictEqual(agent.runs(`wait ${gate}`), 1)

        const asked = message(`reply ${uniqueId("x")}`)
        const replied = yield* a.sendMessage({ message: asked }, ctx)
        assert.deepStrictEqual(yield* b.sendMessage({ message: asked }, ctx), replied)
        assert.strictEqual(agent.runs(AgentExecutor.textOf(asked)), 1)

        const changed = { ...asked, parts: [{ text: `reply ${uniqueId("x")}` }] }
        assert.strictEqual((yield* Effect.flip(b.sendMessage({ message: changed }, ctx)))._tag, "InvalidParams")
      }).pipe(Effect.scoped))
  })
} else {
  describe("safe retries (PostgreSQL stores)", () => {
    it.skip(skipReason, () => {})
  })
}
