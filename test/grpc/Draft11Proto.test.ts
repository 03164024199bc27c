/**
 * The A2A 1.1 draft's gRPC descriptor is 1.0's with exactly the five fields `dev-1.1`'s specification/a2a.proto adds
 * (PR #1810), with its numbers, int64, `optional` where the draft says so; every 1.0 message and field is as it was.
 */
import { ScalarType } from "@bufbuild/protobuf"
import { assert, describe, it } from "@effect/vitest"
import { file_a2a_draft11 } from "../../src/grpc/internal/Draft11Proto.ts"
import { file_a2a } from "../../src/protocol/generated/v1Proto.ts"

const fieldsOf = (file: typeof file_a2a) =>
  new Map(
    file.messages.flatMap((m) =>
      m.fields.map((f) => [`${m.name}.${f.name}`, `${f.number} ${f.fieldKind} ${f.presence} ${f.oneof?.name ?? ""}`])
    )
  )

describe("Draft11Proto", () => {
  it("adds the draft's five fields and changes nothing else", () => {
    const v10 = fieldsOf(file_a2a)
    const draft = fieldsOf(file_a2a_draft11)
    for (const [name, shape] of v10) assert.strictEqual(draft.get(name), shape, name)
    const added = [...draft.keys()].filter((name) => !v10.has(name)).sort()
    assert.deepStrictEqual(added, [
      "GetTaskRequest.current_generation",
      "SendMessageConfiguration.if_generation_match",
      "Task.generation",
      "TaskArtifactUpdateEvent.generation",
      "TaskStatusUpdateEvent.generation"
    ])
    assert.deepStrictEqual(
      file_a2a_draft11.services[0]!.methods.map((m) => m.name),
      file_a2a.services[0]!.methods.map((m) => m.name)
    )
  })

  it("\"int64 generation = 7\" (Task), \"= 5\" (TaskStatusUpdateEvent), \"= 7\" (TaskArtifactUpdateEvent), \"optional int64 current_generation = 4\", \"optional int64 if_generation_match = 5\"", () => {
    const field = (message: string, name: string) => {
      const f = file_a2a_draft11.messages.find((m) => m.name === message)!.fields.find((f) => f.name === name)!
      return {
        number: f.number,
        int64: f.fieldKind === "scalar" && f.scalar === ScalarType.INT64,
        optional: f.proto.proto3Optional
      }
    }
    assert.deepStrictEqual(field("Task", "generation"), { number: 7, int64: true, optional: false })
    assert.deepStrictEqual(field("TaskStatusUpdateEvent", "generation"), { number: 5, int64: true, optional: false })
    assert.deepStrictEqual(field("TaskArtifactUpdateEvent", "generation"), { number: 7, int64: true, optional: false })
    assert.deepStrictEqual(field("GetTaskRequest", "current_generation"), { number: 4, int64: true, optional: true })
    assert.deepStrictEqual(
      field("SendMessageConfiguration", "if_generation_match"),
      { number: 5, int64: true, optional: true }
    )
  })
})
