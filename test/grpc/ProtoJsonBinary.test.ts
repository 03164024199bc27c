/**
 * The one-pass binary <-> ProtoJSON codec against @bufbuild/protobuf's two passes (the oracle): the same bytes
 * and the same JSON for A2A's messages, `undefined` (the caller's fallback) for what it leaves to the oracle,
 * and never an answer where the oracle fails or answers otherwise (bytes mutated at random).
 */
import {
  type DescMessage,
  fromBinary,
  fromJson,
  fromJsonString,
  type JsonValue,
  toBinary,
  toJson
} from "@bufbuild/protobuf"
import { assert, describe, it } from "@effect/vitest"
import * as ProtoJsonBinary from "../../src/grpc/internal/ProtoJsonBinary.ts"
import { file_a2a } from "../../src/protocol/generated/v1Proto.ts"

/** One converter for the file, as a server keeps one: its codecs and writer reused from test to test. */
const converter = ProtoJsonBinary.make()

const desc = (name: string): DescMessage => {
  const found = file_a2a.messages.find((m) => m.name === name)
  if (found === undefined) throw new Error(name)
  return found
}

/** What the binding did before: the value as it is, or through JSON text when it holds `undefined`. */
const oracleEncode = (d: DescMessage, json: unknown) => {
  const options = { ignoreUnknownFields: true }
  try {
    return toBinary(d, fromJson(d, json as JsonValue, options))
  } catch {
    return toBinary(d, fromJsonString(d, JSON.stringify(json), options))
  }
}

const oracleDecode = (d: DescMessage, bytes: Uint8Array) => toJson(d, fromBinary(d, bytes))

const message = {
  messageId: "m-1",
  contextId: "c-1",
  taskId: "t-1",
  role: "ROLE_AGENT",
  parts: [
    { text: "hello", mediaType: "text/plain" },
    { url: "https://example.com/a.png", filename: "a.png", metadata: { n: 1 } },
    { data: { nested: { list: [1, "two", true, null, { x: -1.5 }] }, empty: {}, none: null } },
    { text: "" }
  ],
  metadata: { trace: "abc", count: 3, on: false, ratio: 0.25, ünï: "çödé 🚀" },
  extensions: ["https://example.com/ext/1", "https://example.com/ext/2"],
  referenceTaskIds: ["t-0"]
}

const task = {
  id: "t-1",
  contextId: "c-1",
  status: {
    state: "TASK_STATE_COMPLETED",
    message,
    timestamp: "2026-11-26T15:16:39.491Z"
  },
  artifacts: [
    { artifactId: "a-1", name: "result", description: "", parts: [{ text: "chunk" }], extensions: [] },
    { artifactId: "a-2", parts: [{ text: "x" }], metadata: {} }
  ],
  history: [message, { ...message, messageId: "m-2", role: "ROLE_USER", metadata: undefined }],
  metadata: { k: [] }
}

const card = {
  name: "agent",
  description: "an agent",
  supportedInterfaces: [{ url: "127.0.0.1:1", protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "" }],
  provider: { url: "https://example.com", organization: "org" },
  version: "1.0.0",
  documentationUrl: "",
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extensions: [{ uri: "urn:x", required: true, params: { a: 1 } }]
  },
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: "header", name: "X-Key" } },
    oauth: {
      oauth2SecurityScheme: {
        flows: { authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: { r: "read" } } }
      }
    }
  },
  securityRequirements: [{ schemes: { key: { list: [] }, oauth: { list: ["r"] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "skill", description: "d", tags: ["t"], examples: [] }],
  iconUrl: "https://example.com/i.png"
}

/** A2A values the server reads and writes, by message. */
const samples: ReadonlyArray<readonly [string, unknown]> = [
  ["GetTaskRequest", { id: "t-1" }],
  ["GetTaskRequest", { id: "t-1", historyLength: 0, tenant: "x" }],
  ["SendMessageRequest", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } }],
  ["SendMessageRequest", {
    tenant: "",
    message,
    configuration: {
      acceptedOutputModes: ["text/plain"],
      historyLength: 3,
      returnImmediately: false,
      taskPushNotificationConfig: { url: "https://hook", token: "tok", authentication: { scheme: "Bearer" } }
    },
    metadata: { a: "b" }
  }],
  ["ListTasksRequest", {
    contextId: "c",
    status: "TASK_STATE_WORKING",
    pageSize: 10,
    statusTimestampAfter: "2026-01-02T03:04:05.123456789Z",
    includeArtifacts: true
  }],
  ["ListTasksRequest", { status: "TASK_STATE_UNSPECIFIED", statusTimestampAfter: "1970-01-01T00:00:00Z" }],
  ["ListTasksRequest", { statusTimestampAfter: "1969-12-31T23:59:59.5+01:00" }],
  ["ListTaskPushNotificationConfigsRequest", { taskId: "t", tenant: "x", pageSize: 2, pageToken: "p" }],
  ["Task", task],
  ["Task", { id: "t", contextId: "c", status: { state: "TASK_STATE_SUBMITTED" } }],
  ["Task", {}],
  ["Message", message],
  ["SendMessageResponse", { task }],
  ["SendMessageResponse", { message }],
  ["StreamResponse", { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } }],
  ["StreamResponse", {
    artifactUpdate: { taskId: "t", contextId: "c", artifact: task.artifacts[0], append: true, lastChunk: false }
  }],
  ["ListTasksResponse", { tasks: [task, task], nextPageToken: "n", pageSize: 2, totalSize: 40 }],
  ["TaskPushNotificationConfig", { id: "p", taskId: "t", url: "https://hook", token: "" }],
  ["ListTaskPushNotificationConfigsResponse", { configs: [{ id: "p", url: "u" }] }],
  ["AgentCard", card],
  ["Task", { id: "t", unknownKey: 1, status: { state: "TASK_STATE_FAILED", other: [1] } }]
]

