/**
 * Our client talking A2A 0.3: to an official-SDK 0.3 server (a plain 0.3 card, the 0.3 JSON-RPC wire), and to
 * our own server with the version pinned. The user only ever sees 1.0 values.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../../src/client/A2AClient.ts"
import * as A2A03 from "../../../src/v0_3/A2A03.ts"

/** Our client with the 0.3 wing: reads 0.3 cards and speaks 0.3. */
const V03Client = {
  resolve: (url: string, options?: A2AClient.ResolveOptions) =>
    A2AClient.resolve(url, options).pipe(Effect.provide(A2A03.client))
}
import { textOf, userText } from "../../../src/client/Messages.ts"
import { kinds, taskOf } from "../../client/Results.ts"
import { Both } from "../../v0_3/fixtures/Server.ts"
import { startWaitingTask } from "../SdkAgent.ts"
import { SdkPeer03 } from "./SdkServer03.ts"

layer(Layer.mergeAll(SdkPeer03.layer, Both.layer, FetchHttpClient.layer, A2A03.client), { excludeTestServices: true })(
  "our client speaking 0.3",
  (it) => {
    describe("against the official SDK's 0.3 server", () => {
      const client = Effect.flatMap(SdkPeer03, (peer) => V03Client.resolve(peer.url))

      it.effect("reads the 0.3 card and selects its 0.3 JSON-RPC interface", () =>
        Effect.gen(function*() {
          const peer = yield* SdkPeer03
          const c = yield* client
          expect(c.card.name).toBe("SDK 0.3 Agent")
          expect(c.interface).toStrictEqual({
            url: peer.jsonRpcUrl,
            protocolBinding: "JSONRPC",
            protocolVersion: "0.3"
          })
          expect(c.card.securitySchemes?.["none"]).toStrictEqual({
            httpAuthSecurityScheme: { scheme: "bearer", bearerFormat: "opaque" }
          })
          expect(c.card.capabilities).toStrictEqual({ streaming: true, pushNotifications: true })
        }))

      it.effect("a client pinned to 1.0 refuses the same card with a clear error", () =>
        Effect.gen(function*() {
          const peer = yield* SdkPeer03
          const error = yield* Effect.flip(A2AClient.resolve(peer.url, { protocolVersions: ["1.0"] }))
          expect(error._tag).toBe("A2ANoCompatibleInterface")
          expect(error.message).toContain(`JSONRPC 0.3 at ${peer.jsonRpcUrl}`)
        }))

      it.effect("sendMessage: a direct message and a task, as 1.0 values", () =>
        Effect.gen(function*() {
          const c = yield* client
          const echo = yield* c.sendMessage({ message: userText("hi") })
          expect("message" in echo && echo.message.role).toBe("ROLE_AGENT")
          expect("message" in echo && textOf(echo.message.parts)).toBe("echo: hi")
          const task = yield* Effect.flatMap(c.sendMessage({ message: userText("task") }), taskOf)
          expect(task.status.state).toBe("TASK_STATE_COMPLETED")
          expect(task.artifacts?.map((a) => textOf(a.parts))).toEqual(["Hello, world"])
          const peer = yield* SdkPeer03
          const last = peer.requests[peer.requests.length - 1]!
          expect(last.body).toMatchObject({
            method: "message/send",
            params: { message: { kind: "message", role: "user", parts: [{ kind: "text", text: "task" }] } }
          })
        }))

      it.effect("sendStreamingMessage: 0.3 events as 1.0 stream responses, ending at completed", () =>
        Effect.gen(function*() {
          const c = yield* client
          const events = yield* Stream.runCollect(c.sendStreamingMessage({ message: userText("task") }))
          const k = kinds(events)
          expect(k[0]).toMatch(/^task:/)
          expect(k).toContain("artifact:Hello, ")
          expect(k[k.length - 1]).toBe("status:TASK_STATE_COMPLETED")
        }))

      it.effect("getTask and cancelTask", () =>
        Effect.gen(function*() {
          const c = yield* client
          const task = yield* startWaitingTask(c)
          const got = yield* c.getTask({ id: task.id })
          expect(got.id).toBe(task.id)
          const canceled = yield* c.cancelTask({ id: task.id })
          expect(canceled.status.state).toBe("TASK_STATE_CANCELED")
        }))

      it.effect("subscribeToTask (tasks/resubscribe) until the task is canceled", () =>
        Effect.gen(function*() {
          const c = yield* client
          const task = yield* startWaitingTask(c)
          // Cancel once the subscription has delivered its first event.
          let first = true
          const events = yield* c.subscribeToTask({ id: task.id }).pipe(
            Stream.tap(() => {
              if (!first) return Effect.void
              first = false
              return Effect.forkDetach(c.cancelTask({ id: task.id }))
            }),
            Stream.runCollect
          )
          const k = kinds(events)
          expect(k[k.length - 1]).toBe("status:TASK_STATE_CANCELED")
        }))

      it.effect("push notification configs through the 0.3 methods", () =>
        Effect.gen(function*() {
          const c = yield* client
          const task = yield* startWaitingTask(c)
          const created = yield* c.createTaskPushNotificationConfig({
            taskId: task.id,
            id: "hook",
            url: "https://example.com/hook",
            token: "tok",
            authentication: { scheme: "Bearer", credentials: "secret" }
          })
          expect(created).toMatchObject({ taskId: task.id, id: "hook", url: "https://example.com/hook" })
          expect(created.authentication).toStrictEqual({ scheme: "Bearer", credentials: "secret" })
          const got = yield* c.getTaskPushNotificationConfig({ taskId: task.id, id: "hook" })
          expect(got.token).toBe("tok")
          const listed = yield* c.listTaskPushNotificationConfigs({ taskId: task.id })
          expect(listed).toStrictEqual({ configs: [got], nextPageToken: "" })
          yield* c.deleteTaskPushNotificationConfig({ taskId: task.id, id: "hook" })
          const after = yield* c.listTaskPushNotificationConfigs({ taskId: task.id })
          expect(after.configs).toEqual([])
          yield* c.cancelTask({ id: task.id })
        }))

      it.effect("errors: TaskNotFound from the peer; ListTasks refused without a request", () =>
        Effect.gen(function*() {
          const c = yield* client
          const peer = yield* SdkPeer03
          const notFound = yield* Effect.flip(c.getTask({ id: "missing" }))
          expect(notFound._tag).toBe("TaskNotFound")
          const before = peer.requests.length
          const list = yield* Effect.flip(c.listTasks())
          expect(list._tag).toBe("UnsupportedOperation")
          expect(peer.requests.length).toBe(before)
        }))

      it.effect("extensions are sent as A2A-Extensions and X-A2A-Extensions", () =>
        Effect.gen(function*() {
          const peer = yield* SdkPeer03
          const c = yield* V03Client.resolve(peer.url, { extensions: ["urn:ext:a"] })
          yield* c.sendMessage({ message: userText("hi") })
          const last = peer.requests[peer.requests.length - 1]!
          expect(last.headers["x-a2a-extensions"]).toBe("urn:ext:a")
          expect(last.headers["a2a-extensions"]).toBe("urn:ext:a")
        }))
    })

    describe("HTTP+JSON (0.3 REST), against the SDK's server and ours", () => {
      for (const peer of ["sdk", "ours"] as const) {
        const client = Effect.gen(function*() {
          const url = peer === "sdk" ? (yield* SdkPeer03).url : (yield* Both).url
          return yield* V03Client.resolve(url, { bindings: ["HTTP+JSON"], protocolVersions: ["0.3"] })
        })
        const slowText = peer === "sdk" ? "wait" : "slow"
        const taskText = peer === "sdk" ? "task" : "task report"

        it.effect(`${peer}: send, stream, get, cancel, subscribe`, () =>
          Effect.gen(function*() {
            const c = yield* client
            expect(c.interface).toMatchObject({ protocolBinding: "HTTP+JSON", protocolVersion: "0.3" })
            const echo = yield* c.sendMessage({ message: userText("hi") })
            expect("message" in echo && textOf(echo.message.parts)).toMatch(/^echo: hi$/i)
            const task = yield* Effect.flatMap(c.sendMessage({ message: userText(taskText) }), taskOf)
            expect(task.status.state).toBe("TASK_STATE_COMPLETED")
            const events = yield* Stream.runCollect(c.sendStreamingMessage({ message: userText(taskText) }))
            expect(kinds(events).at(-1)).toBe("status:TASK_STATE_COMPLETED")
            const slow = yield* Effect.flatMap(
              c.sendMessage({ message: userText(slowText), configuration: { returnImmediately: true } }),
              taskOf
            )
            expect((yield* c.getTask({ id: slow.id })).id).toBe(slow.id)
            let first = true
            const sub = yield* c.subscribeToTask({ id: slow.id }).pipe(
              Stream.tap(() => {
                if (!first) return Effect.void
                first = false
                return Effect.forkDetach(c.cancelTask({ id: slow.id }))
              }),
              Stream.runCollect
            )
            expect(kinds(sub).at(-1)).toBe("status:TASK_STATE_CANCELED")
            const missing = yield* Effect.flip(c.getTask({ id: "missing" }))
            expect(missing._tag).toBe("TaskNotFound")
          }))

        it.effect(`${peer}: getTask's historyLength reaches the peer (the 0.3 query codec, RestQuery)`, () =>
          Effect.gen(function*() {
            const c = yield* client
            const task = yield* Effect.flatMap(c.sendMessage({ message: userText(taskText) }), taskOf)
            const trimmed = yield* c.getTask({ id: task.id, historyLength: 1 })
            if (peer === "sdk") {
              // its agent's history is the one user message: what it read is seen in the query it received
              expect((yield* SdkPeer03).restQueries.at(-1)).toStrictEqual({ historyLength: "1" })
              expect(trimmed.history?.length).toBe(1)
            } else {
              const full = yield* c.getTask({ id: task.id })
              expect(full.history?.length).toBeGreaterThanOrEqual(2)
              expect(trimmed.history).toStrictEqual(full.history?.slice(-1))
            }
          }))

        it.effect(`${peer}: push configs`, () =>
          Effect.gen(function*() {
            const c = yield* client
            const slow = yield* Effect.flatMap(
              c.sendMessage({ message: userText(slowText), configuration: { returnImmediately: true } }),
              taskOf
            )
            const created = yield* c.createTaskPushNotificationConfig({
              taskId: slow.id,
              id: "hook",
              url: "https://example.com/hook",
              authentication: { scheme: "Bearer", credentials: "s" }
            })
            expect(created).toMatchObject({ taskId: slow.id, id: "hook", url: "https://example.com/hook" })
            const got = yield* c.getTaskPushNotificationConfig({ taskId: slow.id, id: "hook" })
            expect(got.authentication?.scheme).toBe("Bearer")
            const listed = yield* c.listTaskPushNotificationConfigs({ taskId: slow.id })
            expect(listed.configs?.map((x) => x.id)).toEqual(["hook"])
            yield* c.deleteTaskPushNotificationConfig({ taskId: slow.id, id: "hook" })
            expect((yield* c.listTaskPushNotificationConfigs({ taskId: slow.id })).configs).toEqual([])
            yield* c.cancelTask({ id: slow.id })
          }))
      }
    })

    describe("against our server, version pinned", () => {
      it.effect("unpinned, the card's order decides: 1.0", () =>
        Effect.gen(function*() {
          const server = yield* Both
          const c = yield* V03Client.resolve(server.url)
          expect(c.interface.protocolVersion).toBe("1.0")
        }))

      it.effect("pinned to 0.3: every operation over the 0.3 wire, 1.0 values out", () =>
        Effect.gen(function*() {
          const server = yield* Both
          const c = yield* V03Client.resolve(server.url, { protocolVersions: ["0.3"], bindings: ["JSONRPC"] })
          expect(c.interface.protocolVersion).toBe("0.3")
          const echo = yield* c.sendMessage({ message: userText("hi") })
          expect("message" in echo && textOf(echo.message.parts)).toBe("Echo: hi")
          const events = yield* Stream.runCollect(c.sendStreamingMessage({ message: userText("task report") }))
          expect(kinds(events).at(-1)).toBe("status:TASK_STATE_COMPLETED")
          const ask = yield* Effect.flatMap(c.sendMessage({ message: userText("ask") }), taskOf)
          expect(ask.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
          const answered = yield* Effect.flatMap(
            c.sendMessage({ message: userText("Ada", { taskId: ask.id, contextId: ask.contextId }) }),
            taskOf
          )
          expect(answered.artifacts?.map((a) => textOf(a.parts))).toEqual(["Hello, Ada!"])
          const history = yield* c.getTask({ id: answered.id })
          expect(history.history?.map((m) => m.role)).toContain("ROLE_USER")
          const wrong = yield* Effect.flip(c.getTask({ id: "missing" }))
          expect(wrong._tag).toBe("TaskNotFound")
        }))

      it.effect("pinned to a version the agent does not offer: no compatible interface", () =>
        Effect.gen(function*() {
          const server = yield* Both
          const error = yield* Effect.flip(V03Client.resolve(server.url, { protocolVersions: ["0.2"] }))
          expect(error._tag).toBe("A2ANoCompatibleInterface")
        }))
    })
  }
)
