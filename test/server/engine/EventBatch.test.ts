/**
 * EventBatch: the pure reduction of a batch of agent events, without fibers or stores. A batch reduces to what one
 * event at a time would give (the same task, the same events to publish, in order), stops at the event that ends
 * the turn, and tells how the turn ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import type * as v1 from "../../../src/protocol/generated/v1.ts"
import type { AgentEvent } from "../../../src/server/AgentEvent.ts"
import * as EventBatch from "../../../src/server/engine/EventBatch.ts"
import * as TaskReducer from "../../../src/server/engine/TaskReducer.ts"

const now = "2025-01-01T00:00:00.000Z"
const user: v1.Message = { messageId: "u1", role: "ROLE_USER", parts: [{ text: "hi" }], contextId: "c" }
const context: TaskReducer.ReducerContext = { taskId: "t", contextId: "c", userMessage: user, now }

const status = (state: v1.TaskState, message?: v1.Message): AgentEvent => ({
  statusUpdate: {
    taskId: "t",
    contextId: "c",
    status: { state, timestamp: now, ...(message !== undefined ? { message } : {}) }
  }
})
const artifact = (text: string, append = false): AgentEvent => ({
  artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ text }] }, append }
})
const agentSays = (text: string): AgentEvent => ({
  message: { messageId: `m-${text}`, role: "ROLE_AGENT", parts: [{ text }] }
})
const submitted: v1.Task = {
  id: "t",
  contextId: "c",
  status: { state: "TASK_STATE_SUBMITTED", timestamp: now },
  history: [{ ...user, taskId: "t" }]
}

/** The events one by one through TaskReducer, as a runner saving each event alone would apply them. */
const oneByOne = (task: v1.Task | undefined, events: ReadonlyArray<AgentEvent>) => {
  const published: Array<TaskReducer.Published> = []
  let current = task
  for (const event of events) {
    const applied = TaskReducer.apply(current, event, context)
    if (Result.isFailure(applied)) return assert.fail(applied.failure)
    current = applied.success.task
    published.push(...applied.success.published)
  }
  return { task: current, published }
}

const kinds = (published: ReadonlyArray<TaskReducer.Published>) =>
  published.map(({ event }) =>
    "task" in event
      ? `task ${event.task.status.state}`
      : "statusUpdate" in event
      ? `status ${event.statusUpdate.status.state}`
      : "artifactUpdate" in event
      ? `artifact ${event.artifactUpdate.artifact.parts.map((p) => ("text" in p ? p.text : "")).join("")}`
      : "message"
  )

