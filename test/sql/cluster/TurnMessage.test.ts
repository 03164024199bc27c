/**
 * The Turn's and its outcome's wire format (#42): the v1 fields are written as they are rather than walked by their
 * Schemas, and read as before. Against a copy of the Schemas as they were (2f51e20), for a varied sample: the same
 * JSON, byte for byte, for values in the Schemas' key order (what the Schemas decode); the same JSON value in
 * another key order; what either version wrote read alike by the other; a malformed Turn or outcome refused with
 * the same error; the credentials of the call still never written. Encoded and decoded as Effect's engine does
 * (the Rpc's payload and its reply through `Schema.toCodecJson`, then JSON).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Reply from "effect/cluster/Reply"
import * as Snowflake from "effect/cluster/Snowflake"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { Rpc } from "effect/rpc"
import type * as RpcSerialization from "effect/rpc/RpcSerialization"
import * as Schema from "effect/Schema"
import { A2AError, TaskNotFound } from "../../../src/protocol/A2AError.ts"
import * as v1 from "../../../src/protocol/generated/v1.ts"
import * as CallContext from "../../../src/server/CallContext.ts"
import type { StartOptions } from "../../../src/server/TurnDispatch.ts"
import { requestOf, Turn, type TurnOutcome } from "../../../src/sql/cluster/TurnMessage.ts"

// --- The Schemas as they were at 2f51e20 (every field walked on encode), the other version of a node ---

const OldCall = Schema.Struct({
  principal: Schema.Struct({
    id: Schema.String,
    anonymous: Schema.Boolean,
    scheme: Schema.optional(Schema.String)
  }),
  requestedVersion: Schema.String,
  extensions: Schema.Array(Schema.String),
  headers: Schema.Record(Schema.String, Schema.String),
  interfaces: Schema.optional(Schema.Array(v1.AgentInterface)),
  origin: Schema.optional(Schema.String),
  binding: Schema.optional(Schema.String),
  namesTasks: Schema.optional(Schema.Boolean)
})
const OldTurnOutcome = Schema.Union([
  Schema.TaggedStruct("Reply", { message: v1.Message }),
  Schema.TaggedStruct("Task", { task: v1.Task })
])
class OldTurnRequest extends Schema.Class<OldTurnRequest>("effect-a2a/TurnRequest@2f51e20")({
  message: v1.Message,
  owner: Schema.String,
  tenant: Schema.String,
  call: OldCall,
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  configuration: Schema.optional(v1.SendMessageConfiguration),
  pushConfig: Schema.optional(v1.TaskPushNotificationConfig),
  newTaskId: Schema.optional(Schema.String)
}) {}
const OldTurn = Rpc.make("Turn", { payload: OldTurnRequest, success: OldTurnOutcome, error: A2AError })

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key|api-key)$/i
const oldRequestOf = (options: StartOptions, newTaskId: string | undefined): OldTurnRequest => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(options.call.headers)) if (!SECRET_HEADER.test(name)) headers[name] = value
  return new OldTurnRequest({
    message: options.message,
    owner: options.owner,
    tenant: options.tenant,
    call: { ...options.call, headers },
    metadata: options.metadata,
    configuration: options.configuration,
    pushConfig: options.pushConfig,
    newTaskId
  })
}

// --- The engine's encodings (Message.serializeRequest, Reply.serialize, SqlMessageStorage's JSON) ---

const codecFor: RpcSerialization.CodecFor = (schema) => Schema.toCodecJson(schema)
const oldPayload = codecFor(OldTurn.payloadSchema)
const newPayload = codecFor(Turn.payloadSchema)
const written = (encoded: unknown): string => JSON.stringify(encoded)

const encodeRequest = {
  old: (request: OldTurnRequest) => written(Schema.encodeSync(oldPayload)(request)),
  new: (request: ReturnType<typeof requestOf>) => written(Schema.encodeSync(newPayload)(request))
}
const decodeRequest = {
  old: (json: string) => Schema.decodeUnknownExit(oldPayload)(JSON.parse(json)),
  new: (json: string) => Schema.decodeUnknownExit(newPayload)(JSON.parse(json))
}
const requestId = Snowflake.Snowflake(1n)
const replyId = Snowflake.Snowflake(2n)
const encodeReply = {
  old: (exit: Exit.Exit<TurnOutcome, A2AError>) =>
    written(
      Schema.encodeSync(Reply.Reply(OldTurn, codecFor))(
        new Reply.WithExit<typeof OldTurn>({ requestId, id: replyId, exit })
      )
    ),
  new: (exit: Exit.Exit<TurnOutcome, A2AError>) =>
    written(
      Schema.encodeSync(Reply.Reply(Turn, codecFor))(
        new Reply.WithExit<typeof Turn>({ requestId, id: replyId, exit })
      )
    )
}
const decodeReply = {
  old: (json: string) => Schema.decodeUnknownExit(Reply.Reply(OldTurn, codecFor))(JSON.parse(json)),
  new: (json: string) => Schema.decodeUnknownExit(Reply.Reply(Turn, codecFor))(JSON.parse(json))
}

/** A decoded value as plain data (a TurnRequest's class left out), for comparing what either version read. */
const data = <A, E>(exit: Exit.Exit<A, E>): unknown => {
  if (Exit.isFailure(exit)) throw new Error(`not decoded: ${String(exit.cause)}`)
  return JSON.parse(JSON.stringify(exit.value, (_key, value) => typeof value === "bigint" ? `${value}n` : value))
}

