/**
 * The official SDK's A2A 0.3 client (@a2a-js/sdk/compat/v0_3/client: the 0.3 JSON-RPC wire, no A2A-Version)
 * driving our server over real HTTP: card discovery, send, stream, get, cancel, resubscribe, push configs,
 * errors.
 */
import { AgentCard, SendMessageRequest, TaskState } from "@a2a-js/sdk"
import {
  isLegacyAgentCard,
  LegacyJsonRpcTransport,
  LegacyRestTransport,
  parseLegacyAgentCard
} from "@a2a-js/sdk/compat/v0_3/client"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Both } from "../../v0_3/fixtures/Server.ts"

const send = (text: string, extra: { readonly taskId?: string; readonly returnImmediately?: boolean } = {}) =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: "ROLE_USER",
      parts: [{ text }],
      ...(extra.taskId !== undefined ? { taskId: extra.taskId } : {})
    },
    ...(extra.returnImmediately !== undefined ? { configuration: { returnImmediately: extra.returnImmediately } } : {})
  })

const textOf = (
  parts: ReadonlyArray<{ readonly content?: { readonly $case: string; readonly value: unknown } | undefined }>
) => parts.map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("")

const collect = <A>(iterable: AsyncIterable<A>) =>
  Effect.promise(async () => {
    const out: Array<A> = []
    for await (const item of iterable) out.push(item)
    return out
  })

const failureOf = <A>(promise: () => Promise<A>) =>
  Effect.promise(() => promise().then(() => undefined, (e: unknown) => e as { readonly envelopeCode?: number }))

interface Card03 {
  readonly url: string
  readonly additionalInterfaces: ReadonlyArray<{ readonly url: string; readonly transport: string }>
}

// A 0.3 client fetches the card without A2A-Version and reads its endpoints.
const card03 = (url: string) =>
  Effect.promise(() => fetch(`${url}/.well-known/agent-card.json`).then((r) => r.json() as Promise<Card03>))

const transportFor = (url: string) =>
  Effect.map(card03(url), (card) => new LegacyJsonRpcTransport({ endpoint: card.url }))

const restTransportFor = (url: string) =>
  Effect.map(card03(url), (card) => {
    const rest = card.additionalInterfaces.find((i) => i.transport === "HTTP+JSON")
    if (rest === undefined) throw new Error("the card lists no 0.3 HTTP+JSON interface")
    return new LegacyRestTransport({ endpoint: rest.url })
  })

