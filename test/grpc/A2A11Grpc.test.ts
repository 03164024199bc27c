/**
 * The A2A 1.1 draft over gRPC (`dev-1.1`'s specification/a2a.proto, PR #1810): with the switch on, the messages
 * carry `generation` (Task 7, TaskStatusUpdateEvent 5, TaskArtifactUpdateEvent 7), GetTaskRequest's
 * `current_generation` (4) long-polls and SendMessageConfiguration's `if_generation_match` (5) refuses a stale send
 * with ABORTED; off, the wire is 1.0's. Over the Node server on 127.0.0.1 with gRPC beside HTTP, raw gRPC calls
 * (bytes in, bytes out) and the client's gRPC transport.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Logger, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as Generations from "../../src/client/Generations.ts"
import { userText } from "../../src/client/Messages.ts"
import * as GrpcTransport from "../../src/grpc/GrpcTransport.ts"
import * as ProtoJsonBinary from "../../src/grpc/internal/ProtoJsonBinary.ts"
import * as Wire from "../../src/grpc/internal/Wire.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as DraftServer from "../http/fixtures/DraftServer.ts"
import * as StubHandler from "../http/fixtures/StubHandler.ts"
import { type Answer, unary } from "./fixtures.ts"

/** The Node server with gRPC on a port of its own, the draft on or off; its URL and its card's gRPC target. */
const start = (draft: boolean) =>
  Effect.gen(function*() {
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0, grpcPort: 0 }).pipe(
      Layer.provide(
        A2AServer.layer({
          card: StubHandler.card,
          executor: DraftServer.agent,
          a2a11: draft ? { maxWait: "3 seconds" } : false
        })
      ),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    const url = `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
    const card = yield* Effect.promise(() =>
      fetch(`${url}/.well-known/agent-card.json`).then((r) => r.json() as Promise<v1.AgentCard>)
    )
    const target = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")!.url
    return { url, card, target }
  })

const converter = ProtoJsonBinary.make()

/** A request's bytes with the draft's descriptor (so its fields can be sent whatever the server does). */
const encode = (name: "SendMessage" | "GetTask", json: unknown) => {
  const out = Wire.fromProtoJson(Wire.draft11ByName.get(name)!.input, json, converter)
  if (!out.ok) throw new Error(out.error.message)
  return out.bytes
}

/** An answer's ProtoJSON, read with the draft's descriptor (so a generation sent would show). */
const decode = (name: "SendMessage" | "GetTask", answer: Answer): Record<string, unknown> => {
  assert.strictEqual(answer.code, 0, answer.details)
  const out = Wire.toProtoJson(Wire.draft11ByName.get(name)!.output, answer.value!, converter)
  if (!out.ok) throw new Error(out.error.message)
  return out.value as Record<string, unknown>
}

const send = (target: string, text: string, extra: { taskId?: string; ifGenerationMatch?: number } = {}) =>
  unary(
    target,
    "SendMessage",
    encode("SendMessage", {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text }],
        ...(extra.taskId !== undefined ? { taskId: extra.taskId } : {})
      },
      ...(extra.ifGenerationMatch !== undefined
        ? { configuration: { ifGenerationMatch: extra.ifGenerationMatch } }
        : {})
    })
  )

const taskOf = (answer: Answer) => decode("SendMessage", answer)["task"] as Record<string, unknown>

const getTask = (target: string, id: string, currentGeneration?: number, version = "1.0") =>
  unary(
    target,
    "GetTask",
    encode("GetTask", { id, ...(currentGeneration !== undefined ? { currentGeneration } : {}) }),
    { "a2a-version": version }
  )

const grpcInterfaces = (card: v1.AgentCard) =>
  card.supportedInterfaces.filter((i) => i.protocolBinding === "GRPC").map((i) => i.protocolVersion)

describe("the A2A 1.1 draft over gRPC", () => {
  it.live("off: no generation on the wire, current_generation ignored, 1.1 neither listed nor served", () =>
    Effect.gen(function*() {
      const { card, target } = yield* start(false)
      assert.deepStrictEqual(grpcInterfaces(card), ["1.0"])
      const task = taskOf(yield* send(target, "hello"))
      assert.strictEqual(task["status"] && (task["status"] as { state: string }).state, "TASK_STATE_INPUT_REQUIRED")
      assert.notProperty(task, "generation")
      // a GetTask naming current_generation is answered at once, as a 1.0 server ignores an unknown field
      const started = Date.now()
      const got = yield* getTask(target, task["id"] as string, 100)
      assert.isBelow(Date.now() - started, 1_000)
      const answer = decode("GetTask", got)
      assert.notProperty(answer, "generation")
      // byte for byte 1.0's: the bytes read with 1.0's descriptor and written again are the same bytes
      const asV1 = Wire.toProtoJson(Wire.byName.get("GetTask")!.output, got.value!, converter)
      assert.isTrue(asV1.ok)
      const again = Wire.fromProtoJson(Wire.byName.get("GetTask")!.output, asV1.ok ? asV1.value : {}, converter)
      assert.deepStrictEqual(again.ok ? Buffer.from(again.bytes) : undefined, got.value)
      // if_generation_match is ignored too: a stale one goes in
      const stale = yield* send(target, "again", { taskId: task["id"] as string, ifGenerationMatch: 1 })
      assert.strictEqual(stale.code, 0, stale.details)
      const refused = yield* getTask(target, task["id"] as string, undefined, "1.1")
      assert.strictEqual(refused.code, 9, refused.details) // FAILED_PRECONDITION: VersionNotSupported
    }).pipe(Effect.scoped))

  it.live("on: the card lists gRPC for 1.1 after 1.0, and a2a-version 1.1 is served", () =>
    Effect.gen(function*() {
      const { card, target } = yield* start(true)
      assert.deepStrictEqual(grpcInterfaces(card), ["1.0", "1.1"])
      const task = taskOf(yield* send(target, "hello"))
      const got = decode("GetTask", yield* getTask(target, task["id"] as string, undefined, "1.1"))
      assert.strictEqual(got["id"], task["id"])
    }).pipe(Effect.scoped))

  it.live("\"It is initialised to `1` when a task is created and MUST be incremented by exactly `1` ...\"", () =>
    Effect.gen(function*() {
      const { target } = yield* start(true)
      // the new task (1), WORKING with a message (2), the artifact (3), INPUT_REQUIRED (4); int64 is a string in
      // ProtoJSON
      const task = taskOf(yield* send(target, "hello"))
      assert.strictEqual(task["generation"], "4")
      const next = taskOf(yield* send(target, "more", { taskId: task["id"] as string }))
      assert.strictEqual(next["generation"], "5")
    }).pipe(Effect.scoped))

  it.live("\"If `currentGeneration` is set and the task's current generation is already greater ..., the server MUST return the current state immediately\"", () =>
    Effect.gen(function*() {
      const { target } = yield* start(true)
      const task = taskOf(yield* send(target, "hello"))
      const started = Date.now()
      const got = decode("GetTask", yield* getTask(target, task["id"] as string, 3))
      assert.isBelow(Date.now() - started, 1_500)
      assert.strictEqual(got["generation"], "4")
    }).pipe(Effect.scoped))

  it.live("\"... the server SHOULD hold the request open and return only once the task's generation advances beyond the supplied value\"", () =>
    Effect.gen(function*() {
      const { target } = yield* start(true)
      const task = taskOf(yield* send(target, "hello"))
      const id = task["id"] as string
      const poll = yield* Effect.forkChild(getTask(target, id, 4))
      yield* Effect.sleep("400 millis")
      assert.isUndefined(poll.pollUnsafe(), "the long poll is held while the task stays at 4")
      assert.strictEqual(taskOf(yield* send(target, "more", { taskId: id }))["generation"], "5")
      const got = decode("GetTask", yield* Fiber.join(poll))
      assert.strictEqual(got["generation"], "5")
    }).pipe(Effect.scoped))

  it.live("\"The server MAY return earlier (for example, on an implementation-defined timeout) with the current task state\"", () =>
    Effect.gen(function*() {
      const { target } = yield* start(true)
      const task = taskOf(yield* send(target, "hello"))
      const started = Date.now()
      const got = decode("GetTask", yield* getTask(target, task["id"] as string, 4))
      const waited = Date.now() - started
      // maxWait is 3 seconds here
      assert.isAtLeast(waited, 2_500)
      assert.strictEqual(got["generation"], "4")
    }).pipe(Effect.scoped))

  it.live("\"If the values do not match, the server MUST reject the request with TaskGenerationMismatchError (... gRPC ABORTED)\"", () =>
    Effect.gen(function*() {
      const { target } = yield* start(true)
      const task = taskOf(yield* send(target, "hello"))
      const id = task["id"] as string
      const refused = yield* send(target, "stale", { taskId: id, ifGenerationMatch: 3 })
      assert.strictEqual(refused.code, 10) // ABORTED
      const info = refused.status?.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")
      assert.strictEqual(info?.["reason"], "TASK_GENERATION_MISMATCH")
      assert.deepInclude(info?.["metadata"] as Record<string, string>, {
        taskId: id,
        expectedGeneration: "3",
        currentGeneration: "4"
      })
      // the matching one goes in
      const matching = taskOf(yield* send(target, "fresh", { taskId: id, ifGenerationMatch: 4 }))
      assert.strictEqual(matching["generation"], "5")
      // "If the task referenced by the message does not yet exist ..., this field MUST be ignored."
      const created = taskOf(yield* send(target, "new", { ifGenerationMatch: 42 }))
      assert.strictEqual(created["generation"], "4")
    }).pipe(Effect.scoped))

  it.live("\"The generation value carried in TaskStatusUpdateEvent and TaskArtifactUpdateEvent MUST reflect the task's generation after the mutation\": the client over gRPC", () =>
    Effect.gen(function*() {
      const { url } = yield* start(true)
      const client = yield* A2AClient.resolve(url, { bindings: ["GRPC"] })
      assert.strictEqual(client.interface.protocolBinding, "GRPC")
      const events = yield* client.sendStreamingMessage({ message: userText("hello") }).pipe(Stream.runCollect)
      // the task (1), WORKING (2), the artifact (3), INPUT_REQUIRED (4)
      assert.deepStrictEqual(events.map(Object.keys).flat(), ["task", "statusUpdate", "artifactUpdate", "statusUpdate"])
      const generations = events.map((event) => Generations.generationOf(event))
      assert.deepStrictEqual(generations, [1, 2, 3, 4])
      const first = events[0]!
      const id = "task" in first ? first.task.id : ""
      // waitForChange is the long poll, over gRPC: held until another turn moves the task on
      const waiting = yield* Effect.forkChild(Generations.waitForChange(client, id, 4))
      yield* Effect.sleep("300 millis")
      yield* client.sendMessage({ message: userText("more", { taskId: id }) })
      const changed = yield* Fiber.join(waiting)
      assert.strictEqual(Generations.generationOf(changed), 5)
      // a stale conditional send is the typed error
      const stale = yield* client.sendMessage({
        message: userText("stale", { taskId: id }),
        configuration: { ifGenerationMatch: 4 }
      }).pipe(Effect.flip)
      assert.strictEqual(stale._tag, "TaskGenerationMismatch")
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(FetchHttpClient.layer, GrpcTransport.layer))))
})
