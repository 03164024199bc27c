/**
 * The query string of the HTTP+JSON/REST binding (spec 11.5), end to end: for every operation whose request
 * travels in the query (GetTask, ListTasks, ListTaskPushNotificationConfigs; protocol/Operations `rest.query`), our
 * client's REST transport sends what the peer reads, shown by what the peer answers: a trimmed history, a filtered
 * page, the next page. The peers are our server and the official SDK's (@a2a-js/sdk over express).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../../src/client/A2AClient.ts"
import { userText } from "../../../src/client/Messages.ts"
import { Ours } from "../../client/OurServer.ts"
import { taskOf } from "../../client/Results.ts"
import { SdkPeer } from "./SdkServer.ts"

interface Peer {
  readonly name: string
  readonly url: Effect.Effect<string, never, Ours | SdkPeer>
  /** Texts that start a task left in `otherState` (not completed), answered at once. */
  readonly other: { readonly text: string; readonly state: string }
  /** Whether its agent stamps statuses with a time (the SDK's leaves them unstamped, and its filter then drops them). */
  readonly stampsStatus: boolean
  /** Whether it pages push configs (the SDK's REST route reads no query there and answers the whole list). */
  readonly pagesPushConfigs: boolean
}

const peers: ReadonlyArray<Peer> = [
  {
    name: "our server",
    url: Effect.map(Ours, (s) => s.url),
    other: { text: "ask", state: "TASK_STATE_INPUT_REQUIRED" },
    stampsStatus: true,
    pagesPushConfigs: true
  },
  {
    name: "the official SDK's server",
    url: Effect.map(SdkPeer, (s) => s.url),
    other: { text: "wait", state: "TASK_STATE_WORKING" },
    stampsStatus: false,
    pagesPushConfigs: false
  }
]

// the demo agent's steps sleep on the real clock
layer(Layer.mergeAll(Ours.layer, SdkPeer.layer, FetchHttpClient.layer), { excludeTestServices: true })(
  "REST query parameters",
  (it) => {
    for (const peer of peers) {
      describe(peer.name, () => {
        const client = Effect.flatMap(peer.url, (url) => A2AClient.resolve(url, { bindings: ["HTTP+JSON"] }))

        /** Two completed tasks and one in the other state, in a fresh context. */
        const tasksInContext = Effect.gen(function*() {
          const c = yield* client
          const contextId = crypto.randomUUID()
          const send = (text: string) =>
            Effect.flatMap(
              c.sendMessage({
                message: userText(text, { contextId }),
                configuration: { returnImmediately: text !== "task" }
              }),
              taskOf
            )
          const completed = [yield* send("task"), yield* send("task")]
          const other = yield* send(peer.other.text)
          return { c, contextId, completed, other }
        })

        it.effect("GetTask: historyLength trims the history to the latest messages", () =>
          Effect.gen(function*() {
            const { c, completed } = yield* tasksInContext
            const full = yield* c.getTask({ id: completed[0]!.id })
            const history = full.history ?? []
            expect(history.length).toBeGreaterThanOrEqual(2)
            const trimmed = yield* c.getTask({ id: completed[0]!.id, historyLength: 1 })
            expect(trimmed.history).toEqual(history.slice(-1))
          }))

        it.effect("ListTasks: contextId and status filter, pageSize and pageToken walk the filtered pages", () =>
          Effect.gen(function*() {
            const { c, completed, contextId, other } = yield* tasksInContext
            const first = yield* c.listTasks({ contextId, status: "TASK_STATE_COMPLETED", pageSize: 1 })
            expect(first.tasks.map((t) => t.status.state)).toEqual(["TASK_STATE_COMPLETED"])
            expect(first.totalSize).toBe(2)
            expect(first.nextPageToken).not.toBe("")
            const second = yield* c.listTasks({
              contextId,
              status: "TASK_STATE_COMPLETED",
              pageSize: 1,
              pageToken: first.nextPageToken
            })
            expect(second.tasks.map((t) => t.status.state)).toEqual(["TASK_STATE_COMPLETED"])
            expect([...first.tasks, ...second.tasks].map((t) => t.id).sort()).toEqual(completed.map((t) => t.id).sort())
            const others = yield* c.listTasks({ contextId, status: peer.other.state as "TASK_STATE_WORKING" })
            expect(others.tasks.map((t) => t.id)).toEqual([other.id])
          }))

        it.effect("ListTasks: historyLength, includeArtifacts and statusTimestampAfter", () =>
          Effect.gen(function*() {
            const { c, contextId } = yield* tasksInContext
            const withArtifacts = yield* c.listTasks({
              contextId,
              status: "TASK_STATE_COMPLETED",
              includeArtifacts: true
            })
            expect(withArtifacts.tasks.every((t) => (t.artifacts ?? []).length > 0)).toBe(true)
            const without = yield* c.listTasks({ contextId, status: "TASK_STATE_COMPLETED", includeArtifacts: false })
            expect(without.tasks.every((t) => (t.artifacts ?? []).length === 0)).toBe(true)
            const short = yield* c.listTasks({ contextId, historyLength: 1 })
            expect(short.tasks.length).toBe(3)
            expect(short.tasks.every((t) => (t.history ?? []).length <= 1)).toBe(true)
            const future = new Date(Date.now() + 3_600_000).toISOString()
            const none = yield* c.listTasks({ contextId, statusTimestampAfter: future })
            expect(none.tasks).toEqual([])
            if (peer.stampsStatus) {
              const past = new Date(Date.now() - 3_600_000).toISOString()
              const all = yield* c.listTasks({ contextId, statusTimestampAfter: past })
              expect(all.tasks.length).toBe(3)
            }
          }))

        if (peer.pagesPushConfigs) {
          it.effect("ListTaskPushNotificationConfigs: pageSize and pageToken walk the configs", () =>
            Effect.gen(function*() {
              const { c, other } = yield* tasksInContext
              const urls = ["https://hooks.example.com/1", "https://hooks.example.com/2", "https://hooks.example.com/3"]
              for (const url of urls) yield* c.createTaskPushNotificationConfig({ taskId: other.id, url })
              const first = yield* c.listTaskPushNotificationConfigs({ taskId: other.id, pageSize: 2 })
              expect(first.configs?.length).toBe(2)
              expect(first.nextPageToken).not.toBe("")
              const rest = yield* c.listTaskPushNotificationConfigs({
                taskId: other.id,
                pageSize: 2,
                pageToken: first.nextPageToken ?? ""
              })
              expect(rest.nextPageToken ?? "").toBe("")
              expect([...(first.configs ?? []), ...(rest.configs ?? [])].map((x) => x.url).sort()).toEqual(urls)
            }))
        }
      })
    }
  }
)