layer(Both.layer, { excludeTestServices: true })("the official SDK's 0.3 client against our server", (it) => {
  describe("card", () => {
    it.effect("the 0.3 card parses with the SDK's 0.3 card reader; its 1.0 interfaces take precedence", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const raw: unknown = yield* Effect.promise(() =>
          fetch(`${server.url}/.well-known/agent-card.json`).then((r) => r.json())
        )
        // A hybrid card is read as 1.0 by a 1.0 client (it carries supportedInterfaces)...
        expect(isLegacyAgentCard(raw)).toBe(false)
        // ...and a 0.3 reader finds its endpoint.
        const { supportedInterfaces: _, ...legacyOnly } = raw as Record<string, unknown>
        expect(isLegacyAgentCard(legacyOnly)).toBe(true)
        const card = parseLegacyAgentCard(legacyOnly)
        expect(card.name).toBe("effect-a2a demo agent")
        expect(card.supportedInterfaces[0]).toMatchObject({
          url: `${server.url}/`,
          protocolBinding: "JSONRPC",
          // the SDK carries the 0.3 card's full version over to the interface
          protocolVersion: "0.3.0"
        })
        expect(AgentCard.toJSON(card)).toMatchObject({ capabilities: { streaming: true, pushNotifications: true } })
      }))
  })

  describe("operations", () => {
    it.effect("sendMessage: a direct message, and a task run to completion", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* transportFor(server.url)
        const echo = yield* Effect.promise(() => transport.sendMessage(send("hello")))
        expect("messageId" in echo && textOf(echo.parts)).toBe("Echo: hello")
        const task = yield* Effect.promise(() => transport.sendMessage(send("task report")))
        if (!("status" in task)) throw new Error("expected a task")
        expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
        expect(textOf(task.artifacts[0]?.parts ?? [])).toBe("Chunk 1. Chunk 2. Chunk 3.")
      }))

    it.effect("sendMessageStream: task, working, artifact chunks, completed", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* transportFor(server.url)
        const events = yield* collect(transport.sendMessageStream(send("task report")))
        const cases = events.map((e) => e.payload?.$case)
        expect(cases[0]).toBe("task")
        expect(cases).toContain("artifactUpdate")
        const last = events[events.length - 1]?.payload
        expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
      }))

    it.effect("getTask, cancelTask, and cancelling twice is TaskNotCancelable (-32002)", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* transportFor(server.url)
        const started = yield* Effect.promise(() => transport.sendMessage(send("slow", { returnImmediately: true })))
        if (!("status" in started)) throw new Error("expected a task")
        const got = yield* Effect.promise(() => transport.getTask({ tenant: "", id: started.id, historyLength: 1 }))
        expect(got.id).toBe(started.id)
        expect(got.history.length).toBeLessThanOrEqual(1)
        const canceled = yield* Effect.promise(() => transport.cancelTask({ tenant: "", id: started.id, metadata: {} }))
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
        const again = yield* failureOf(() => transport.cancelTask({ tenant: "", id: started.id, metadata: {} }))
        expect(again?.envelopeCode).toBe(-32002)
      }))

    it.effect("resubscribeTask: the task, then its events until canceled", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* transportFor(server.url)
        const started = yield* Effect.promise(() => transport.sendMessage(send("slow", { returnImmediately: true })))
        if (!("status" in started)) throw new Error("expected a task")
        const events = yield* Effect.promise(async () => {
          const out: Array<string> = []
          for await (const event of transport.resubscribeTask({ tenant: "", id: started.id })) {
            const payload = event.payload
            out.push(payload?.$case ?? "none")
            if (out.length === 2) await transport.cancelTask({ tenant: "", id: started.id, metadata: {} })
            if (payload?.$case === "statusUpdate" && payload.value.status?.state === TaskState.TASK_STATE_CANCELED) {
              out.push("canceled")
            }
          }
          return out
        })
        expect(events[0]).toBe("task")
        expect(events[events.length - 1]).toBe("canceled")
      }))

    it.effect("push notification configs: create, get, list, delete", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* transportFor(server.url)
        const started = yield* Effect.promise(() => transport.sendMessage(send("slow", { returnImmediately: true })))
        if (!("status" in started)) throw new Error("expected a task")
        const taskId = started.id
        const created = yield* Effect.promise(() =>
          transport.createTaskPushNotificationConfig({
            tenant: "",
            taskId,
            id: "hook-1",
            url: "https://example.com/hook",
            token: "tok",
            authentication: { scheme: "Bearer", credentials: "c" }
          })
        )
        expect(created).toMatchObject({ taskId, id: "hook-1", url: "https://example.com/hook", token: "tok" })
        expect(created.authentication?.scheme).toBe("Bearer")
        const got = yield* Effect.promise(() =>
          transport.getTaskPushNotificationConfig({ tenant: "", taskId, id: "hook-1" })
        )
        expect(got.url).toBe("https://example.com/hook")
        const listed = yield* Effect.promise(() =>
          transport.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })
        )
        expect(listed.configs.map((c) => c.id)).toEqual(["hook-1"])
        yield* Effect.promise(() => transport.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "hook-1" }))
        const missing = yield* failureOf(() =>
          transport.getTaskPushNotificationConfig({ tenant: "", taskId, id: "hook-1" })
        )
        expect(missing?.envelopeCode).toBe(-32001)
        yield* Effect.promise(() => transport.cancelTask({ tenant: "", id: taskId, metadata: {} }))
      }))

    it.effect("errors keep their codes: unknown task -32001, no extended card -32004", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* transportFor(server.url)
        const notFound = yield* failureOf(() => transport.getTask({ tenant: "", id: "does-not-exist" }))
        expect(notFound?.envelopeCode).toBe(-32001)
        const noCard = yield* failureOf(() => transport.getExtendedAgentCard({ tenant: "" }))
        expect(noCard?.envelopeCode).toBe(-32004)
      }))
  })

  describe("HTTP+JSON (the SDK's 0.3 REST client)", () => {
    it.effect("send, stream, get, cancel", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* restTransportFor(server.url)
        const echo = yield* Effect.promise(() => transport.sendMessage(send("hello")))
        expect("messageId" in echo && textOf(echo.parts)).toBe("Echo: hello")
        const task = yield* Effect.promise(() => transport.sendMessage(send("task report")))
        if (!("status" in task)) throw new Error("expected a task")
        expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
        const events = yield* collect(transport.sendMessageStream(send("task report")))
        const last = events[events.length - 1]?.payload
        expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
        const slow = yield* Effect.promise(() => transport.sendMessage(send("slow", { returnImmediately: true })))
        if (!("status" in slow)) throw new Error("expected a task")
        const got = yield* Effect.promise(() => transport.getTask({ tenant: "", id: slow.id }))
        expect(got.id).toBe(slow.id)
        const canceled = yield* Effect.promise(() => transport.cancelTask({ tenant: "", id: slow.id, metadata: {} }))
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
      }))

    it.effect("resubscribe until canceled; push configs; errors keep their codes", () =>
      Effect.gen(function*() {
        const server = yield* Both
        const transport = yield* restTransportFor(server.url)
        const slow = yield* Effect.promise(() => transport.sendMessage(send("slow", { returnImmediately: true })))
        if (!("status" in slow)) throw new Error("expected a task")
        const created = yield* Effect.promise(() =>
          transport.createTaskPushNotificationConfig({
            tenant: "",
            taskId: slow.id,
            id: "hook",
            url: "https://example.com/hook",
            token: "t",
            authentication: undefined
          })
        )
        expect(created).toMatchObject({ taskId: slow.id, id: "hook", url: "https://example.com/hook" })
        const listed = yield* Effect.promise(() =>
          transport.listTaskPushNotificationConfig({ tenant: "", taskId: slow.id, pageSize: 0, pageToken: "" })
        )
        expect(listed.configs.map((c) => c.id)).toEqual(["hook"])
        yield* Effect.promise(() =>
          transport.deleteTaskPushNotificationConfig({ tenant: "", taskId: slow.id, id: "hook" })
        )
        const states = yield* Effect.promise(async () => {
          const out: Array<string> = []
          for await (const event of transport.resubscribeTask({ tenant: "", id: slow.id })) {
            out.push(event.payload?.$case ?? "none")
            if (out.length === 1) await transport.cancelTask({ tenant: "", id: slow.id, metadata: {} })
            const p = event.payload
            if (p?.$case === "statusUpdate" && p.value.status?.state === TaskState.TASK_STATE_CANCELED) {
              out.push("canceled")
            }
          }
          return out
        })
        expect(states[0]).toBe("task")
        expect(states[states.length - 1]).toBe("canceled")
        const notFound = yield* failureOf(() => transport.getTask({ tenant: "", id: "missing" }))
        expect((notFound as { readonly name?: string } | undefined)?.name).toBe("TaskNotFoundError")
      }))
  })
})
