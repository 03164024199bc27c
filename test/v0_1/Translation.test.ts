/**
 * The 0.1 <-> 1.0 translation on values written from the 0.1 specification: what 0.1 lacks (states, artifact ids,
 * Task events in streams) and what it keeps (ids, sessions, parts with `type`).
 */
import { describe, expect, it } from "@effect/vitest"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import type * as V01 from "../../src/v0_1/protocol/Schemas.ts"
import * as Translation from "../../src/v0_1/protocol/Translation.ts"
import * as Tasks from "../../src/v0_3/protocol/Tasks.ts"

// spec 0.1 section 9.1, the server's answer
const answer: V01.Task = {
  id: "task-abc-123",
  sessionId: "session-xyz-789",
  status: {
    state: "completed",
    message: { role: "agent", parts: [{ type: "text", text: "The capital of France is Paris." }] },
    timestamp: "2024-03-15T10:00:05Z"
  },
  artifacts: [{ name: "Answer", index: 0, parts: [{ type: "text", text: "The capital of France is Paris." }] }]
}

describe("0.1 <-> 1.0", () => {
  it("a 0.1 Task reads into 1.0 and back unchanged", () => {
    const task = Translation.toV1Task(answer)
    expect(task).toMatchObject({
      id: "task-abc-123",
      contextId: "session-xyz-789",
      status: { state: "TASK_STATE_COMPLETED", timestamp: "2024-03-15T10:00:05Z" },
      artifacts: [{ artifactId: "artifact-0", name: "Answer", parts: [{ text: "The capital of France is Paris." }] }]
    })
    expect(Translation.fromV1Task(task, answer.id)).toEqual(answer)
  })

  it("1.0 states 0.1 lacks read as their nearest 0.1 state", () => {
    expect(Translation.fromV1TaskState("TASK_STATE_REJECTED")).toBe("failed")
    expect(Translation.fromV1TaskState("TASK_STATE_AUTH_REQUIRED")).toBe("input-required")
    expect(Translation.fromV1TaskState("TASK_STATE_UNSPECIFIED")).toBe("unknown")
    expect(Translation.fromV1TaskState("TASK_STATE_CANCELED")).toBe("canceled")
  })

  it("null reads as absent; file parts keep bytes or uri", () => {
    const message = Translation.toV1Message({
      role: "user",
      parts: [
        { type: "file", file: { name: "a.png", mimeType: "image/png", bytes: "iVBORw==", uri: null }, metadata: null },
        { type: "file", file: { uri: "https://example.com/b.pdf" } },
        { type: "data", data: { k: 1 } }
      ],
      metadata: null
    }, { messageId: "m1" })
    expect(message).toEqual({
      messageId: "m1",
      role: "ROLE_USER",
      parts: [
        { raw: "iVBORw==", filename: "a.png", mediaType: "image/png" },
        { url: "https://example.com/b.pdf" },
        { data: { k: 1 } }
      ]
    })
    expect(Translation.fromV1Message(message, "user").parts).toEqual([
      { type: "file", file: { name: "a.png", mimeType: "image/png", bytes: "iVBORw==" } },
      { type: "file", file: { uri: "https://example.com/b.pdf" } },
      { type: "data", data: { k: 1 } }
    ])
  })

  it("a stream: the Task is its status, artifacts get their index, a Message reply completes", () => {
    const events = new Translation.StreamEvents("task-story-456", Tasks.finalForSend)
    const task: v1.Task = {
      id: "server-id",
      contextId: "c",
      status: { state: "TASK_STATE_WORKING" },
      artifacts: [{ artifactId: "first", parts: [{ text: "x" }] }]
    }
    expect(events.next({ task })).toEqual({ id: "task-story-456", status: { state: "working" }, final: false })
    const chunk = (artifactId: string, append: boolean, lastChunk: boolean): v1.StreamResponse => ({
      artifactUpdate: {
        taskId: "server-id",
        contextId: "c",
        artifact: { artifactId, parts: [{ text: "y" }] },
        append,
        lastChunk
      }
    })
    expect(events.next(chunk("second", false, false))).toEqual({
      id: "task-story-456",
      artifact: { parts: [{ type: "text", text: "y" }], index: 1, append: false, lastChunk: false }
    })
    expect(events.next(chunk("second", true, true))).toMatchObject({
      artifact: { index: 1, append: true, lastChunk: true }
    })
    expect(events.next(chunk("first", true, false))).toMatchObject({ artifact: { index: 0 } })
    expect(
      events.next({
        statusUpdate: { taskId: "server-id", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" } }
      })
    ).toEqual({ id: "task-story-456", status: { state: "input-required" }, final: true })
    expect(
      new Translation.StreamEvents("t", Tasks.finalForSend).next({
        message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "hi" }] }
      })
    ).toEqual({
      id: "t",
      status: { state: "completed", message: { role: "agent", parts: [{ type: "text", text: "hi" }] } },
      final: true
    })
  })
})
