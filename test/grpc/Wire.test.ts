/** The gRPC wire: ProtoJSON values to binary and back, including values that hold `undefined`. */
import { assert, describe, it } from "@effect/vitest"
import * as ProtoJsonBinary from "../../src/grpc/internal/ProtoJsonBinary.ts"
import * as Wire from "../../src/grpc/internal/Wire.ts"

const getTask = Wire.byName.get("GetTask")!
const sendMessage = Wire.byName.get("SendMessage")!
const converter = ProtoJsonBinary.make()

const roundTrip = (desc: Wire.Method["input"], value: unknown) => {
  const out = Wire.fromProtoJson(desc, value, converter)
  if (!out.ok) return assert.fail(out.error.message)
  const back = Wire.toProtoJson(desc, out.bytes, converter)
  if (!back.ok) return assert.fail(back.error.message)
  return back.value
}

describe("Wire", () => {
  it("encodes a ProtoJSON value and decodes it back", () => {
    assert.deepStrictEqual(roundTrip(getTask.input, { id: "t1", historyLength: 2 }), { id: "t1", historyLength: 2 })
  })

  it("reads a field set to undefined as unset, as JSON text would (a oneof included)", () => {
    const message = {
      messageId: "m1",
      role: "ROLE_USER",
      parts: [{ text: "hi", raw: undefined, metadata: undefined }],
      contextId: undefined
    }
    assert.deepStrictEqual(roundTrip(sendMessage.input, { message, configuration: undefined }), {
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] }
    })
  })

  it("refuses a value the descriptor cannot take as InternalError", () => {
    const out = Wire.fromProtoJson(getTask.input, { id: 42 }, converter)
    assert.isFalse(out.ok)
    if (!out.ok) assert.strictEqual(out.error._tag, "InternalError")
  })
})