/** The error a refused decode reports. */
const refusal = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) throw new Error("decoded")
  return String(exit.cause)
}

/** Nothing at a path: the key deleted. */
const ABSENT = Symbol("absent")
const isNode = (u: unknown): u is Record<string | number, unknown> => typeof u === "object" && u !== null

/** Written JSON with the value at `path` replaced (or deleted). */
const spoiled = (json: string, path: ReadonlyArray<string | number>, value: unknown): string => {
  const tree: unknown = JSON.parse(json)
  let node = tree
  for (const key of path.slice(0, -1)) node = isNode(node) ? node[key] : undefined
  if (!isNode(node)) throw new Error(`nothing at ${path.join(".")}`)
  const last = path[path.length - 1]!
  if (value === ABSENT) delete node[last]
  else node[last] = value
  return JSON.stringify(tree)
}

// --- The sample ---

const decode = <S extends Schema.Codec<unknown, unknown>>(schema: S) => (input: unknown): S["Type"] =>
  Schema.decodeUnknownSync(schema)(input)

const fullMessage = decode(v1.Message)({
  messageId: "m-1",
  contextId: "ctx-1",
  taskId: "task-1",
  role: "ROLE_USER",
  extensions: ["https://example.com/ext/a", "https://example.com/ext/ü"],
  referenceTaskIds: ["task-0"],
  metadata: { note: "grüße, 日本語, emoji 🎉", nested: { list: [1, 2.5, null, true, "x"] } },
  parts: [
    { text: "héllo wörld ✓ \u2028 \"quoted\" \\ back", mediaType: "text/plain", metadata: { lang: "de" } },
    { raw: "aGVsbG8=", filename: "hello.txt", mediaType: "application/octet-stream" },
    { url: "https://example.com/ä.png", filename: "ä.png" },
    { data: { a: [1, { b: null }], c: "ç" } },
    { data: null }
  ]
})
const pushConfig = decode(v1.TaskPushNotificationConfig)({
  url: "https://hooks.example.com/a2a",
  id: "push-1",
  taskId: "task-1",
  tenant: "acme",
  token: "tok",
  authentication: { scheme: "Bearer", credentials: "secret-push-credentials" }
})
const configuration = decode(v1.SendMessageConfiguration)({
  acceptedOutputModes: ["text/plain", "application/json"],
  historyLength: 5,
  returnImmediately: false,
  taskPushNotificationConfig: pushConfig,
  ifGenerationMatch: 7
})
const interfaces = decode(Schema.Array(v1.AgentInterface))([
  { protocolBinding: "JSONRPC", protocolVersion: "1.0", url: "https://agent.example.com/a2a" },
  { protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "acme", url: "grpcs://agent.example.com" }
])

