/** AgentExecutor helpers. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Stream } from "effect"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as CallContext from "../../src/server/CallContext.ts"
import * as PushStream from "../../src/server/internal/PushStream.ts"

const message = (parts: AgentExecutor.RequestContext["message"]["parts"]) => ({
  messageId: "m",
  role: "ROLE_USER" as const,
  parts
})

describe("AgentExecutor.textOf", () => {
  it("joins the text parts with newlines and skips the others", () => {
    assert.strictEqual(AgentExecutor.textOf(message([{ text: "one" }])), "one")
    assert.strictEqual(
      AgentExecutor.textOf(message([{ text: "one" }, { url: "https://x.test/f" }, { text: "" }, { text: "two" }])),
      "one\n\ntwo"
    )
  })

  it("is empty for a message without text", () => {
    assert.strictEqual(AgentExecutor.textOf(message([{ data: { a: 1 } }])), "")
  })
})

const contextOf = (text: string): AgentExecutor.RequestContext => ({
  message: { ...message([{ text }]), contextId: "ctx" },
  taskId: "task-1",
  contextId: "ctx",
  task: Option.none(),
  principal: CallContext.make().principal,
  tenant: "",
  metadata: undefined,
  configuration: undefined,
  extensions: [],
  call: CallContext.make()
})

/** Events as JSON values, without what differs from run to run (random message ids). */
const comparable = (events: ReadonlyArray<AgentExecutor.AgentEvent>): Array<AgentExecutor.AgentEvent> =>
  JSON.parse(JSON.stringify(events).replace(/"messageId":"[^"]*"/g, "\"messageId\":\"*\""))

/** What a stream yields when read, and what its push-style producer emits, each with how it ended. */
const bothWays = (stream: Stream.Stream<AgentExecutor.AgentEvent, unknown>) =>
  Effect.gen(function*() {
    const run = PushStream.producerOf(stream)
    assert.isDefined(run)
    const pulled: Array<AgentExecutor.AgentEvent> = []
    const pulledExit = yield* Effect.exit(Stream.runForEach(stream, (e) => Effect.sync(() => pulled.push(e))))
    const pushed: Array<AgentExecutor.AgentEvent> = []
    const pushedExit = yield* Effect.exit(run!((e) => Effect.sync(() => void pushed.push(e))))
    return { pulled: comparable(pulled), pushed: comparable(pushed), pulledExit, pushedExit }
  })

describe("AgentExecutor push-style producers", () => {
  it.effect("replyWithText emits the same reply both ways", () =>
    Effect.gen(function*() {
      const agent = AgentExecutor.replyWithText((text) => `re: ${text}`)
      const { pulled, pushed } = yield* bothWays(agent.execute(contextOf("hi")))
      assert.deepStrictEqual(pushed, pulled)
      assert.strictEqual(pulled.length, 1)
      const [reply] = pulled
      assert.deepStrictEqual(reply !== undefined && "message" in reply ? reply.message.parts : [], [{ text: "re: hi" }])
    }))

  it.effect("task emits submitted, its work's events and the completion, in order, both ways", () =>
    Effect.gen(function*() {
      const agent = AgentExecutor.task((t) =>
        Effect.gen(function*() {
          yield* t.working("thinking")
          yield* t.artifact({ artifactId: "a", parts: [{ text: "42" }] }, { lastChunk: true })
        })
      )
      const { pulled, pushed } = yield* bothWays(agent.execute(contextOf("question")))
      assert.deepStrictEqual(pushed, pulled)
      assert.deepStrictEqual(pulled.map((e) => Object.keys(e)[0]), [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate"
      ])
      const last = pulled[3]
      assert.strictEqual(
        last !== undefined && "statusUpdate" in last ? last.statusUpdate.status.state : undefined,
        "TASK_STATE_COMPLETED"
      )
    }))

  it.effect("a failing task fails the same way both ways, after the events before the failure", () =>
    Effect.gen(function*() {
      const agent = AgentExecutor.task((t) => Effect.andThen(t.working("about to fail"), Effect.fail("boom")))
      const { pulled, pulledExit, pushed, pushedExit } = yield* bothWays(agent.execute(contextOf("x")))
      assert.deepStrictEqual(pushed, pulled)
      assert.strictEqual(pulled.length, 2)
      assert.isTrue(Exit.isFailure(pulledExit))
      assert.deepStrictEqual(pushedExit, pulledExit)
    }))

  it("a stream derived from a marked one is read as a stream", () => {
    const stream = AgentExecutor.replyWithText((text) => text).execute(contextOf("hi"))
    assert.isDefined(PushStream.producerOf(stream))
    assert.isUndefined(PushStream.producerOf(Stream.map(stream, (e) => e)))
    assert.isUndefined(PushStream.producerOf(Stream.make({ message: message([{ text: "x" }]) })))
  })
})
