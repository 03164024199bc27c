/** TaskReducer: how agent events fold into a task, and which ones are rejected as misbehaviour. */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as TaskReducer from "../../src/server/engine/TaskReducer.ts"

const user: v1.Message = { messageId: "u1", role: "ROLE_USER", parts: [{ text: "hi" }], contextId: "c" }
const rc: TaskReducer.ReducerContext = {
  taskId: "t",
  contextId: "c",
  userMessage: user,
  now: "2025-01-01T00:00:00.000Z"
}

const ok = (r: Result.Result<TaskReducer.Applied, string>): TaskReducer.Applied => {
  if (Result.isFailure(r)) return assert.fail(`unexpected failure: ${r.failure}`)
  return r.success
}
const failure = (r: Result.Result<TaskReducer.Applied, string>): string => {
  if (Result.isSuccess(r)) return assert.fail("expected a failure")
  return r.failure
}

const artifactUpdate = (parts: Array<string>, options: { append?: boolean; id?: string } = {}): v1.StreamResponse => ({
  artifactUpdate: {
    taskId: "t",
    contextId: "c",
    artifact: { artifactId: options.id ?? "a", parts: parts.map((text) => ({ text })) },
    ...(options.append !== undefined ? { append: options.append } : {})
  }
})

describe("TaskReducer", () => {
  it("an update before any task first creates the task (SUBMITTED, with the user's message, ids filled in)", () => {
    const applied = ok(TaskReducer.apply(undefined, {
      statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } }
    }, rc))
    assert.deepStrictEqual(applied.published.map((p) => Object.keys(p.event)[0]), ["task", "statusUpdate"])
    const created = applied.published[0]!.task
    assert.strictEqual(created.status.state, "TASK_STATE_SUBMITTED")
    assert.deepStrictEqual(created.history, [{ ...user, taskId: "t" }])
    assert.strictEqual(applied.task.status.state, "TASK_STATE_WORKING")
    assert.strictEqual(applied.task.status.timestamp, rc.now) // stamped
  })

  it("artifact chunks: append adds parts to the same artifact, otherwise the artifact is replaced or added", () => {
    const t0: v1.Task = { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } }
    const t1 = ok(TaskReducer.apply(t0, artifactUpdate(["a"]), rc)).task
    const t2 = ok(TaskReducer.apply(t1, artifactUpdate(["b", "c"], { append: true }), rc)).task
    assert.deepStrictEqual(t2.artifacts?.[0]?.parts, [{ text: "a" }, { text: "b" }, { text: "c" }])
    const t3 = ok(TaskReducer.apply(t2, artifactUpdate(["z"]), rc)).task
    assert.deepStrictEqual(t3.artifacts?.[0]?.parts, [{ text: "z" }])
    const t4 = ok(TaskReducer.apply(t3, artifactUpdate(["other"], { id: "b", append: true }), rc)).task
    assert.deepStrictEqual(t4.artifacts?.map((a) => a.artifactId), ["a", "b"])
  })

  it("status messages join the history once; an agent message after the task is history-only", () => {
    const t0: v1.Task = { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" }, history: [user] }
    const m: v1.Message = { messageId: "m1", role: "ROLE_AGENT", parts: [{ text: "need more" }] }
    const applied = ok(TaskReducer.apply(t0, {
      statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED", message: m } }
    }, rc))
    assert.deepStrictEqual(applied.task.history?.map((x) => x.messageId), ["u1", "m1"])
    assert.strictEqual(applied.task.status.message?.taskId, "t")
    const again = ok(TaskReducer.apply(applied.task, { message: m }, rc))
    assert.deepStrictEqual(again.task.history?.map((x) => x.messageId), ["u1", "m1"])
    assert.deepStrictEqual(again.published, [])
  })

  it("rejects events for another task or context, moves out of a terminal state, and unspecified states", () => {
    const done: v1.Task = { id: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } }
    assert.match(
      failure(
        TaskReducer.apply(done, {
          statusUpdate: { taskId: "x", contextId: "c", status: { state: "TASK_STATE_WORKING" } }
        }, rc)
      ),
      /task "x"/
    )
    assert.match(
      failure(
        TaskReducer.apply(done, {
          statusUpdate: { taskId: "t", contextId: "y", status: { state: "TASK_STATE_WORKING" } }
        }, rc)
      ),
      /context "y"/
    )
    assert.match(
      failure(
        TaskReducer.apply(done, {
          statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } }
        }, rc)
      ),
      /from completed to working/
    )
    assert.match(failure(TaskReducer.apply(done, artifactUpdate(["late"]), rc)), /after it was completed/)
    assert.match(failure(TaskReducer.apply(undefined, { message: user }, rc)), /not a task event/)
    const working: v1.Task = { ...done, status: { state: "TASK_STATE_WORKING" } }
    assert.match(
      failure(TaskReducer.apply(working, { task: { ...working, status: { state: "TASK_STATE_UNSPECIFIED" } } }, rc)),
      /unspecified/
    )
  })

  it("a task event keeps a valid agent timestamp and replaces an unparsable one", () => {
    const kept = ok(TaskReducer.apply(undefined, {
      task: { id: "t", status: { state: "TASK_STATE_WORKING", timestamp: "2024-05-05T05:05:05Z" } }
    }, rc))
    assert.strictEqual(kept.task.status.timestamp, "2024-05-05T05:05:05Z")
    assert.strictEqual(kept.task.contextId, "c")
    const replaced = ok(TaskReducer.apply(undefined, {
      task: { id: "t", status: { state: "TASK_STATE_WORKING", timestamp: "soon" } }
    }, rc))
    assert.strictEqual(replaced.task.status.timestamp, rc.now)
  })
})