describe("ProtoJsonBinary", () => {
  it("writes the oracle's bytes and reads them back as the oracle's JSON", () => {
    for (const [name, json] of samples) {
      const d = desc(name)
      const expected = oracleEncode(d, json)
      const bytes = converter.encode(d, json)
      assert.isDefined(bytes, `${name} encodes`)
      assert.deepStrictEqual(bytes, expected, `${name} bytes`)
      const back = converter.decode(d, expected)
      assert.isDefined(back, `${name} decodes`)
      assert.deepStrictEqual(back, oracleDecode(d, expected), `${name} JSON`)
      // the key order too (what a Schema sees first)
      assert.deepStrictEqual(JSON.stringify(back), JSON.stringify(oracleDecode(d, expected)), `${name} order`)
    }
  })

  it("writes timestamps as the oracle does, at the edges of the range too", () => {
    const status = desc("TaskStatus")
    const stamps = [
      "2026-11-26T15:16:39.491Z",
      "2026-11-26T15:16:39.000Z",
      "1970-01-01T00:00:00.000Z",
      "1969-12-31T23:59:59.500Z",
      "0001-01-01T00:00:00.000Z",
      "9999-12-31T23:59:59.999Z",
      "2026-11-26T15:16:39.4Z",
      "2026-11-26T15:16:39.123456Z",
      "2026-11-26T15:16:39+02:00",
      "2026-02-30T00:00:00.000Z",
      "0000-12-31T23:59:59.999Z",
      "2026-11-26 15:16:39.491Z"
    ]
    for (const timestamp of stamps) {
      const json = { state: "TASK_STATE_WORKING", timestamp }
      const ours = converter.encode(status, json)
      let oracle: Uint8Array | undefined
      try {
        oracle = oracleEncode(status, json)
      } catch {
        oracle = undefined
      }
      if (oracle === undefined) assert.isUndefined(ours, timestamp)
      else if (ours !== undefined) {
        assert.deepStrictEqual(ours, oracle, timestamp)
        assert.deepStrictEqual(converter.decode(status, ours), oracleDecode(status, oracle), timestamp)
      }
    }
    assert.isDefined(converter.encode(status, { timestamp: stamps[0] }))
  })

  it("reads google.protobuf.Empty", () => {
    const method = file_a2a.services[0]!.methods.find((m) => m.name === "DeleteTaskPushNotificationConfig")!
    assert.deepStrictEqual(converter.encode(method.output, {}), new Uint8Array())
    assert.deepStrictEqual(converter.decode(method.output, new Uint8Array()), {})
  })

  it("leaves to the oracle what it does not take", () => {
    const send = desc("SendMessageRequest")
    const withPart = (part: unknown) => ({ message: { messageId: "m", role: "ROLE_USER", parts: [part] } })
    const leftOut: ReadonlyArray<readonly [DescMessage, unknown]> = [
      [send, withPart({ raw: "aGk=" })], // bytes
      [send, withPart({ data: null })], // NULL_VALUE
      [send, withPart({ text: "a", url: "b" })], // two members of a oneof
      [send, withPart({ text: "\ud800" })], // a lone surrogate
      [send, withPart({ text: "a", metadata: { x: Infinity } })],
      [send, withPart({ text: "a", metadata: { x: undefined } })],
      [send, { message: { message_id: "m", role: "ROLE_USER", parts: [{ text: "a" }] } }], // a proto name
      [send, { message: { messageId: "m", role: "ROLE_NOBODY", parts: [{ text: "a" }] } }], // unknown enum
      [send, { message: { messageId: "m", role: 1, parts: [{ text: "a" }] } }], // an enum by number
      [desc("GetTaskRequest"), { id: "t", historyLength: "2" }], // a number in a string
      [desc("GetTaskRequest"), { id: "t", historyLength: 2 ** 31 }],
      [desc("GetTaskRequest"), { id: 42 }],
      [desc("GetTaskRequest"), { id: null }],
      [desc("ListTasksRequest"), { statusTimestampAfter: "2026-01-01" }],
      [desc("Task"), { history: [null] }],
      [desc("Task"), new Date()]
    ]
    for (const [d, json] of leftOut) {
      assert.isUndefined(converter.encode(d, json), JSON.stringify(json))
      // a write given up half-way leaves nothing behind for the next one
      assert.deepStrictEqual(converter.encode(desc("Task"), task), oracleEncode(desc("Task"), task))
    }
  })

  it("two converters share nothing: each compiles its own codecs and keeps its own writer", () => {
    const other = ProtoJsonBinary.make()
    const d = desc("Task")
    // one converter left mid-message by a failed write answers as one that never wrote
    assert.isUndefined(other.encode(d, { history: [null] }))
    assert.deepStrictEqual(other.encode(d, task), converter.encode(d, task))
    assert.deepStrictEqual(other.decode(d, oracleEncode(d, task)), converter.decode(d, oracleEncode(d, task)))
  })

  it("writes a large message, then small ones, as the oracle does", () => {
    const big = { ...task, artifacts: [{ artifactId: "a", parts: [{ text: "x".repeat(100_000) }] }] }
    for (const json of [big, task, big, { id: "t" }]) {
      assert.deepStrictEqual(converter.encode(desc("Task"), json), oracleEncode(desc("Task"), json))
    }
  })

  it("reads bytes, unknown enum numbers and unknown fields as the oracle does, or leaves them to it", () => {
    const part = desc("Part")
    const raw = oracleEncode(part, { raw: "aGk=" })
    assert.isUndefined(converter.decode(part, raw))
    const status = desc("TaskStatus")
    const unknownState = new Uint8Array([0x08, 0x63]) // state = 99
    assert.isUndefined(converter.decode(status, unknownState))
    // an unknown field (number 15, a string) is skipped, as toJson leaves it out
    const withUnknown = new Uint8Array([...oracleEncode(status, { state: "TASK_STATE_WORKING" }), 0x7a, 0x01, 0x41])
    assert.deepStrictEqual(converter.decode(status, withUnknown), oracleDecode(status, withUnknown))
    // two members of a oneof: the last wins in the oracle
    const twoMembers = new Uint8Array([0x0a, 0x01, 0x61, 0x1a, 0x01, 0x62])
    assert.isUndefined(converter.decode(part, twoMembers))
  })

  it("never answers where the oracle fails or answers otherwise (mutated messages)", () => {
    let seed = 42
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    let decoded = 0
    for (const [name, json] of samples) {
      const d = desc(name)
      const bytes = oracleEncode(d, json)
      for (let i = 0; i < 300; i++) {
        const mutated = bytes.slice(0, bytes.length - (random(4) === 0 ? random(bytes.length + 1) : 0))
        for (let k = random(3) + 1; k > 0 && mutated.length > 0; k--) mutated[random(mutated.length)] = random(256)
        const ours = converter.decode(d, mutated)
        if (ours === undefined) continue
        decoded++
        let oracle: unknown
        try {
          oracle = oracleDecode(d, mutated)
        } catch (e) {
          assert.fail(
            `${name}: decoded what the oracle refuses (${String(e)}): ${Buffer.from(mutated).toString("hex")}`
          )
        }
        assert.deepStrictEqual(ours, oracle, `${name}: ${Buffer.from(mutated).toString("hex")}`)
      }
    }
    // most mutations still parse: the comparison is not vacuous
    assert.isAbove(decoded, 500)
  })
})