const fullStart: StartOptions = {
  message: fullMessage,
  owner: "alice",
  tenant: "acme",
  call: CallContext.make({
    principal: { id: "alice", anonymous: false, scheme: "bearer" },
    requestedVersion: "1.0",
    extensions: ["https://example.com/ext/a"],
    headers: {
      "content-type": "application/json",
      "x-trace": "ünïcode",
      authorization: "Bearer never-written",
      cookie: "session=never-written"
    },
    interfaces,
    origin: "https://agent.example.com",
    binding: "JSONRPC",
    namesTasks: true
  }),
  metadata: { source: "test", "ключ": "значение" },
  configuration,
  pushConfig
}
const bareStart: StartOptions = {
  message: decode(v1.Message)({ messageId: "m-2", role: "ROLE_USER", parts: [{ text: "sleep 100" }] }),
  owner: "anonymous",
  tenant: "",
  call: CallContext.make(),
  metadata: undefined,
  configuration: undefined,
  pushConfig: undefined
}

const agentMessage = decode(v1.Message)({
  messageId: "m-3",
  role: "ROLE_AGENT",
  taskId: "task-1",
  contextId: "ctx-1",
  parts: [{ text: "done: ünïcode ✓" }]
})
const fullTask = decode(v1.Task)({
  id: "task-1",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-12-06T18:00:00.123Z", message: agentMessage },
  history: [fullMessage, agentMessage],
  artifacts: [
    {
      artifactId: "art-1",
      name: "résumé",
      description: "a description",
      extensions: ["https://example.com/ext/a"],
      metadata: { size: 3 },
      parts: [{ text: "one" }, { raw: "AAEC", mediaType: "application/octet-stream" }]
    },
    { artifactId: "art-2", parts: [{ data: { rows: [[1, 2], [3, 4]] } }] }
  ],
  metadata: { "clé": "valeur", count: 2 },
  generation: 4
})
const outcomes: ReadonlyArray<readonly [string, Exit.Exit<TurnOutcome, A2AError>]> = [
  ["a task with history, artifacts and metadata", Exit.succeed({ _tag: "Task", task: fullTask })],
  [
    "a bare submitted task",
    Exit.succeed({ _tag: "Task", task: decode(v1.Task)({ id: "t", status: { state: "TASK_STATE_SUBMITTED" } }) })
  ],
  ["a direct reply", Exit.succeed({ _tag: "Reply", message: agentMessage })],
  [
    "an error",
    Exit.fail(new TaskNotFound({ message: "Task task-9 not found: ünïcode", metadata: { taskId: "task-9" } }))
  ]
]

