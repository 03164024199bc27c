/**
 * Interop: our A2AClient over its gRPC transport (effect-a2a/grpc) against the official @a2a-js/sdk's gRPC
 * server: every operation, streams included, and the SDK's errors read back as our typed errors. The card lists
 * gRPC first, so the client picks it once GrpcTransport.layer is provided, and JSON-RPC without it.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../../src/client/A2AClient.ts"
import { textOf, userText } from "../../../src/client/Messages.ts"
import * as GrpcTransport from "../../../src/grpc/GrpcTransport.ts"
import { kinds } from "../../client/Results.ts"
import { startWaitingTask } from "../SdkAgent.ts"
import { SdkGrpcPeer } from "./SdkGrpcServer.ts"

const client = Effect.flatMap(SdkGrpcPeer, (peer) => A2AClient.resolve(peer.url))

layer(Layer.mergeAll(SdkGrpcPeer.layer, FetchHttpClient.layer))("A2AClient over gRPC against @a2a-js/sdk", (it) => {
  it.effect("without the gRPC transport the client takes the next interface the card lists", () =>
    Effect.gen(function*() {
      const peer = yield* SdkGrpcPeer
      const c = yield* client
      expect(c.interface.protocolBinding).toBe("JSONRPC")
      expect(c.url).toBe(peer.jsonRpcUrl)
    }))

  describe("with GrpcTransport.layer", () => {
    const withGrpc = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Effect.provide(GrpcTransport.layer))

    it.effect("selects the gRPC interface the card lists first; a direct Message reply", () =>
      withGrpc(Effect.gen(function*() {
        const peer = yield* SdkGrpcPeer
        const c = yield* client
        expect(c.interface.protocolBinding).toBe("GRPC")
        expect(c.url).toBe(peer.grpcUrl)
        const response = yield* c.sendMessage({ message: userText("hi there") })
        expect("message" in response && textOf(response.message.parts)).toBe("echo: hi there")
      })))

    it.effect("sendMessage: a task run to completion, then getTask and listTasks", () =>
      withGrpc(Effect.gen(function*() {
        const c = yield* client
        const contextId = crypto.randomUUID()
        const response = yield* c.sendMessage({ message: userText("task", { contextId }) })
        if (!("task" in response)) return expect.fail("expected a task")
        expect(response.task.status.state).toBe("TASK_STATE_COMPLETED")
        const task = yield* c.getTask({ id: response.task.id, historyLength: 1 })
        expect(task.id).toBe(response.task.id)
        expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual(["Hello, world"])
        const page = yield* c.listTasks({ contextId })
        expect(page.tasks.map((t) => t.id)).toEqual([response.task.id])
      })))

    it.effect("sendStreamingMessage: events in order, ending at the terminal state; a message-only stream", () =>
      withGrpc(Effect.gen(function*() {
        const c = yield* client
        const events = yield* Stream.runCollect(c.sendStreamingMessage({ message: userText("task") }))
        expect(kinds(events)).toEqual([
          "task:TASK_STATE_SUBMITTED",
          "status:TASK_STATE_WORKING",
          "artifact:Hello, ",
          "artifact:world",
          "status:TASK_STATE_COMPLETED"
        ])
        const message = yield* Stream.runCollect(c.sendStreamingMessage({ message: userText("yo") }))
        expect(kinds(message)).toEqual(["message:echo: yo"])
      })))

    it.effect("subscribeToTask: snapshot first, ends when the task is canceled; canceling a completed task fails", () =>
      withGrpc(Effect.gen(function*() {
        const c = yield* client
        const task = yield* startWaitingTask(c)
        const events = yield* c.subscribeToTask({ id: task.id }).pipe(
          Stream.tap((event) => "task" in event ? Effect.forkDetach(c.cancelTask({ id: task.id })) : Effect.void),
          Stream.runCollect,
          Effect.forkChild,
          Effect.flatMap(Fiber.join)
        )
        expect(kinds(events)[0]).toBe("task:TASK_STATE_WORKING")
        expect(kinds(events).at(-1)).toBe("status:TASK_STATE_CANCELED")
        const done = yield* c.sendMessage({ message: userText("task") })
        if (!("task" in done)) return expect.fail("expected a task")
        const error = yield* Effect.flip(c.cancelTask({ id: done.task.id }))
        expect(error._tag).toBe("TaskNotCancelable")
      })))

    it.effect("push notification configs: create, get, list, delete", () =>
      withGrpc(Effect.gen(function*() {
        const c = yield* client
        const task = yield* startWaitingTask(c)
        const created = yield* c.createTaskPushNotificationConfig({
          taskId: task.id,
          id: "cfg-1",
          url: "https://example.com/webhook",
          token: "secret-token"
        })
        expect(created.url).toBe("https://example.com/webhook")
        const got = yield* c.getTaskPushNotificationConfig({ taskId: task.id, id: created.id ?? "cfg-1" })
        expect(got.token).toBe("secret-token")
        const listed = yield* c.listTaskPushNotificationConfigs({ taskId: task.id })
        expect(listed.configs?.map((cfg) => cfg.url)).toEqual(["https://example.com/webhook"])
        yield* c.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id ?? "cfg-1" })
        const after = yield* c.listTaskPushNotificationConfigs({ taskId: task.id })
        expect(after.configs ?? []).toEqual([])
        yield* c.cancelTask({ id: task.id })
      })))

    it.effect("errors: TaskNotFound on get, cancel and subscribe; no extended card -> UnsupportedOperation", () =>
      withGrpc(Effect.gen(function*() {
        const c = yield* client
        const get = yield* Effect.flip(c.getTask({ id: "no-such-task" }))
        expect(get._tag).toBe("TaskNotFound")
        const cancel = yield* Effect.flip(c.cancelTask({ id: "no-such-task" }))
        expect(cancel._tag).toBe("TaskNotFound")
        const subscribe = yield* Effect.flip(Stream.runCollect(c.subscribeToTask({ id: "no-such-task" })))
        expect(subscribe._tag).toBe("TaskNotFound")
        const extended = yield* Effect.flip(c.getExtendedAgentCard())
        expect(extended._tag).toBe("UnsupportedOperation")
      })))
  })
})
