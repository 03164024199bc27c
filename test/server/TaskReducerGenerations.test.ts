/**
 * TaskReducer's generations (the A2A 1.1 draft): what counts, what does not, and that a server with the draft off
 * (or a task that keeps none) writes what it always wrote. Each test quotes the draft sentence it checks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as TaskReducer from "../../src/server/engine/TaskReducer.ts"

const user: v1.Message = { messageId: "u1", role: "ROLE_USER", parts: [{ text: "hi" }], contextId: "c" }
const base: TaskReducer.ReducerContext = { taskId: "t", contextId: "c", userMessage: user, now: "2025-01-01T00:00:00Z" }
const on: TaskReducer.ReducerContext = { ...base, generations: true }

const ok = (r: Result.Result<TaskReducer.Applied, string>): TaskReducer.Applied => {
  if (Result.isFailure(r)) return assert.fail(`unexpected failure: ${r.failure}`)
  return r.success
}

const status = (state: v1.TaskState, text?: string): v1.StreamResponse => ({
  statusUpdate: {
    taskId: "t",
    contextId: "c",
    status: {
      state,
      ...(text !== undefined ? { message: { messageId: `m-${text}`, role: "ROLE_AGENT", parts: [{ text }] } } : {})
    }
  }
})

const generations = (applied: TaskReducer.Applied) =>
  applied.published.map(({ event, task }) => {
    const e = "statusUpdate" in event
      ? event.statusUpdate.generation
      : "artifactUpdate" in event
      ? event.artifactUpdate.generation
      : "task" in event
      ? event.task.generation
      : undefined
    return [e, task.generation]
  })

describe("TaskReducer generations", () => {
  it("\"It is initialised to `1` when a task is created\"; each event carries the generation after it", () => {
    const first = ok(TaskReducer.apply(undefined, status("TASK_STATE_WORKING"), on))
    assert.deepStrictEqual(generations(first), [[1, 1], [2, 2]])
    assert.strictEqual(first.task.generation, 2)
    // WORKING -> WORKING with a new message counts too
    const progress = ok(TaskReducer.apply(first.task, status("TASK_STATE_WORKING", "halfway"), on))
    assert.deepStrictEqual(generations(progress), [[3, 3]])
    const artifact = ok(TaskReducer.apply(progress.task, {
      artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ text: "x" }] } }
    }, on))
    assert.deepStrictEqual(generations(artifact), [[4, 4]])
    // a whole task sent again (without a generation of its own) goes on counting
    const replaced = ok(TaskReducer.apply(artifact.task, { task: { ...artifact.task, generation: 99 } }, on))
    assert.deepStrictEqual(generations(replaced), [[5, 5]])
  })

  it("\"A correctly-implemented server MUST NOT emit two events for the same task with the same `generation` value\": a change with no event keeps it", () => {
    const first = ok(TaskReducer.apply(undefined, status("TASK_STATE_WORKING"), on))
    const historyOnly = ok(TaskReducer.apply(first.task, {
      message: { messageId: "note", role: "ROLE_AGENT", parts: [{ text: "note" }] }
    }, on))
    assert.deepStrictEqual(historyOnly.published, [])
    assert.strictEqual(historyOnly.task.generation, 2)
    // the server's own status change (a cancel) is one more
    const canceled = TaskReducer.setStatus(historyOnly.task, { state: "TASK_STATE_CANCELED" })
    assert.deepStrictEqual(generations(canceled), [[3, 3]])
  })

  it("off, nothing carries a generation; a task that has one keeps counting even so", () => {
    const off = ok(TaskReducer.apply(undefined, status("TASK_STATE_WORKING"), base))
    assert.deepStrictEqual(generations(off), [[undefined, undefined], [undefined, undefined]])
    assert.notProperty(off.task, "generation")
    assert.notProperty(TaskReducer.setStatus(off.task, { state: "TASK_STATE_CANCELED" }).task, "generation")
    const kept = ok(TaskReducer.apply({ ...off.task, generation: 7 }, status("TASK_STATE_INPUT_REQUIRED"), base))
    assert.deepStrictEqual(generations(kept), [[8, 8]])
  })
})
