/**
 * Our client against our server (A2AServer + A2AHttp, demo agent), on both bindings: every operation,
 * push configs, multi-turn, cancellation, errors, authentication and the extended card.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import { Ours, OursSecured, TOKEN } from "./OurServer.ts"
import { kinds, taskOf } from "./Results.ts"

layer(Layer.mergeAll(Ours.layer, OursSecured.layer, FetchHttpClient.layer), { excludeTestServices: true })(
  "A2AClient against our server",
  (it) => {
    for (const binding of ["JSONRPC", "HTTP+JSON"]) {
      const client = Effect.gen(function*() {
        const server = yield* Ours
        return yield* A2AClient.resolve(server.url, { bindings: [binding] })
      })

      describe(binding, () => {
        it.effect("card and interface", () =>
          Effect.gen(function*() {
            const c = yield* client
            expect(c.card.name).toBe("effect-a2a demo agent")
            expect(c.interface.protocolBinding).toBe(binding)
            expect(c.interface.protocolVersion).toBe("1.0")
          }))

        it.effect("sendMessage: direct message, then a task run to completion", () =>
          Effect.gen(function*() {
            const c = yield* client
            const echo = yield* c.sendMessage({ message: userText("hi") })
            expect("message" in echo && textOf(echo.message.parts)).toBe("Echo: hi")
            const task = yield* Effect.flatMap(c.sendMessage({ message: userText("task report") }), taskOf)
            expect(task.status.state).toBe("TASK_STATE_COMPLETED")
            expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual(["Chunk 1. Chunk 2. Chunk 3."])
          }))

        it.effect("sendStreamingMessage: the whole lifecycle, ending at completed", () =>
          Effect.gen(function*() {
            const c = yield* client
            const events = yield* Stream.runCollect(c.sendStreamingMessage({ message: userText("task report") }))
            const k = kinds(events)
            expect(k[0]).toMatch(/^task:/)
            expect(k.filter((e) => e.startsWith("artifact:"))).toEqual([
              "artifact:Chunk 1. ",
              "artifact:Chunk 2. ",
              "artifact:Chunk 3."
            ])
            expect(k.at(-1)).toBe("status:TASK_STATE_COMPLETED")
          }))

        it.effect("multi-turn: input-required, then answered with taskId and contextId", () =>
          Effect.gen(function*() {
            const c = yield* client
            const asked = yield* Effect.flatMap(c.sendMessage({ message: userText("ask") }), taskOf)
            expect(asked.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
            const answered = yield* Effect.flatMap(
              c.sendMessage({ message: userText("Ada", { taskId: asked.id, contextId: asked.contextId }) }),
              taskOf
            )
            expect(answered.id).toBe(asked.id)
            expect(answered.status.state).toBe("TASK_STATE_COMPLETED")
            expect(answered.artifacts?.map((a) => textOf(a.parts))).toEqual(["Hello, Ada!"])
          }))

        it.effect("getTask, listTasks and listAllTasks", () =>
          Effect.gen(function*() {
            const c = yield* client
            const contextId = crypto.randomUUID()
            const ids: Array<string> = []
            for (let i = 0; i < 3; i++) {
              ids.push((yield* Effect.flatMap(c.sendMessage({ message: userText("task", { contextId }) }), taskOf)).id)
            }
            const got = yield* c.getTask({ id: ids[0]!, historyLength: 0 })
            expect(got.id).toBe(ids[0])
            expect(got.history ?? []).toEqual([])
            const page = yield* c.listTasks({ contextId, pageSize: 2 })
            expect(page.tasks.length).toBe(2)
            expect(page.totalSize).toBe(3)
            const all = yield* Stream.runCollect(c.listAllTasks({ contextId, pageSize: 2 }))
            expect(all.map((t) => t.id).sort()).toEqual([...ids].sort())
          }))

        it.effect("cancelTask and subscribeToTask on a slow task", () =>
          Effect.gen(function*() {
            const c = yield* client
            const slow = yield* Effect.flatMap(
              c.sendMessage({ message: userText("slow"), configuration: { returnImmediately: true } }),
              taskOf
            )
            const events = yield* c.subscribeToTask({ id: slow.id }).pipe(
              Stream.tap((event) => ("task" in event ? Effect.forkDetach(c.cancelTask({ id: slow.id })) : Effect.void)),
              Stream.runCollect
            )
            expect(kinds(events)[0]).toMatch(/^task:/)
            expect(kinds(events).at(-1)).toBe("status:TASK_STATE_CANCELED")
            const after = yield* c.getTask({ id: slow.id })
            expect(after.status.state).toBe("TASK_STATE_CANCELED")
          }))

        it.effect("push notification configs: create, get, list, delete", () =>
          Effect.gen(function*() {
            const c = yield* client
            const task = yield* Effect.flatMap(c.sendMessage({ message: userText("ask") }), taskOf)
            const created = yield* c.createTaskPushNotificationConfig({
              taskId: task.id,
              url: "https://hooks.example.com/a2a",
              token: "tok"
            })
            expect(created.id).toBeDefined()
            expect(created.taskId).toBe(task.id)
            const id = created.id!
            const got = yield* c.getTaskPushNotificationConfig({ taskId: task.id, id })
            expect(got.url).toBe("https://hooks.example.com/a2a")
            const listed = yield* c.listTaskPushNotificationConfigs({ taskId: task.id })
            expect(listed.configs?.map((x) => x.id)).toEqual([id])
            yield* c.deleteTaskPushNotificationConfig({ taskId: task.id, id })
            yield* c.deleteTaskPushNotificationConfig({ taskId: task.id, id }) // idempotent (spec 3.1.10)
            const gone = yield* Effect.flip(c.getTaskPushNotificationConfig({ taskId: task.id, id }))
            expect(gone._tag).toBe("TaskNotFound")
          }))

        it.effect("errors: TaskNotFound, TaskNotCancelable, UnsupportedOperation, a failed task", () =>
          Effect.gen(function*() {
            const c = yield* client
            expect((yield* Effect.flip(c.getTask({ id: "missing" })))._tag).toBe("TaskNotFound")
            expect((yield* Effect.flip(Stream.runCollect(c.subscribeToTask({ id: "missing" }))))._tag).toBe(
              "TaskNotFound"
            )
            const done = yield* Effect.flatMap(c.sendMessage({ message: userText("task") }), taskOf)
            expect((yield* Effect.flip(c.cancelTask({ id: done.id })))._tag).toBe("TaskNotCancelable")
            expect((yield* Effect.flip(Stream.runCollect(c.subscribeToTask({ id: done.id }))))._tag).toBe(
              "UnsupportedOperation"
            )
            expect((yield* Effect.flip(c.getExtendedAgentCard()))._tag).toBe("UnsupportedOperation")
            const failed = yield* Effect.flatMap(c.sendMessage({ message: userText("fail") }), taskOf)
            expect(failed.status.state).toBe("TASK_STATE_FAILED")
            const invalid = yield* Effect.flip(
              c.sendMessage({ message: userText("x", { taskId: "missing-task" }) })
            )
            expect(invalid._tag).toBe("TaskNotFound")
          }))
      })
    }

    describe("authentication", () => {
      it.effect("no credentials -> Unauthenticated; the bearer token from the card's scheme -> served", () =>
        Effect.gen(function*() {
          const server = yield* OursSecured
          for (const binding of ["JSONRPC", "HTTP+JSON"]) {
            const anonymous = yield* A2AClient.resolve(server.url, { bindings: [binding] })
            expect(Object.keys(anonymous.card.securitySchemes ?? {})).toEqual(["bearer"])
            const denied = yield* Effect.flip(anonymous.sendMessage({ message: userText("hi") }))
            expect(denied._tag).toBe("Unauthenticated")
            const wrong = yield* A2AClient.resolve(server.url, { bindings: [binding], credentials: { bearer: "nope" } })
            expect((yield* Effect.flip(wrong.getTask({ id: "x" })))._tag).toBe("Unauthenticated")
            const alice = yield* A2AClient.resolve(server.url, { bindings: [binding], credentials: { bearer: TOKEN } })
            const reply = yield* alice.sendMessage({ message: userText("hi") })
            expect("message" in reply && textOf(reply.message.parts)).toBe("Echo: hi")
            const extended = yield* alice.getExtendedAgentCard()
            expect(extended.name).toBe("effect-a2a demo agent (for alice)")
          }
        }))
    })
  }
)
