/**
 * Our client against a server built with the official SDK (@a2a-js/sdk over express), on both of its
 * bindings: every operation the SDK serves, and its errors mapped to our tagged errors.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../../src/client/A2AClient.ts"
import { textOf, userText } from "../../../src/client/Messages.ts"
import { kinds } from "../../client/Results.ts"
import { startWaitingTask } from "../SdkAgent.ts"
import { SdkPeer } from "./SdkServer.ts"

const clientFor = (binding: string) =>
  Effect.gen(function*() {
    const peer = yield* SdkPeer
    return yield* A2AClient.resolve(peer.url, { bindings: [binding] })
  })

layer(Layer.mergeAll(SdkPeer.layer, FetchHttpClient.layer))("A2AClient against @a2a-js/sdk", (it) => {
  for (const [binding, urlKey] of [["JSONRPC", "jsonRpcUrl"], ["HTTP+JSON", "restUrl"]] as const) {
    describe(binding, () => {
      it.effect("resolves the card and selects the interface", () =>
        Effect.gen(function*() {
          const peer = yield* SdkPeer
          const client = yield* clientFor(binding)
          expect(client.card.name).toBe("SDK Interop Agent")
          expect(client.card.version).toBe("1.2.3")
          expect(client.interface.protocolBinding).toBe(binding)
          expect(client.url).toBe(peer[urlKey])
        }))

      it.effect("sendMessage: a direct Message reply", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const response = yield* client.sendMessage({ message: userText("hi there") })
          expect("message" in response && textOf(response.message.parts)).toBe("echo: hi there")
        }))

      it.effect("sendMessage: a task run to completion, then getTask", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const response = yield* client.sendMessage({ message: userText("task") })
          if (!("task" in response)) return expect.fail("expected a task")
          expect(response.task.status.state).toBe("TASK_STATE_COMPLETED")
          const task = yield* client.getTask({ id: response.task.id, historyLength: 1 })
          expect(task.id).toBe(response.task.id)
          expect(task.status.state).toBe("TASK_STATE_COMPLETED")
          expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual(["Hello, world"])
        }))

      it.effect("sendStreamingMessage: events in order, ending at the terminal state", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("task") }))
          expect(kinds(events)).toEqual([
            "task:TASK_STATE_SUBMITTED",
            "status:TASK_STATE_WORKING",
            "artifact:Hello, ",
            "artifact:world",
            "status:TASK_STATE_COMPLETED"
          ])
        }))

      it.effect("sendStreamingMessage: a message-only stream", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("yo") }))
          expect(kinds(events)).toEqual(["message:echo: yo"])
        }))

      it.effect("listTasks and listAllTasks (walking pages)", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const contextId = crypto.randomUUID()
          const ids: Array<string> = []
          for (let i = 0; i < 3; i++) {
            const r = yield* client.sendMessage({ message: userText("task", { contextId }) })
            if ("task" in r) ids.push(r.task.id)
          }
          const page = yield* client.listTasks({ contextId, pageSize: 2 })
          expect(page.tasks.length).toBe(2)
          expect(page.totalSize).toBe(3)
          expect(page.nextPageToken).not.toBe("")
          const all = yield* Stream.runCollect(client.listAllTasks({ contextId, pageSize: 2 }))
          expect(all.map((t) => t.id).sort()).toEqual([...ids].sort())
        }))

      it.effect("cancelTask; a completed task -> TaskNotCancelable", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const task = yield* startWaitingTask(client)
          const canceled = yield* client.cancelTask({ id: task.id })
          expect(canceled.status.state).toBe("TASK_STATE_CANCELED")
          const done = yield* client.sendMessage({ message: userText("task") })
          if (!("task" in done)) return expect.fail("expected a task")
          const error = yield* Effect.flip(client.cancelTask({ id: done.task.id }))
          expect(error._tag).toBe("TaskNotCancelable")
        }))

      it.effect("subscribeToTask: snapshot first, ends when the task is canceled", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const task = yield* startWaitingTask(client)
          const events = yield* client.subscribeToTask({ id: task.id }).pipe(
            Stream.tap((event) =>
              "task" in event ? Effect.forkDetach(client.cancelTask({ id: task.id })) : Effect.void
            ),
            Stream.runCollect,
            Effect.forkChild,
            Effect.flatMap(Fiber.join)
          )
          expect(kinds(events)[0]).toBe("task:TASK_STATE_WORKING")
          expect(kinds(events).at(-1)).toBe("status:TASK_STATE_CANCELED")
        }))

      it.effect("push notification configs: create, get, list, delete", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const task = yield* startWaitingTask(client)
          const created = yield* client.createTaskPushNotificationConfig({
            taskId: task.id,
            id: "cfg-1",
            url: "https://example.com/webhook",
            token: "secret-token"
          })
          expect(created.url).toBe("https://example.com/webhook")
          const got = yield* client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id ?? "cfg-1" })
          expect(got.url).toBe("https://example.com/webhook")
          const listed = yield* client.listTaskPushNotificationConfigs({ taskId: task.id })
          expect(listed.configs?.map((c) => c.url)).toEqual(["https://example.com/webhook"])
          yield* client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id ?? "cfg-1" })
          const after = yield* client.listTaskPushNotificationConfigs({ taskId: task.id })
          expect(after.configs ?? []).toEqual([])
          yield* client.cancelTask({ id: task.id })
        }))

      it.effect("errors: unknown task -> TaskNotFound on get, cancel and subscribe", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const get = yield* Effect.flip(client.getTask({ id: "no-such-task" }))
          expect(get._tag).toBe("TaskNotFound")
          const cancel = yield* Effect.flip(client.cancelTask({ id: "no-such-task" }))
          expect(cancel._tag).toBe("TaskNotFound")
          const subscribe = yield* Effect.flip(Stream.runCollect(client.subscribeToTask({ id: "no-such-task" })))
          expect(subscribe._tag).toBe("TaskNotFound")
        }))

      it.effect("errors: extended card not declared -> UnsupportedOperation", () =>
        Effect.gen(function*() {
          const client = yield* clientFor(binding)
          const error = yield* Effect.flip(client.getExtendedAgentCard())
          expect(error._tag).toBe("UnsupportedOperation")
        }))
    })
  }
})