describe("EventBatch.reduce", () => {
  it("one event is its own change: a first update creates the task, nothing ends the turn", () => {
    const reduced = EventBatch.reduce(undefined, [status("TASK_STATE_WORKING")], context)
    assert.deepStrictEqual(kinds(reduced.applied!.published), [
      "task TASK_STATE_SUBMITTED",
      "status TASK_STATE_WORKING"
    ])
    assert.strictEqual(reduced.applied!.task.status.state, "TASK_STATE_WORKING")
    assert.strictEqual(reduced.count, 1)
    assert.isFalse(reduced.final)
    assert.isUndefined(reduced.ending)
  })

  it("a batch gives what one event at a time gives: the last task, every event in order, each event's step", () => {
    const events = [status("TASK_STATE_WORKING"), artifact("x"), artifact("y", true), artifact("z", true)]
    const reduced = EventBatch.reduce(submitted, events, context)
    const expected = oneByOne(submitted, events)
    assert.deepStrictEqual(reduced.applied!.task, expected.task)
    assert.deepStrictEqual(reduced.applied!.published, expected.published)
    assert.deepStrictEqual(kinds(reduced.applied!.published), [
      "status TASK_STATE_WORKING",
      "artifact x",
      "artifact y",
      "artifact z"
    ])
    assert.deepStrictEqual(reduced.applied!.task.artifacts?.[0]?.parts, [{ text: "x" }, { text: "y" }, { text: "z" }])
    // Each step is one event's change over the steps before it: saved one by one, they end on the same task.
    assert.strictEqual(reduced.count, 4)
    const steps = EventBatch.steps(submitted, events, context)
    assert.strictEqual(steps.length, 4)
    assert.deepStrictEqual(steps.flatMap((step) => step.published), expected.published)
    assert.deepStrictEqual(
      steps.map((step) => step.task),
      events.map((_, i) => oneByOne(submitted, events.slice(0, i + 1)).task)
    )
    assert.isFalse(reduced.final)
  })

  it("a final state ends the turn: the events after it are not applied", () => {
    const reduced = EventBatch.reduce(
      submitted,
      [artifact("x"), status("TASK_STATE_COMPLETED"), artifact("late"), status("TASK_STATE_WORKING")],
      context
    )
    assert.isTrue(reduced.final)
    assert.deepStrictEqual(kinds(reduced.applied!.published), ["artifact x", "status TASK_STATE_COMPLETED"])
    assert.strictEqual(reduced.applied!.task.status.state, "TASK_STATE_COMPLETED")
    assert.strictEqual(reduced.count, 2)
    assert.isUndefined(reduced.ending)
    // A whole Task in a final state too.
    const whole = EventBatch.reduce(
      undefined,
      [{ task: { ...submitted, status: { state: "TASK_STATE_REJECTED", timestamp: now } } }, artifact("late")],
      context
    )
    assert.isTrue(whole.final)
    assert.deepStrictEqual(kinds(whole.applied!.published), ["task TASK_STATE_REJECTED"])
  })

  it("an interrupted state ends the turn too, but only one the turn reaches: a continued task starts interrupted", () => {
    const waiting: v1.Task = { ...submitted, status: { state: "TASK_STATE_INPUT_REQUIRED", timestamp: now } }
    const going = EventBatch.reduce(waiting, [status("TASK_STATE_WORKING")], context)
    assert.isFalse(going.final)
    const asked = EventBatch.reduce(submitted, [status("TASK_STATE_AUTH_REQUIRED"), artifact("late")], context)
    assert.isTrue(asked.final)
    assert.deepStrictEqual(kinds(asked.applied!.published), ["status TASK_STATE_AUTH_REQUIRED"])
  })

  it("a message before any task is the direct reply: in the turn's context, without a task id, nothing applied", () => {
    const reply: AgentEvent = {
      message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: "hello" }], taskId: "other", contextId: "x" }
    }
    const reduced = EventBatch.reduce(undefined, [reply, status("TASK_STATE_WORKING")], context)
    assert.isUndefined(reduced.applied)
    assert.strictEqual(reduced.count, 0)
    assert.deepStrictEqual(reduced.ending, {
      _tag: "Reply",
      message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: "hello" }], contextId: "c" }
    })
  })

  it("a message before any task of a task the caller named (A2A 0.1) completes that task, which is saved", () => {
    const reply: AgentEvent = { message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: "hello" }] } }
    const reduced = EventBatch.reduce(undefined, [reply, status("TASK_STATE_WORKING")], { ...context, namedTask: true })
    assert.isUndefined(reduced.ending)
    assert.isTrue(reduced.final)
    assert.strictEqual(reduced.count, 1)
    const answer: v1.Message = {
      messageId: "r",
      role: "ROLE_AGENT",
      parts: [{ text: "hello" }],
      taskId: "t",
      contextId: "c"
    }
    assert.deepStrictEqual(reduced.applied!.task, {
      id: "t",
      contextId: "c",
      status: { state: "TASK_STATE_COMPLETED", message: answer, timestamp: now },
      history: [{ ...user, taskId: "t" }, answer]
    })
    assert.deepStrictEqual(kinds(reduced.applied!.published), ["task TASK_STATE_COMPLETED"])
  })

  it("a message once the task exists asks the client: an INPUT_REQUIRED update carrying it, in the history", () => {
    const reduced = EventBatch.reduce(undefined, [status("TASK_STATE_WORKING"), agentSays("which city?")], context)
    assert.isTrue(reduced.final)
    assert.isUndefined(reduced.ending)
    const last = reduced.applied!.published.at(-1)!.event
    if (!("statusUpdate" in last)) return assert.fail("expected a status update")
    assert.strictEqual(last.statusUpdate.status.state, "TASK_STATE_INPUT_REQUIRED")
    assert.deepStrictEqual(last.statusUpdate.status.message, {
      messageId: "m-which city?",
      role: "ROLE_AGENT",
      parts: [{ text: "which city?" }],
      contextId: "c",
      taskId: "t"
    })
    assert.deepStrictEqual(reduced.applied!.task.history?.map((m) => m.messageId), ["u1", "m-which city?"])
  })

  it("a misbehaving event ends the turn after the events before it, which are kept; none after it is applied", () => {
    const elsewhere: AgentEvent = {
      statusUpdate: { taskId: "another", contextId: "c", status: { state: "TASK_STATE_WORKING" } }
    }
    const reduced = EventBatch.reduce(submitted, [artifact("x"), elsewhere, artifact("y", true)], context)
    assert.deepStrictEqual(kinds(reduced.applied!.published), ["artifact x"])
    assert.strictEqual(reduced.count, 1)
    assert.isFalse(reduced.final)
    assert.strictEqual(reduced.ending?._tag, "Invalid")
    assert.include(reduced.ending?._tag === "Invalid" ? reduced.ending.reason : "", "\"another\"")
  })

  it("a misbehaving first event applies nothing: the turn ends on it alone", () => {
    const done: v1.Task = { ...submitted, status: { state: "TASK_STATE_COMPLETED", timestamp: now } }
    const reduced = EventBatch.reduce(done, [status("TASK_STATE_WORKING")], context)
    assert.isUndefined(reduced.applied)
    assert.strictEqual(reduced.ending?._tag, "Invalid")
  })

  it("does not change the task it is given", () => {
    const before = structuredClone(submitted)
    EventBatch.reduce(submitted, [status("TASK_STATE_WORKING"), artifact("x"), status("TASK_STATE_COMPLETED")], context)
    assert.deepStrictEqual(submitted, before)
  })
})
