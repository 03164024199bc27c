/**
 * Our gRPC server on its bad paths and its service parameters, through a bare @grpc/grpc-js client (bytes in,
 * status and google.rpc.Status out) and our own client: malformed messages and invalid requests get
 * INVALID_ARGUMENT with ErrorInfo (and BadRequest) details and never crash the server; `a2a-version` and
 * `a2a-extensions` come from metadata; cancelling a stream interrupts the handler's stream; the layer's scope
 * stops the server.
 */
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Deferred, Effect, Exit, Fiber, Scope, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import * as GrpcTransport from "../../src/grpc/GrpcTransport.ts"
import * as Wire from "../../src/grpc/internal/Wire.ts"
import { A2AService } from "../../src/protocol/generated/v1Proto.ts"
import { encode, grpcCard, reasonOf, startDemo, unary } from "./fixtures.ts"

describe("GrpcServer", () => {
  it.live("a message that is not protobuf: INVALID_ARGUMENT with the PARSE_ERROR reason; the server keeps serving", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const bad = yield* unary(target, "GetTask", new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]))
      assert.strictEqual(bad.code, grpc.status.INVALID_ARGUMENT)
      assert.strictEqual(reasonOf(bad), "PARSE_ERROR")
      assert.strictEqual(bad.status?.code, grpc.status.INVALID_ARGUMENT)
      assert.strictEqual(bad.status?.details[0]?.["domain"], "a2a-protocol.org")
      const after = yield* unary(target, "GetTask", encode("GetTask", { id: "nope" }))
      assert.strictEqual(after.code, grpc.status.NOT_FOUND)
      assert.strictEqual(reasonOf(after), "TASK_NOT_FOUND")
    }).pipe(Effect.scoped))

  it.live("a request the Schema rejects: INVALID_ARGUMENT, INVALID_PARAMS and a BadRequest naming the field", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      // a message without parts (and an empty GetTask without its id)
      const send = yield* unary(
        target,
        "SendMessage",
        encode("SendMessage", { message: { messageId: "m-1", role: "ROLE_USER", parts: [] } })
      )
      assert.strictEqual(send.code, grpc.status.INVALID_ARGUMENT)
      assert.strictEqual(reasonOf(send), "INVALID_PARAMS")
      const get = yield* unary(target, "GetTask", new Uint8Array())
      assert.strictEqual(get.code, grpc.status.INVALID_ARGUMENT)
      const badRequest = get.status?.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest")
      assert.deepInclude(
        (badRequest?.["fieldViolations"] as ReadonlyArray<{ field: string }>).map((v) => v.field),
        "id"
      )
    }).pipe(Effect.scoped))

  it.live("a handler that dies: INTERNAL, 'Internal error' and nothing of the defect; the server keeps serving", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo({
        wrap: (handler) => ({ ...handler, getTask: () => Effect.die(new Error("secret detail")) })
      })
      const died = yield* unary(target, "GetTask", encode("GetTask", { id: "t-1" }))
      assert.strictEqual(died.code, grpc.status.INTERNAL)
      assert.strictEqual(died.details, "Internal error")
      assert.strictEqual(reasonOf(died), "INTERNAL")
      assert.notInclude(JSON.stringify(died.status), "secret")
      const after = yield* unary(target, "ListTasks", encode("ListTasks", {}))
      assert.strictEqual(after.code, 0)
    }).pipe(Effect.scoped))

  it.live("a2a-version from metadata: 1.0 served; 0.3, and none (which means 0.3), refused", () =>
    Effect.gen(function*() {
      const { target } = yield* startDemo()
      const request = encode("GetTask", { id: "nope" })
      const current = yield* unary(target, "GetTask", request, { "a2a-version": "1.0.2" })
      assert.strictEqual(reasonOf(current), "TASK_NOT_FOUND")
      const none = yield* unary(target, "GetTask", request, {})
      assert.strictEqual(none.code, grpc.status.FAILED_PRECONDITION)
      assert.strictEqual(reasonOf(none), "VERSION_NOT_SUPPORTED")
      const old = yield* unary(target, "GetTask", request, { "a2a-version": "0.3" })
      assert.strictEqual(old.code, grpc.status.FAILED_PRECONDITION)
      assert.strictEqual(reasonOf(old), "VERSION_NOT_SUPPORTED")
      assert.deepStrictEqual(old.status?.details[0]?.["metadata"], {
        requestedVersion: "0.3",
        supportedVersions: "1.0"
      })
    }).pipe(Effect.scoped))

  it.live("a2a-extensions from metadata: the supported ones are echoed in the response metadata", () =>
    Effect.gen(function*() {
      const ext = "https://example.com/ext/v1"
      const { target } = yield* startDemo({
        card: {
          name: "ext",
          description: "",
          version: "1",
          capabilities: { extensions: [{ uri: ext }] },
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
          skills: []
        }
      })
      const answer = yield* unary(
        target,
        "SendMessage",
        encode("SendMessage", { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hi" }] } }),
        { "a2a-version": "1.0", "a2a-extensions": `${ext}, https://other.example/unknown` }
      )
      assert.strictEqual(answer.code, 0)
      assert.deepStrictEqual(answer.metadata?.get("a2a-extensions"), [ext])
    }).pipe(Effect.scoped))

  it.live("cancelling a stream interrupts the handler's stream", () =>
    Effect.gen(function*() {
      const ended = yield* Deferred.make<void>()
      const { target } = yield* startDemo({
        wrap: (handler) => ({
          ...handler,
          subscribeToTask: (req, ctx) =>
            handler.subscribeToTask(req, ctx).pipe(Stream.ensuring(Deferred.succeed(ended, undefined)))
        })
      })
      const card = grpcCard(target)
      const client = yield* A2AClient.make(card, { transports: [yield* GrpcTransport.makeFactory] })
      const started = yield* client.sendMessage({
        message: userText("slow"),
        configuration: { returnImmediately: true }
      })
      if (!("task" in started)) return assert.fail("expected a task")
      // take the snapshot, then drop the stream: the call is cancelled
      const first = yield* Stream.runHead(client.subscribeToTask({ id: started.task.id }))
      assert.isTrue(first._tag === "Some" && "task" in first.value)
      yield* Deferred.await(ended)
      const task = yield* client.getTask({ id: started.task.id })
      assert.strictEqual(task.status.state, "TASK_STATE_WORKING")
      yield* client.cancelTask({ id: started.task.id })
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.live("closing the layer's scope ends open streams and stops the server", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { target } = yield* startDemo().pipe(Scope.provide(scope))
      const factory = yield* GrpcTransport.makeFactory
      const card = grpcCard(target)
      const client = yield* A2AClient.make(card, { transports: [factory], retry: false })
      const started = yield* client.sendMessage({
        message: userText("slow"),
        configuration: { returnImmediately: true }
      })
      if (!("task" in started)) return assert.fail("expected a task")
      const events = yield* client.subscribeToTask({ id: started.task.id }).pipe(
        Stream.take(1),
        Stream.runCollect
      )
      assert.strictEqual(events.length, 1)
      const open = yield* Effect.forkChild(Stream.runCollect(client.subscribeToTask({ id: started.task.id })))
      yield* Effect.yieldNow
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(open)
      assert.isTrue(Exit.isFailure(exit))
      const after = yield* Effect.flip(client.getTask({ id: started.task.id }))
      assert.strictEqual(after._tag, "A2ATransportError")
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it("every method of the descriptor is served (the table and the proto agree)", () => {
    assert.deepStrictEqual(
      Wire.methods.map((m) => m.path).sort(),
      A2AService.methods.map((m) => `/lf.a2a.v1.A2AService/${m.name}`).sort()
    )
  })
})
