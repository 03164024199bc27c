/**
 * The cases where 0.3 and 1.0 do not round-trip, one by one, with what happens to each; and the leniency
 * towards older input shapes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as v0_3 from "../../src/protocol/generated/v0_3.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as AgentCards from "../../src/v0_3/protocol/AgentCards.ts"
import * as Messages from "../../src/v0_3/protocol/Messages.ts"
import * as PushConfigs from "../../src/v0_3/protocol/PushConfigs.ts"
import * as Requests from "../../src/v0_3/protocol/Requests.ts"
import * as Tasks from "../../src/v0_3/protocol/Tasks.ts"
import * as WireInput from "../../src/v0_3/protocol/WireInput.ts"

const roundTripPart = (part: v1.Part) => Messages.toV1Part(Messages.fromV1Part(part))

describe("parts", () => {
  it("text and data parts lose mediaType and filename", () => {
    expect(Messages.fromV1Part({ text: "hi", mediaType: "text/markdown", filename: "a.md" })).toStrictEqual({
      kind: "text",
      text: "hi"
    })
    expect(roundTripPart({ data: { a: 1 }, mediaType: "application/json" })).toStrictEqual({ data: { a: 1 } })
  })

  it("files keep bytes / url, filename and media type", () => {
    expect(Messages.fromV1Part({ raw: "aGk=", filename: "a.txt", mediaType: "text/plain" })).toStrictEqual({
      kind: "file",
      file: { bytes: "aGk=", name: "a.txt", mimeType: "text/plain" }
    })
    expect(Messages.fromV1Part({ url: "https://x/y.png" })).toStrictEqual({
      kind: "file",
      file: { uri: "https://x/y.png" }
    })
  })

  it("non-object data travels wrapped and flagged, and comes back unwrapped", () => {
    for (const data of ["s", 1, true, null, [1, "two"]]) {
      const wire = Messages.fromV1Part({ data, metadata: { k: "v" } })
      expect(wire).toStrictEqual({ kind: "data", data: { value: data }, metadata: { k: "v", data_part_compat: true } })
      expect(Messages.toV1Part(wire)).toStrictEqual({ data, metadata: { k: "v" } })
    }
    // an empty metadata object is not kept (empty and absent maps are the same in proto3)
    expect(roundTripPart({ data: 7, metadata: {} })).toStrictEqual({ data: 7 })
  })

  it("data_part_compat is reserved on data parts", () => {
    // An object value that happens to look wrapped is unwrapped on the way back...
    expect(roundTripPart({ data: { value: 1 }, metadata: { data_part_compat: true } })).toStrictEqual({ data: 1 })
    // ...and a flag with another value is overwritten when the value needs wrapping.
    expect(roundTripPart({ data: 1, metadata: { data_part_compat: "x" } })).toStrictEqual({ data: 1 })
    // A 0.3 peer's flag on a value that is not `{ value }` is dropped, the value kept.
    expect(Messages.toV1Part({ kind: "data", data: { a: 1 }, metadata: { data_part_compat: true } })).toStrictEqual({
      data: { a: 1 }
    })
  })

  it("file bytes in the URL-safe alphabet or unpadded are normalised to standard base64", () => {
    expect(Messages.toV1Part({ kind: "file", file: { bytes: "-_8" } })).toStrictEqual({ raw: "+/8=" })
    expect(WireInput.normalizeBase64("not base64!")).toBeUndefined()
    expect(WireInput.normalizeBase64("abcde")).toBeUndefined()
  })
})

describe("messages and tasks", () => {
  it("ROLE_UNSPECIFIED becomes agent for what a server emits and user for what a client sends", () => {
    const message: v1.Message = { messageId: "m", role: "ROLE_UNSPECIFIED", parts: [{ text: "x" }] }
    expect(Messages.fromV1Message(message).role).toBe("agent")
    expect(Requests.fromV1SendMessageRequest({ message }).message.role).toBe("user")
  })

  it("a task without contextId is sent with an empty one", () => {
    const task: v1.Task = { id: "t", status: { state: "TASK_STATE_WORKING" } }
    expect(Tasks.fromV1Task(task).contextId).toBe("")
    expect(Tasks.toV1Task(Tasks.fromV1Task(task)).contextId).toBe("")
  })

  it("every task state maps one to one, UNSPECIFIED to unknown", () => {
    const states = v0_3.TaskState.literals
    expect(new Set(states.map(Tasks.toV1TaskState)).size).toBe(9)
    for (const s of states) expect(Tasks.fromV1TaskState(Tasks.toV1TaskState(s))).toBe(s)
    expect(Tasks.fromV1TaskState("TASK_STATE_UNSPECIFIED")).toBe("unknown")
    expect(Tasks.toV1TaskState("input-required")).toBe("TASK_STATE_INPUT_REQUIRED")
  })

  it("timestamps: RFC 3339 kept, other readable dates normalised to UTC, unreadable ones dropped", () => {
    expect(Tasks.toV1Timestamp("2025-01-02T03:04:05.123+02:00")).toBe("2025-01-02T03:04:05.123+02:00")
    expect(Tasks.toV1Timestamp("2025-01-02T03:04:05")).toMatch(/^2025-01-0[12]T\d\d:04:05\.000Z$/)
    expect(Tasks.toV1Timestamp("yesterday")).toBeUndefined()
    expect(Tasks.toV1TaskStatus({ state: "working", timestamp: "yesterday" })).toStrictEqual({
      state: "TASK_STATE_WORKING"
    })
  })

  it("final is computed from the state by the stream's rule, and dropped coming back", () => {
    const event = (state: v1.TaskState): v1.TaskStatusUpdateEvent => ({
      taskId: "t",
      contextId: "c",
      status: { state }
    })
    expect(Tasks.fromV1StatusUpdate(event("TASK_STATE_WORKING")).final).toBe(false)
    expect(Tasks.fromV1StatusUpdate(event("TASK_STATE_COMPLETED")).final).toBe(true)
    // a send stream ends at an interrupted state, a subscription does not
    expect(Tasks.fromV1StatusUpdate(event("TASK_STATE_INPUT_REQUIRED"), Tasks.finalForSend).final).toBe(true)
    expect(Tasks.fromV1StatusUpdate(event("TASK_STATE_INPUT_REQUIRED"), Tasks.finalForSubscription).final).toBe(false)
    const back = Tasks.toV1StatusUpdate({ ...Tasks.fromV1StatusUpdate(event("TASK_STATE_WORKING")), final: true })
    expect(back).toStrictEqual(event("TASK_STATE_WORKING"))
  })
})

describe("requests and push configs", () => {
  it("blocking is the inverse of returnImmediately; absent stays absent (both mean: wait)", () => {
    const config = (returnImmediately?: boolean): v1.SendMessageConfiguration =>
      returnImmediately === undefined ? {} : { returnImmediately }
    expect(Requests.fromV1SendConfiguration(config(true))).toStrictEqual({ blocking: false })
    expect(Requests.fromV1SendConfiguration(config(false))).toStrictEqual({ blocking: true })
    expect(Requests.fromV1SendConfiguration(config())).toStrictEqual({})
    expect(Requests.toV1SendConfiguration({ blocking: false })).toStrictEqual({ returnImmediately: true })
  })

  it("tenant has no 0.3 field and is dropped", () => {
    expect(Requests.fromV1GetTaskRequest({ id: "t", tenant: "acme" })).toStrictEqual({ id: "t" })
    expect(PushConfigs.fromV1TaskPushConfig({ taskId: "t", url: "https://h", tenant: "acme" })).toStrictEqual({
      taskId: "t",
      pushNotificationConfig: { url: "https://h" }
    })
    expect(Requests.fromV1SendMessageRequest({
      tenant: "acme",
      message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] }
    })).not.toHaveProperty("tenant")
  })

  it("0.3 request metadata without a 1.0 field is dropped (get, resubscribe)", () => {
    expect(Requests.toV1GetTaskRequest({ id: "t", historyLength: 2, metadata: { a: 1 } })).toStrictEqual({
      id: "t",
      historyLength: 2
    })
    expect(Requests.toV1SubscribeRequest({ id: "t", metadata: { a: 1 } })).toStrictEqual({ id: "t" })
    // cancel keeps it: 1.0 CancelTaskRequest has metadata
    expect(Requests.toV1CancelTaskRequest({ id: "t", metadata: { a: 1 } })).toStrictEqual({
      id: "t",
      metadata: { a: 1 }
    })
  })

  it("push authentication: the first of several schemes is kept; no scheme is an empty one", () => {
    expect(PushConfigs.toV1Authentication({ schemes: ["Bearer", "Basic"], credentials: "c" })).toStrictEqual({
      scheme: "Bearer",
      credentials: "c"
    })
    expect(PushConfigs.toV1Authentication({ schemes: [] })).toStrictEqual({ scheme: "" })
    expect(PushConfigs.fromV1Authentication({ scheme: "" })).toStrictEqual({ schemes: [] })
  })

  it("a push config without taskId is sent with an empty one", () => {
    expect(PushConfigs.fromV1TaskPushConfig({ url: "https://h" }).taskId).toBe("")
  })

  it("pushNotificationConfig/get without a config id has no 1.0 request of its own", () => {
    expect(Requests.toV1GetPushConfig({ id: "t" })).toBeUndefined()
    expect(Requests.toV1GetPushConfig({ id: "t", pushNotificationConfigId: "c" })).toStrictEqual({
      taskId: "t",
      id: "c"
    })
  })
})

describe("agent cards", () => {
  const base: v1.AgentCard = {
    name: "a",
    description: "d",
    version: "1",
    supportedInterfaces: [
      { url: "http://h/", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://h/", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "http://h/", protocolBinding: "JSONRPC", protocolVersion: "0.3" }
    ],
    capabilities: { streaming: true, extendedAgentCard: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s", name: "s", description: "d", tags: ["t"] }]
  }

  it("0.3 endpoints are the 0.x interfaces; the hybrid card also lists every 1.0 interface", () => {
    const card = AgentCards.hybridCard(base)
    expect(card).toMatchObject({
      url: "http://h/",
      preferredTransport: "JSONRPC",
      // the 0.3 schema's AgentCard.protocolVersion default, what 0.3 peers send and expect
      protocolVersion: "0.3.0",
      additionalInterfaces: [{ url: "http://h/", transport: "JSONRPC" }],
      supportsAuthenticatedExtendedCard: true,
      capabilities: { streaming: true },
      supportedInterfaces: base.supportedInterfaces
    })
    expect(card.capabilities).not.toHaveProperty("extendedAgentCard")
  })

  it("each 0.3 interface is listed once, however many 0.x versions it serves (0.3 and 0.1 on one JSON-RPC URL)", () => {
    const card = AgentCards.fromV1AgentCard({
      ...base,
      supportedInterfaces: [
        ...base.supportedInterfaces,
        { url: "http://h/rest", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
        { url: "http://h/", protocolBinding: "JSONRPC", protocolVersion: "0.1" }
      ]
    })
    expect(card.url).toBe("http://h/")
    expect(card.preferredTransport).toBe("JSONRPC")
    expect(card.additionalInterfaces).toStrictEqual([
      { url: "http://h/", transport: "JSONRPC" },
      { url: "http://h/rest", transport: "HTTP+JSON" }
    ])
  })

  it("a card without a 0.x interface advertises its interfaces as they are", () => {
    const card = AgentCards.fromV1AgentCard({ ...base, supportedInterfaces: base.supportedInterfaces.slice(0, 2) })
    expect(card.additionalInterfaces).toStrictEqual([
      { url: "http://h/", transport: "JSONRPC" },
      { url: "http://h/", transport: "HTTP+JSON" }
    ])
  })

  it("a 0.3 card reads as 1.0: main endpoint first, versions stamped, extended card moved", () => {
    const card = AgentCards.toV1AgentCard({
      name: "a",
      description: "d",
      version: "1",
      url: "http://h/rpc",
      protocolVersion: "0.3.0",
      additionalInterfaces: [{ url: "http://h/rpc", transport: "JSONRPC" }, {
        url: "http://h/rest",
        transport: "HTTP+JSON"
      }],
      capabilities: { streaming: true, stateTransitionHistory: true },
      supportsAuthenticatedExtendedCard: true,
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
      security: [{ oauth: ["read"] }]
    })
    expect(card.supportedInterfaces).toStrictEqual([
      { url: "http://h/rpc", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: "http://h/rest", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
    ])
    expect(card.capabilities).toStrictEqual({ streaming: true, extendedAgentCard: true })
    expect(card.securityRequirements).toStrictEqual([{ schemes: { oauth: { list: ["read"] } } }])
  })

  it("OAuth: device code and pkceRequired have no 0.3 form; several 0.3 flows keep the first", () => {
    expect(AgentCards.fromV1SecurityScheme({
      oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: "d", tokenUrl: "t", scopes: {} } } }
    })).toStrictEqual({ type: "oauth2", flows: {} })
    expect(AgentCards.toV1SecurityScheme({ type: "oauth2", flows: {} })).toBeUndefined()
    expect(AgentCards.fromV1SecurityScheme({
      oauth2SecurityScheme: {
        flows: { authorizationCode: { authorizationUrl: "a", tokenUrl: "t", scopes: {}, pkceRequired: true } }
      }
    })).toStrictEqual({
      type: "oauth2",
      flows: { authorizationCode: { authorizationUrl: "a", tokenUrl: "t", scopes: {} } }
    })
    expect(AgentCards.toV1SecurityScheme({
      type: "oauth2",
      flows: {
        implicit: { authorizationUrl: "i", scopes: {} },
        clientCredentials: { tokenUrl: "c", scopes: {} }
      }
    })).toStrictEqual({ oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "c", scopes: {} } } } })
  })

  it("API key locations outside query / header / cookie are sent as header", () => {
    expect(AgentCards.fromV1SecurityScheme({ apiKeySecurityScheme: { location: "Query", name: "k" } })).toStrictEqual({
      type: "apiKey",
      in: "query",
      name: "k"
    })
    expect(AgentCards.fromV1SecurityScheme({ apiKeySecurityScheme: { location: "path", name: "k" } })).toMatchObject({
      in: "header"
    })
  })

  it("extensions without uri are not advertised to 0.3 clients", () => {
    const card = AgentCards.fromV1AgentCard({
      ...base,
      capabilities: { extensions: [{ description: "no uri" }, { uri: "urn:x", required: true }] }
    })
    expect(card.capabilities.extensions).toStrictEqual([{ uri: "urn:x", required: true }])
  })
})

describe("older input shapes", () => {
  const decodeSend = WireInput.decoder(v0_3.MessageSendParams, { prepare: WireInput.normalizeSendParams })

  it("parts with `type` instead of `kind`, and a message without `kind`, are accepted", () => {
    const decoded = decodeSend({
      message: {
        messageId: "m",
        role: "user",
        parts: [{ type: "text", text: "hi" }, { type: "file", file: { uri: "https://f" } }, { type: "data", data: {} }]
      }
    })
    expect(Result.isSuccess(decoded)).toBe(true)
    if (Result.isSuccess(decoded)) {
      expect(decoded.success.message.parts.map((p) => p.kind)).toStrictEqual(["text", "file", "data"])
      expect(decoded.success.message.kind).toBe("message")
    }
  })

  it("kind wins over type; unknown kinds are refused with the field named", () => {
    const decoded = decodeSend({
      message: { kind: "message", messageId: "m", role: "user", parts: [{ type: "text", kind: "video", text: "x" }] }
    })
    expect(Result.isFailure(decoded)).toBe(true)
    if (Result.isFailure(decoded)) {
      expect(decoded.failure._tag).toBe("InvalidParams")
      expect(decoded.failure.fieldViolations?.some((v) => v.field.startsWith("message.parts[0]"))).toBe(true)
    }
  })

  it("bytes that are not base64 are refused with the 0.3 field path", () => {
    const decode = WireInput.decoder(v0_3.MessageSendParams, {
      prepare: WireInput.normalizeSendParams,
      check: (p) => WireInput.checkMessageBytes(p.message, "message")
    })
    const decoded = decode({
      message: { messageId: "m", role: "user", parts: [{ kind: "file", file: { bytes: "%%%" } }] }
    })
    expect(Result.isFailure(decoded)).toBe(true)
    if (Result.isFailure(decoded)) {
      expect(decoded.failure.fieldViolations).toStrictEqual([
        { field: "message.parts[0].file.bytes", description: "Must be base64-encoded bytes" }
      ])
    }
  })

  it("normalising leaves inputs that need nothing untouched (no copy)", () => {
    const input = { message: { kind: "message", parts: [{ kind: "text", text: "x" }] }, other: [1, { a: 2 }] }
    expect(WireInput.normalizeParts(input)).toBe(input)
  })
})
