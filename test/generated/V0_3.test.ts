/**
 * The generated A2A 0.3.0 schemas follow the 0.3.0 JSON Schema as published: its `required` lists, `kind`
 * discriminators, JSON-RPC envelopes and error objects.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as V0_3 from "../../src/protocol/generated/v0_3.ts"

const failure = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) =>
  Schema.decodeUnknownEffect(schema)(input).pipe(Effect.flip, Effect.map((e) => e.message))

// the message/send request of spec 0.3.0 section 9.1, with the `kind` its schema requires
const sendRequest = {
  jsonrpc: "2.0",
  id: 1,
  method: "message/send",
  params: {
    message: {
      kind: "message",
      role: "user",
      parts: [{ kind: "text", text: "tell me a joke" }],
      messageId: "9229e770-767c-417b-a0b0-f0741243c589"
    },
    metadata: {}
  }
}

describe("v0.3", () => {
  it.effect("decodes a message/send request and its task result", () =>
    Effect.gen(function*() {
      const request = yield* Schema.decodeUnknownEffect(V0_3.SendMessageRequest)(sendRequest)
      expect(request.params.message.parts[0]).toStrictEqual({ kind: "text", text: "tell me a joke" })
      const response = yield* Schema.decodeUnknownEffect(V0_3.SendMessageResponse)({
        jsonrpc: "2.0",
        id: 1,
        result: {
          kind: "task",
          id: "363422be-b0f9-4692-a24d-278670e7c7f1",
          contextId: "c295ea44-7543-4f78-b524-7a38915ad6e4",
          status: { state: "completed" },
          artifacts: [{ artifactId: "a", name: "joke", parts: [{ kind: "text", text: "Why did the chicken..." }] }]
        }
      })
      expect("result" in response && response.result.kind).toBe("task")
    }))

  it.effect("the A2ARequest union selects the request by method", () =>
    Effect.gen(function*() {
      const request = yield* Schema.decodeUnknownEffect(V0_3.A2ARequest)({
        jsonrpc: "2.0",
        id: "r-1",
        method: "tasks/get",
        params: { id: "t-1", historyLength: 2 }
      })
      expect(request.method).toBe("tasks/get")
      // no member has that method: the message lists the methods there are
      expect(yield* failure(V0_3.A2ARequest, { ...sendRequest, method: "tasks/unknown" })).toContain(
        `readonly "method": "tasks/get"`
      )
    }))

  it.effect("parts are discriminated by kind", () =>
    Effect.gen(function*() {
      const parts = yield* Schema.decodeUnknownEffect(Schema.Array(V0_3.Part))([
        { kind: "text", text: "t" },
        { kind: "file", file: { uri: "https://x/f.png", mimeType: "image/png" } },
        { kind: "data", data: { a: 1 } }
      ])
      expect(parts.map((p) => p.kind)).toStrictEqual(["text", "file", "data"])
      expect(yield* failure(V0_3.Part, { kind: "image", text: "t" })).toContain(
        `{ readonly "kind": "text", ... } | { readonly "kind": "file", ... } | { readonly "kind": "data", ... }`
      )
      expect(yield* failure(V0_3.Part, { kind: "text", text: 1 })).toBe(`Expected string\n  at ["text"]`)
    }))

  it.effect("required fields and enums come from the schema's own lists", () =>
    Effect.gen(function*() {
      const { messageId: _, ...noId } = sendRequest.params.message
      expect(yield* failure(V0_3.Message, noId)).toContain(`["messageId"]`)
      expect(yield* failure(V0_3.Message, { ...sendRequest.params.message, role: "ROLE_USER" })).toContain(`["role"]`)
      expect(yield* failure(V0_3.TaskStatus, { state: "running" })).toContain(`"input-required"`)
    }))

  it.effect("GetTaskPushNotificationConfigParams keeps pushNotificationConfigId (not read as TaskIdParams)", () =>
    Effect.gen(function*() {
      const request = yield* Schema.decodeUnknownEffect(V0_3.GetTaskPushNotificationConfigRequest)({
        jsonrpc: "2.0",
        id: 2,
        method: "tasks/pushNotificationConfig/get",
        params: { id: "t-1", pushNotificationConfigId: "c-1" }
      })
      expect(request.params).toStrictEqual({ id: "t-1", pushNotificationConfigId: "c-1" })
    }))

  it.effect("JSON-RPC error responses carry the A2A error codes", () =>
    Effect.gen(function*() {
      const response = yield* Schema.decodeUnknownEffect(V0_3.GetTaskResponse)({
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32001, message: "Task not found" }
      })
      expect("error" in response && response.error.code).toBe(-32001)
      const error = yield* Schema.decodeUnknownEffect(V0_3.TaskNotFoundError)({ code: -32001, message: "x" })
      expect(error.code).toBe(-32001)
      expect(yield* failure(V0_3.TaskNotFoundError, { code: -32002, message: "x" })).toContain(`["code"]`)
    }))

  it.effect("a TransportProtocol outside the schema's enum is rejected", () =>
    Effect.gen(function*() {
      expect(yield* Schema.decodeUnknownEffect(V0_3.TransportProtocol)("HTTP+JSON")).toBe("HTTP+JSON")
      expect(yield* failure(V0_3.TransportProtocol, "REST")).toContain(`"JSONRPC" | "GRPC" | "HTTP+JSON"`)
    }))
})
