/**
 * The 0.3 HTTP+JSON (ProtoJSON) forms: what a server writes, a client reads back as the same 1.0 value, up to
 * what 0.3 REST cannot carry (listed in `expressible` and in the explicit cases below).
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Option, Result, Schema } from "effect"
import { deepStrictEqual } from "node:assert"
import * as v1 from "../../src/protocol/generated/v1.ts"
import * as ProtoJson from "../../src/v0_3/protocol/ProtoJson.ts"

const same = (actual: unknown, expected: unknown) => deepStrictEqual(structuredClone(actual), structuredClone(expected))

const isObject = (u: unknown) => typeof u === "object" && u !== null && !Array.isArray(u)

// --- What survives 0.3 REST ---

const part = (p: v1.Part): v1.Part =>
  "text" in p
    ? { text: p.text }
    : "raw" in p
    ? { raw: p.raw, ...(p.mediaType ? { mediaType: p.mediaType } : {}) }
    : "url" in p
    ? { url: p.url, ...(p.mediaType ? { mediaType: p.mediaType } : {}) }
    : { data: isObject(p.data) ? p.data : { value: p.data } }

const message = (m: v1.Message): v1.Message => ({
  messageId: m.messageId,
  role: m.role,
  parts: m.parts.map(part),
  ...(m.contextId ? { contextId: m.contextId } : {}),
  ...(m.taskId ? { taskId: m.taskId } : {}),
  ...(m.metadata !== undefined ? { metadata: m.metadata } : {}),
  ...(m.extensions !== undefined && m.extensions.length > 0 ? { extensions: m.extensions } : {})
})

const status = (s: v1.TaskStatus): v1.TaskStatus => ({
  state: s.state,
  ...(s.message !== undefined ? { message: message(s.message) } : {}),
  ...(s.timestamp ? { timestamp: s.timestamp } : {})
})

const artifact = (a: v1.Artifact): v1.Artifact => ({
  artifactId: a.artifactId,
  parts: a.parts.map(part),
  ...(a.name ? { name: a.name } : {}),
  ...(a.description ? { description: a.description } : {}),
  ...(a.metadata !== undefined ? { metadata: a.metadata } : {}),
  ...(a.extensions !== undefined && a.extensions.length > 0 ? { extensions: a.extensions } : {})
})

const task = (t: v1.Task): v1.Task => ({
  id: t.id,
  contextId: t.contextId ?? "",
  status: status(t.status),
  ...(t.artifacts !== undefined && t.artifacts.length > 0 ? { artifacts: t.artifacts.map(artifact) } : {}),
  ...(t.history !== undefined && t.history.length > 0 ? { history: t.history.map(message) } : {}),
  ...(t.metadata !== undefined ? { metadata: t.metadata } : {})
})

// The A2A 1.1 draft's generation has no place in 0.3 (a task's is left out by `task` above).
const withoutGeneration = <A extends { readonly generation?: number }>(a: A): Omit<A, "generation"> => {
  const { generation: _, ...rest } = a
  return rest
}

const expressible = (e: v1.StreamResponse): v1.StreamResponse =>
  "task" in e
    ? { task: task(e.task) }
    : "message" in e
    ? { message: message(e.message) }
    : "statusUpdate" in e
    ? { statusUpdate: { ...withoutGeneration(e.statusUpdate), status: status(e.statusUpdate.status) } }
    : { artifactUpdate: { ...withoutGeneration(e.artifactUpdate), artifact: artifact(e.artifactUpdate.artifact) } }

// Through JSON text, as on the wire.
const wire = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

const decodeEvent = Schema.decodeUnknownSync(ProtoJson.ProtoStreamResponse)

// JSON drops `undefined` and turns -0 into 0: keep values JSON can carry.
const jsonSafe = (e: v1.StreamResponse) => {
  try {
    same(wire(e), e)
    return true
  } catch {
    return false
  }
}

describe("0.3 REST (ProtoJSON)", () => {
  it.prop(
    "a stream event written by the server reads back as the 1.0 event 0.3 REST can carry",
    [Arbitrary.filter(Arbitrary.schema(v1.StreamResponse), jsonSafe)],
    ([event]) => {
      const written = wire(ProtoJson.fromV1StreamResponse(event))
      same(ProtoJson.toV1StreamResponse(decodeEvent(written)), expressible(event))
    }
  )

  it("CANCELED is written TASK_STATE_CANCELLED and read either way; states may also be numbers", () => {
    const canceled: v1.Task = { id: "t", contextId: "c", status: { state: "TASK_STATE_CANCELED" } }
    expect(ProtoJson.fromV1Task(canceled)).toMatchObject({ status: { state: "TASK_STATE_CANCELLED" } })
    const read = Schema.decodeUnknownSync(ProtoJson.ProtoTask)
    expect(ProtoJson.toV1Task(read({ id: "t", status: { state: "TASK_STATE_CANCELED" } })).status.state).toBe(
      "TASK_STATE_CANCELED"
    )
    expect(ProtoJson.toV1Task(read({ id: "t", status: { state: 6 } })).status.state).toBe("TASK_STATE_INPUT_REQUIRED")
    // proto3 writers omit defaults: a bare task is UNSPECIFIED with an empty context
    expect(ProtoJson.toV1Task(read({ id: "t" }))).toStrictEqual({
      id: "t",
      contextId: "",
      status: { state: "TASK_STATE_UNSPECIFIED" }
    })
  })

  it("a send request: proto names accepted, defaults read as absence, blocking as a proto3 bool", () => {
    const request = ProtoJson.decodeSendMessageRequest({
      request: {
        message_id: "m",
        context_id: "",
        role: 1,
        content: [{ text: "hi" }, { file: { file_with_uri: "https://f", mime_type: "" } }, {
          data: { data: { k: 1 } }
        }],
        metadata: { keep_me: 1 }
      },
      configuration: { history_length: 0 }
    })
    expect(request).toStrictEqual(Result.succeed({
      message: {
        messageId: "m",
        role: "ROLE_USER",
        parts: [{ text: "hi" }, { url: "https://f" }, { data: { k: 1 } }],
        metadata: { keep_me: 1 }
      },
      configuration: { returnImmediately: true }
    }))
    const waits = ProtoJson.decodeSendMessageRequest({ message: { messageId: "m", role: "ROLE_USER", content: [] } })
    expect(Result.isSuccess(waits) && waits.success.configuration).toBeUndefined()
  })

  it("a client's request always says whether it blocks; ROLE_UNSPECIFIED goes out as ROLE_USER", () => {
    const body = ProtoJson.toProtoSendMessageRequest({
      message: { messageId: "m", role: "ROLE_UNSPECIFIED", parts: [{ text: "x" }], referenceTaskIds: ["a"] }
    })
    expect(body).toStrictEqual({
      message: { messageId: "m", role: "ROLE_USER", content: [{ text: "x" }] },
      configuration: { blocking: true }
    })
  })

  it("push configs: the name carries task and config ids", () => {
    const written = ProtoJson.fromV1PushConfig({ taskId: "t", id: "c", url: "https://h", token: "k" })
    expect(written).toStrictEqual({
      name: "tasks/t/pushNotificationConfigs/c",
      pushNotificationConfig: { url: "https://h", id: "c", token: "k" }
    })
    const read = Schema.decodeUnknownSync(ProtoJson.ProtoTaskPushConfig)
    expect(
      ProtoJson.toV1TaskPushConfig(
        read({ name: "tasks/t/pushNotificationConfigs/c", pushNotificationConfig: { url: "u" } }),
        "x"
      )
    )
      .toStrictEqual({ url: "u", taskId: "t", id: "c" })
  })

  it("the proto card keeps 1.0 security forms and drops what 0.3 cannot say", () => {
    const card: v1.AgentCard = {
      name: "a",
      description: "d",
      version: "1",
      iconUrl: "https://icon",
      supportedInterfaces: [{ url: "http://h", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }],
      capabilities: { extendedAgentCard: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{
        id: "s",
        name: "s",
        description: "d",
        tags: ["t"],
        securityRequirements: [{ schemes: { k: { list: [] } } }]
      }],
      securitySchemes: {
        k: { apiKeySecurityScheme: { location: "header", name: "X-Key" } },
        device: {
          oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: "d", tokenUrl: "t", scopes: {} } } }
        }
      },
      securityRequirements: [{ schemes: { k: { list: [] } } }]
    }
    const written = wire(ProtoJson.fromV1AgentCard(card))
    expect(written).not.toHaveProperty("iconUrl")
    expect(written).toMatchObject({
      url: "http://h",
      preferredTransport: "HTTP+JSON",
      supportsAuthenticatedExtendedCard: true,
      securitySchemes: { k: { apiKeySecurityScheme: { location: "header", name: "X-Key" } } },
      security: [{ schemes: { k: { list: [] } } }]
    })
    expect(Object.keys((written as { securitySchemes: object }).securitySchemes)).toEqual(["k"])
    const read = ProtoJson.toV1AgentCard(written)
    expect(Option.isSome(read) && read.value).toMatchObject({
      securitySchemes: { k: { apiKeySecurityScheme: { location: "header", name: "X-Key" } } },
      securityRequirements: [{ schemes: { k: { list: [] } } }],
      skills: [{ id: "s", securityRequirements: [{ schemes: { k: { list: [] } } }] }],
      capabilities: { extendedAgentCard: true }
    })
    expect(ProtoJson.toV1AgentCard({ name: 1 })).toStrictEqual(Option.none())
  })

  it("a proto card written with the proto field names reads as the one with the JSON names", () => {
    const camel = {
      protocolVersion: "0.3.0",
      name: "a",
      description: "d",
      url: "http://h",
      preferredTransport: "HTTP+JSON",
      additionalInterfaces: [{ url: "http://h/rpc", transport: "JSONRPC" }],
      version: "1",
      documentationUrl: "https://docs",
      capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: "u", params: { snake_key: 1 } }] },
      securitySchemes: {
        o: {
          oauth2SecurityScheme: {
            flows: { clientCredentials: { tokenUrl: "https://t", scopes: { read_all: "r" } } },
            oauth2MetadataUrl: "https://m"
          }
        },
        h: { httpAuthSecurityScheme: { scheme: "bearer", bearerFormat: "JWT" } }
      },
      security: [{ schemes: { o: { list: ["read_all"] } } }],
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["application/json"],
      skills: [{ id: "s", name: "s", description: "d", tags: ["t"], inputModes: ["text/plain"], security: [] }],
      supportsAuthenticatedExtendedCard: true
    }
    const snake = {
      protocol_version: "0.3.0",
      name: "a",
      description: "d",
      url: "http://h",
      preferred_transport: "HTTP+JSON",
      additional_interfaces: [{ url: "http://h/rpc", transport: "JSONRPC" }],
      version: "1",
      documentation_url: "https://docs",
      capabilities: { streaming: true, push_notifications: true, extensions: [{ uri: "u", params: { snake_key: 1 } }] },
      security_schemes: {
        o: {
          oauth2_security_scheme: {
            flows: { client_credentials: { token_url: "https://t", scopes: { read_all: "r" } } },
            oauth2_metadata_url: "https://m"
          }
        },
        h: { http_auth_security_scheme: { scheme: "bearer", bearer_format: "JWT" } }
      },
      security: [{ schemes: { o: { list: ["read_all"] } } }],
      default_input_modes: ["text/plain"],
      default_output_modes: ["application/json"],
      skills: [{ id: "s", name: "s", description: "d", tags: ["t"], input_modes: ["text/plain"], security: [] }],
      supports_authenticated_extended_card: true
    }
    const read = ProtoJson.toV1AgentCard(camel)
    expect(Option.isSome(read) && read.value).toMatchObject({
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      securitySchemes: { h: { httpAuthSecurityScheme: { scheme: "bearer", bearerFormat: "JWT" } } },
      securityRequirements: [{ schemes: { o: { list: ["read_all"] } } }],
      skills: [{ id: "s", inputModes: ["text/plain"], securityRequirements: [] }]
    })
    same(ProtoJson.toV1AgentCard(snake), read)
    // a malformed field is no card
    expect(ProtoJson.toV1AgentCard({ ...camel, capabilities: { streaming: "yes" } })).toStrictEqual(Option.none())
  })
})
