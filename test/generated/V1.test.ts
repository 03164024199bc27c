/**
 * The generated A2A 1.0 schemas: the protocol's rules the bundle lacks (REQUIRED fields, non-empty REQUIRED arrays,
 * oneof groups), ProtoJSON leniency on input (snake_case names, enum numbers, int32 strings, URL-safe base64,
 * unknown fields), camelCase output, and readable messages that name the field.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as V1 from "../../src/protocol/generated/v1.ts"

/** The decode failure's message (the test fails if decoding succeeds). */
const failure = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) =>
  Schema.decodeUnknownEffect(schema)(input).pipe(
    Effect.flip,
    Effect.map((error) => error.message)
  )

const decode = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) =>
  Schema.decodeUnknownEffect(schema)(input)

const message = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hi" }] }

describe("v1: REQUIRED fields", () => {
  it.effect("a missing REQUIRED field is rejected, naming the field", () =>
    Effect.gen(function*() {
      const text = yield* failure(V1.Task, { contextId: "c", status: { state: "TASK_STATE_WORKING" } })
      expect(text).toContain("Missing key")
      expect(text).toContain(`["id"]`)
    }))

  it.effect("a nested missing REQUIRED field names the whole path", () =>
    Effect.gen(function*() {
      const text = yield* failure(V1.SendMessageRequest, { message: { role: "ROLE_USER", parts: [{ text: "x" }] } })
      expect(text).toContain(`["message"]["messageId"]`)
    }))

  it.effect("optional fields may be absent", () =>
    Effect.gen(function*() {
      const task = yield* decode(V1.Task, { id: "t", status: { state: "TASK_STATE_SUBMITTED" } })
      expect(task).toStrictEqual({ id: "t", status: { state: "TASK_STATE_SUBMITTED" } })
    }))

  it.effect("a REQUIRED array must not be empty (Message.parts)", () =>
    Effect.gen(function*() {
      const text = yield* failure(V1.Message, { ...message, parts: [] })
      expect(text).toContain(`["parts"]`)
      expect(text).toContain("length of at least 1")
    }))

  it.effect("a REQUIRED array must not be empty (AgentCard.skills)", () =>
    Effect.gen(function*() {
      const card = {
        name: "a",
        description: "d",
        supportedInterfaces: [{ url: "http://x", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
        version: "1",
        capabilities: {},
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: []
      }
      expect(yield* failure(V1.AgentCard, card)).toContain(`["skills"]`)
      const ok = yield* decode(V1.AgentCard, {
        ...card,
        skills: [{ id: "s", name: "n", description: "d", tags: ["t"] }]
      })
      expect(ok.skills).toHaveLength(1)
    }))

  it.effect("ListTasksResponse: REQUIRED fields that may be zero read as zero when a ProtoJSON writer omits them", () =>
    Effect.gen(function*() {
      const empty = { tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 }
      expect(yield* decode(V1.ListTasksResponse, empty)).toStrictEqual(empty)
      // what the official SDK (ts-proto toJSON) writes for an empty last page
      const page = yield* decode(V1.ListTasksResponse, {})
      expect(page).toStrictEqual(empty)
      // and we write all four explicitly
      expect(yield* Schema.encodeEffect(V1.ListTasksResponse)(page)).toStrictEqual(empty)
      const last = yield* decode(V1.ListTasksResponse, { tasks: [{ id: "t", status: { state: 3 } }], page_size: 50 })
      expect(last).toStrictEqual({
        tasks: [{ id: "t", status: { state: "TASK_STATE_COMPLETED" } }],
        nextPageToken: "",
        pageSize: 50,
        totalSize: 0
      })
      expect(yield* failure(V1.ListTasksResponse, { tasks: "none" })).toContain(`["tasks"]`)
    }))
})

describe("v1: oneof groups", () => {
  it.effect("a Part with two contents is rejected, naming them", () =>
    Effect.gen(function*() {
      const text = yield* failure(V1.Message, { ...message, parts: [{ text: "a", url: "https://x" }] })
      expect(text).toContain("Part must set exactly one of text, raw, url, data; text and url are set")
      expect(text).toContain(`["parts"][0]`)
    }))

  it.effect("a Part with no content is rejected", () =>
    Effect.gen(function*() {
      const text = yield* failure(V1.Part, { mediaType: "text/plain" })
      expect(text).toContain("Part must set exactly one of text, raw, url, data; none is set")
    }))

  it.effect("each Part content decodes to its own variant, so `in` narrows", () =>
    Effect.gen(function*() {
      const parts = yield* decode(Schema.Array(V1.Part), [
        { text: "t" },
        { raw: "aGk=", mediaType: "text/plain" },
        { url: "https://x", filename: "f" },
        { data: { a: [1] } }
      ])
      const kinds = parts.map((p) =>
        "text" in p ? `text:${p.text}` : "raw" in p ? `raw:${p.raw}` : "url" in p ? `url:${p.url}` : "data"
      )
      expect(kinds).toStrictEqual(["text:t", "raw:aGk=", "url:https://x", "data"])
    }))

  it.effect("a Part's wrong content type names the field", () =>
    Effect.gen(function*() {
      // only the member that was sent reports, not the three that lack their key
      expect(yield* failure(V1.Part, { text: 42 })).toBe(`Expected string\n  at ["text"]`)
      expect(yield* failure(V1.Part, { url: "https://x", mediaType: 5 })).toBe(`Expected string\n  at ["mediaType"]`)
      expect(yield* failure(V1.StreamResponse, { task: { id: 5 } })).toBe(`Expected string\n  at ["task"]["id"]`)
    }))

  it.effect("StreamResponse wraps exactly one payload", () =>
    Effect.gen(function*() {
      const task = { id: "t", status: { state: "TASK_STATE_WORKING" } }
      const event = yield* decode(V1.StreamResponse, { task })
      expect("task" in event && event.task.id).toBe("t")
      expect(yield* failure(V1.StreamResponse, {})).toContain(
        "StreamResponse must set exactly one of task, message, statusUpdate, artifactUpdate; none is set"
      )
      expect(yield* failure(V1.StreamResponse, { task, message })).toContain("task and message are set")
    }))

  it.effect("SendMessageResponse is a task or a message", () =>
    Effect.gen(function*() {
      const reply = yield* decode(V1.SendMessageResponse, { message })
      expect("message" in reply).toBe(true)
      expect(yield* failure(V1.SendMessageResponse, { task: { id: "t" }, message })).toContain(
        "SendMessageResponse must set exactly one of task, message; task and message are set"
      )
    }))

  it.effect("SecurityScheme and OAuthFlows are oneofs too", () =>
    Effect.gen(function*() {
      const scheme = yield* decode(V1.SecurityScheme, {
        oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://t", scopes: { read: "r" } } } }
      })
      expect(scheme).toStrictEqual({
        oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://t", scopes: { read: "r" } } } }
      })
      expect(yield* failure(V1.SecurityScheme, { mtlsSecurityScheme: {}, apiKeySecurityScheme: {} })).toContain(
        "apiKeySecurityScheme and mtlsSecurityScheme are set"
      )
      expect(yield* failure(V1.OAuthFlows, {})).toContain("OAuthFlows must set exactly one of authorizationCode")
    }))
})

describe("v1: enums", () => {
  it.effect("a wrong enum value is rejected, naming the field and the allowed names", () =>
    Effect.gen(function*() {
      const text = yield* failure(V1.Task, { id: "t", status: { state: "TASK_STATE_RUNNING" } })
      expect(text).toContain(`["status"]["state"]`)
      expect(text).toContain(`"TASK_STATE_WORKING"`)
    }))

  it.effect("enum numbers are accepted on input (ProtoJSON) and encoded as names", () =>
    Effect.gen(function*() {
      const decoded = yield* decode(V1.Message, { ...message, role: 2 })
      expect(decoded.role).toBe("ROLE_AGENT")
      const status = yield* decode(V1.TaskStatus, { state: 3 })
      expect(status.state).toBe("TASK_STATE_COMPLETED")
      expect(yield* Schema.encodeEffect(V1.TaskStatus)(status)).toStrictEqual({ state: "TASK_STATE_COMPLETED" })
      expect(yield* failure(V1.TaskStatus, { state: 9 })).toContain(`["state"]`)
      expect(yield* failure(V1.TaskStatus, { state: 1.5 })).toContain(`["state"]`)
    }))

  it("the enum schemas list the proto values in number order", () => {
    expect(V1.TaskState.literals).toStrictEqual([
      "TASK_STATE_UNSPECIFIED",
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_WORKING",
      "TASK_STATE_COMPLETED",
      "TASK_STATE_FAILED",
      "TASK_STATE_CANCELED",
      "TASK_STATE_INPUT_REQUIRED",
      "TASK_STATE_REJECTED",
      "TASK_STATE_AUTH_REQUIRED"
    ])
    expect(V1.Role.literals).toStrictEqual(["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"])
  })
})

describe("v1: int32", () => {
  it.effect("decimal strings decode to numbers and encode as numbers", () =>
    Effect.gen(function*() {
      const request = yield* decode(V1.ListTasksRequest, { pageSize: "25", historyLength: 3 })
      expect(request).toStrictEqual({ pageSize: 25, historyLength: 3 })
      expect(yield* Schema.encodeEffect(V1.ListTasksRequest)(request)).toStrictEqual({ pageSize: 25, historyLength: 3 })
    }))

  it.effect("out-of-range, fractional and non-numeric values are rejected, naming the field", () =>
    Effect.gen(function*() {
      expect(yield* failure(V1.ListTasksRequest, { pageSize: 2147483648 })).toContain(
        `Expected a value between -2147483648 and 2147483647\n  at ["pageSize"]`
      )
      expect(yield* failure(V1.ListTasksRequest, { pageSize: "99999999999" })).toContain(`["pageSize"]`)
      expect(yield* failure(V1.ListTasksRequest, { historyLength: 1.5 })).toContain(
        `Expected an integer\n  at ["historyLength"]`
      )
      expect(yield* failure(V1.ListTasksRequest, { historyLength: "ten" })).toContain(`["historyLength"]`)
    }))
})

describe("v1: ProtoJSON field names and unknown fields", () => {
  it.effect("snake_case names are accepted and become camelCase", () =>
    Effect.gen(function*() {
      const decoded = yield* decode(V1.Message, {
        message_id: "m-1",
        context_id: "c-1",
        task_id: "t-1",
        role: "ROLE_USER",
        parts: [{ text: "hi", media_type: "text/plain" }],
        reference_task_ids: ["t-0"]
      })
      expect(decoded).toStrictEqual({
        messageId: "m-1",
        contextId: "c-1",
        taskId: "t-1",
        role: "ROLE_USER",
        parts: [{ text: "hi", mediaType: "text/plain" }],
        referenceTaskIds: ["t-0"]
      })
    }))

  it.effect("the camelCase name wins when both are present", () =>
    Effect.gen(function*() {
      const decoded = yield* decode(V1.Message, { ...message, contextId: "camel", context_id: "snake" })
      expect(decoded.contextId).toBe("camel")
    }))

  it.effect("snake_case names, nulls and zero defaults mix in one object", () =>
    Effect.gen(function*() {
      const decoded = yield* decode(V1.Message, {
        message_id: "m-1",
        contextId: null,
        context_id: "snake",
        task_id: null,
        role: "ROLE_USER",
        parts: [{ text: "hi" }]
      })
      // the JSON name wins even when it is null (not set), as ProtoJSON reads it
      expect(decoded).toStrictEqual(message)
      expect(yield* decode(V1.ListTasksResponse, { next_page_token: null, tasks: null, page_size: "5" })).toStrictEqual(
        { nextPageToken: "", pageSize: 5, tasks: [], totalSize: 0 }
      )
    }))

  it.effect("an own __proto__ key is an unknown field, never the object's prototype", () =>
    Effect.gen(function*() {
      const input = JSON.parse(`{"__proto__": {"messageId": "hidden"}, "role": "ROLE_USER", "parts": [{"text": "x"}]}`)
      expect(yield* failure(V1.Message, input)).toContain(`Missing key\n  at ["messageId"]`)
      // also when the object is copied to rename its snake_case keys
      expect(yield* failure(V1.Message, { ...input, reference_task_ids: ["t"] })).toContain(
        `Missing key\n  at ["messageId"]`
      )
      const withId = JSON.parse(`{"__proto__": {"x": 1}, "message_id": "m-1", "role": 1, "parts": [{"text": "hi"}]}`)
      expect(yield* decode(V1.Message, withId)).toStrictEqual(message)
    }))

  it.effect("snake_case oneof members count as their group's member", () =>
    Effect.gen(function*() {
      const status = { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } }
      const decoded = yield* decode(V1.StreamResponse, { status_update: status })
      expect(decoded).toStrictEqual({ statusUpdate: status })
      expect(yield* failure(V1.StreamResponse, { status_update: status, task: { id: "t" } })).toContain(
        "task and statusUpdate are set"
      )
    }))

  it.effect("unknown fields are ignored and dropped", () =>
    Effect.gen(function*() {
      const decoded = yield* decode(V1.Message, { ...message, kind: "message", futureField: { x: 1 } })
      expect(decoded).toStrictEqual(message)
    }))

  it.effect("null means not set (ProtoJSON), except for a Value, where it is the JSON null", () =>
    Effect.gen(function*() {
      const decoded = yield* decode(V1.Message, { ...message, contextId: null, metadata: null, task_id: null })
      expect(decoded).toStrictEqual(message)
      expect(yield* decode(V1.Part, { text: "t", url: null, mediaType: null })).toStrictEqual({ text: "t" })
      expect(yield* decode(V1.Part, { data: null })).toStrictEqual({ data: null })
      expect(yield* failure(V1.Task, { id: null, status: { state: "TASK_STATE_WORKING" } })).toContain(
        `Missing key\n  at ["id"]`
      )
    }))

  it.effect("encoding emits camelCase only", () =>
    Effect.gen(function*() {
      const decoded = yield* decode(V1.TaskArtifactUpdateEvent, {
        task_id: "t",
        context_id: "c",
        last_chunk: true,
        artifact: { artifact_id: "a", parts: [{ text: "x" }] }
      })
      const encoded = yield* Schema.encodeEffect(V1.TaskArtifactUpdateEvent)(decoded)
      expect(JSON.stringify(encoded)).not.toMatch(/_/)
      expect(encoded).toStrictEqual({
        taskId: "t",
        contextId: "c",
        lastChunk: true,
        artifact: { artifactId: "a", parts: [{ text: "x" }] }
      })
    }))

  it.effect("a non-object is rejected with the message name", () =>
    Effect.gen(function*() {
      expect(yield* failure(V1.Task, "task")).toContain("Expected Task (a JSON object)")
      expect(yield* failure(V1.Task, null)).toContain("Expected Task (a JSON object)")
      expect(yield* failure(V1.Message, [message])).toContain("Expected Message (a JSON object)")
    }))
})

describe("v1: bytes and timestamps", () => {
  it.effect("raw bytes accept URL-safe and unpadded base64 and normalise it", () =>
    Effect.gen(function*() {
      expect(yield* decode(V1.Part, { raw: "aGk" })).toStrictEqual({ raw: "aGk=" })
      expect(yield* decode(V1.Part, { raw: "-_8" })).toStrictEqual({ raw: "+/8=" })
      expect(yield* decode(V1.Part, { raw: "aGk=" })).toStrictEqual({ raw: "aGk=" })
      expect(yield* failure(V1.Part, { raw: "not base64!" })).toContain(`["raw"]`)
      expect(yield* failure(V1.Part, { raw: "a" })).toContain(`["raw"]`)
    }))

  it.effect("timestamps must be RFC 3339", () =>
    Effect.gen(function*() {
      const ok = yield* decode(V1.TaskStatus, { state: "TASK_STATE_WORKING", timestamp: "2025-04-17T17:47:09.680794Z" })
      expect(ok.timestamp).toBe("2025-04-17T17:47:09.680794Z")
      const text = yield* failure(V1.TaskStatus, { state: "TASK_STATE_WORKING", timestamp: "yesterday" })
      expect(text).toContain("an RFC 3339 timestamp")
      expect(text).toContain(`["timestamp"]`)
    }))
})