describe("TurnMessage: the Turn's wire format", () => {
  it("a Turn is written byte for byte as before, and read alike by either version", () => {
    for (const [start, newTaskId] of [[fullStart, "task-new"], [bareStart, undefined]] as const) {
      const before = encodeRequest.old(oldRequestOf(start, newTaskId))
      const after = encodeRequest.new(requestOf(start, newTaskId))
      expect(after).toBe(before)
      expect(data(decodeRequest.new(before))).toStrictEqual(data(decodeRequest.old(before)))
      expect(data(decodeRequest.old(after))).toStrictEqual(data(decodeRequest.new(after)))
    }
    // the credentials stay out, and nothing of the call beside its fields is written
    const json = encodeRequest.new(requestOf({ ...fullStart, call: { ...fullStart.call, secret: "x" } as never }, "t"))
    expect(json).not.toContain("never-written")
    expect(json).not.toContain("secret\"")
    // `undefined` optional fields are written `null`, as before
    expect(encodeRequest.new(requestOf(bareStart, undefined))).toContain("\"configuration\":null")
  })

  it("an outcome (a task, a direct reply, an error) is written byte for byte as before, and read alike", () => {
    for (const [name, exit] of outcomes) {
      const before = encodeReply.old(exit)
      const after = encodeReply.new(exit)
      expect(after, name).toBe(before)
      expect(data(decodeReply.new(before)), name).toStrictEqual(data(decodeReply.old(before)))
      expect(data(decodeReply.old(after)), name).toStrictEqual(data(decodeReply.new(after)))
    }
  })

  it("a value in another key order than the Schemas' is the same JSON value, read alike by either version", () => {
    // as the engine makes them: a message given its task, interfaces as the HTTP binding lists them
    const start: StartOptions = {
      ...fullStart,
      message: { ...fullMessage, taskId: "task-2" },
      call: CallContext.make({
        ...fullStart.call,
        interfaces: [{ url: "https://agent.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }]
      })
    }
    const before = encodeRequest.old(oldRequestOf(start, undefined))
    const after = encodeRequest.new(requestOf(start, undefined))
    expect(JSON.parse(after)).toStrictEqual(JSON.parse(before))
    expect(data(decodeRequest.old(after))).toStrictEqual(data(decodeRequest.old(before)))
    expect(data(decodeRequest.new(after))).toStrictEqual(data(decodeRequest.old(before)))

    const task: v1.Task = { status: { state: "TASK_STATE_WORKING" }, id: "t", history: [agentMessage], contextId: "c" }
    const exit = Exit.succeed<TurnOutcome>({ _tag: "Task", task })
    expect(JSON.parse(encodeReply.new(exit))).toStrictEqual(JSON.parse(encodeReply.old(exit)))
    expect(data(decodeReply.old(encodeReply.new(exit)))).toStrictEqual(data(decodeReply.old(encodeReply.old(exit))))
  })

  it("a malformed Turn is refused by both versions with the same error", () => {
    const good = encodeRequest.old(oldRequestOf(fullStart, "task-new"))
    const malformed: ReadonlyArray<readonly [string, ReadonlyArray<string | number>, unknown]> = [
      ["a message without parts", ["message", "parts"], []],
      ["a message of no role", ["message", "role"], "ROLE_NOBODY"],
      ["a part of two kinds", ["message", "parts", 0], { text: "a", url: "b" }],
      ["a message not an object", ["message"], "hello"],
      ["a message missing", ["message"], ABSENT],
      ["interfaces not an array", ["call", "interfaces"], { url: "x" }],
      ["an interface not an object", ["call", "interfaces", 1], "x"],
      ["an interface without its url", ["call", "interfaces", 0, "url"], ABSENT],
      ["a history length not a number", ["configuration", "historyLength"], "many"],
      ["a push config without its url", ["pushConfig", "url"], ABSENT],
      ["a push config an array", ["pushConfig"], []]
    ]
    for (const [name, path, value] of malformed) {
      const json = spoiled(good, path, value)
      expect(refusal(decodeRequest.new(json)), name).toBe(refusal(decodeRequest.old(json)))
    }
  })

  it("a malformed outcome is refused by both versions with the same error", () => {
    const good = encodeReply.old(outcomes[0]![1])
    const task = ["exit", "value", "task"]
    const malformed: ReadonlyArray<readonly [string, ReadonlyArray<string | number>, unknown]> = [
      ["a task of no state", [...task, "status", "state"], "DONE"],
      ["an artifact without parts", [...task, "artifacts", 0, "parts"], []],
      ["a task without its id", [...task, "id"], ABSENT],
      ["a task not an object", task, ["task"]],
      ["a history message of no role", [...task, "history", 1, "role"], ABSENT],
      ["a bad timestamp", [...task, "status", "timestamp"], "yesterday"],
      ["raw bytes not base64", [...task, "artifacts", 0, "parts", 1, "raw"], "!!"],
      ["a reply without its message", ["exit", "value"], { _tag: "Reply" }]
    ]
    for (const [name, path, value] of malformed) {
      const json = spoiled(good, path, value)
      expect(refusal(decodeReply.new(json)), name).toBe(refusal(decodeReply.old(json)))
    }
  })

  it.effect("a Turn is made with its protocol values as given, not copied by a walk of their Schemas", () =>
    Effect.sync(() => {
      const request = requestOf(fullStart, "task-new")
      expect(request.message).toBe(fullStart.message)
      expect(request.configuration).toBe(fullStart.configuration)
      expect(request.pushConfig).toBe(fullStart.pushConfig)
      expect(request.call.interfaces).toBe(fullStart.call.interfaces)
      expect(request.call.headers).toStrictEqual({ "content-type": "application/json", "x-trace": "ünïcode" })
    }))
})
