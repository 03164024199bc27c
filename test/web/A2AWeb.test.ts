/**
 * effect-a2a/web's handler called with web-standard Requests, as Bun, Deno or a Worker call it: the card at the
 * request's origin, 1.0 over JSON-RPC and REST, 0.3 only with its wing, streams that end when the request's signal
 * aborts and when the handler is disposed, auth, the stores given, push over fetch through the guard, extensions.
 * Webhooks are received by a real server on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import * as WebhookGuard from "../../src/server/push/WebhookGuard.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import * as A2AWeb from "../../src/web/A2AWeb.ts"
import * as Receiver from "../server/push/receiver.ts"

const V1 = { "a2a-version": "1.0", "content-type": "application/json" }

let n = 0
const message = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: `web-${++n}`, role: "ROLE_USER", parts: [{ text }], ...extra }
})

/** A handler for the test's scope, disposed at its end. */
const handlerOf = (options: Partial<A2AWeb.Options> = {}) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make({ slowSteps: 100_000 }), ...options })
    ),
    (web) => Effect.promise(() => web.dispose())
  )

const call = (web: A2AWeb.WebHandler, path: string, init: RequestInit & { host?: string } = {}) =>
  Effect.promise(() => web.handler(new Request(`http://${init.host ?? "agent.test"}${path}`, init)))

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field and asserted
type Json = Record<string, any>

const json = (response: Response) => Effect.promise(() => response.json() as Promise<Json>)

const post = (web: A2AWeb.WebHandler, path: string, body: unknown, headers: Record<string, string> = V1) =>
  call(web, path, { method: "POST", headers, body: JSON.stringify(body) })

/** Reads a response body to its end (or its error), as text. */
const drain = (response: Response) =>
  Effect.promise(async () => {
    let text = ""
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value)
    } catch {
      // an aborted body may end in an error: what matters is that it ends
    }
    return text
  })

const firstEvent = (response: Response) =>
  Effect.promise(async () => {
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    while (!text.includes("\n\n")) {
      const r = await reader.read()
      if (r.done) break
      text += decoder.decode(r.value)
    }
    reader.releaseLock()
    return JSON.parse(text.slice(text.indexOf("data:") + 5, text.indexOf("\n\n"))) as Json
  })

describe("A2AWeb", () => {
  it.live("the card names the origin of each request (or the public URL), and the routes it serves", () =>
    Effect.gen(function*() {
      const web = yield* handlerOf({ jsonRpcPath: "/a2a/rpc", restPath: "/a2a" })
      const card = yield* json(yield* call(web, "/.well-known/agent-card.json", { host: "agent.example:9000" }))
      assert.deepStrictEqual(card.supportedInterfaces.map((i: { url: string }) => i.url), [
        "http://agent.example:9000/a2a/rpc",
        "http://agent.example:9000/a2a"
      ])
      const behind = yield* handlerOf({ publicUrl: "https://agents.example.com" })
      const publicCard = yield* json(yield* call(behind, "/.well-known/agent-card.json"))
      assert.strictEqual(publicCard.supportedInterfaces[0].url, "https://agents.example.com/")
    }).pipe(Effect.scoped))

  it.live("1.0 over JSON-RPC and REST; 0.3 only when its wing is given", () =>
    Effect.gen(function*() {
      const web = yield* handlerOf()
      const rest = yield* json(yield* post(web, "/message:send", message("hi")))
      assert.strictEqual(rest.message.parts[0].text, "Echo: hi")
      const rpc = yield* json(
        yield* post(web, "/", { jsonrpc: "2.0", id: 1, method: "SendMessage", params: message("there") })
      )
      assert.strictEqual(rpc.result.message.parts[0].text, "Echo: there")

      const v03 = {
        jsonrpc: "2.0",
        id: 2,
        method: "message/send",
        params: { message: { kind: "message", messageId: "m03", role: "user", parts: [{ kind: "text", text: "old" }] } }
      }
      const without = yield* json(yield* post(web, "/", v03, { "content-type": "application/json" }))
      assert.strictEqual(without.error.code, -32009)
      const withWing = yield* handlerOf({ layers: A2A03.server })
      const answered = yield* json(yield* post(withWing, "/", v03, { "content-type": "application/json" }))
      assert.strictEqual(answered.result.kind, "message")
      assert.strictEqual(answered.result.parts[0].text, "Echo: old")
    }).pipe(Effect.scoped))

  it.live("a stream ends when the request's signal aborts; the task goes on", () =>
    Effect.gen(function*() {
      const web = yield* handlerOf()
      const abort = new AbortController()
      const response = yield* call(web, "/message:stream", {
        method: "POST",
        headers: V1,
        body: JSON.stringify(message("slow")),
        signal: abort.signal
      })
      assert.strictEqual(response.headers.get("content-type"), "text/event-stream")
      const first = yield* firstEvent(response)
      abort.abort()
      // "slow" runs until canceled: without the abort ending the stream, this would never return
      yield* drain(response)
      const task = yield* json(yield* call(web, `/tasks/${first.task.id}`, { headers: V1 }))
      assert.strictEqual(task.status.state, "TASK_STATE_WORKING")
    }).pipe(Effect.scoped))

  it.live("dispose ends open streams", () =>
    Effect.gen(function*() {
      const web = A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make({ slowSteps: 100_000 }) })
      const response = yield* post(web, "/message:stream", message("slow"))
      yield* firstEvent(response)
      yield* Effect.promise(() => web.dispose())
      yield* drain(response)
    }))

  it.live("auth: refused without a credential, scoped to the caller with one, advertised on the card", () =>
    Effect.gen(function*() {
      const web = yield* handlerOf({ auth: Auth.bearer({ tokens: { "s3cret": "alice", "other": "bob" } }) })
      const card = yield* json(yield* call(web, "/.well-known/agent-card.json"))
      assert.deepStrictEqual(Object.keys(card.securitySchemes), ["bearer"])
      const refused = yield* post(web, "/message:send", message("hi"))
      assert.strictEqual(refused.status, 401)
      const alice = { ...V1, authorization: "Bearer s3cret" }
      const sent = yield* json(
        yield* post(web, "/message:send", { ...message("task x"), configuration: { returnImmediately: true } }, alice)
      )
      const id: string = sent.task.id
      assert.strictEqual((yield* call(web, `/tasks/${id}`, { headers: alice })).status, 200)
      assert.strictEqual(
        (yield* call(web, `/tasks/${id}`, { headers: { ...V1, authorization: "Bearer other" } })).status,
        404
      )
    }).pipe(Effect.scoped))

  it.live("the stores given are the ones used", () =>
    Effect.gen(function*() {
      const saved: Array<string> = []
      const counting = Layer.effect(
        TaskStore,
        Effect.map(MemoryTaskStore.make, (store) =>
          TaskStore.of({
            ...store,
            save: (record) => Effect.andThen(Effect.sync(() => saved.push(record.task.id)), store.save(record))
          }))
      )
      const web = yield* handlerOf({ stores: Layer.merge(counting, MemoryPushConfigStore.layer) })
      const sent = yield* json(yield* post(web, "/message:send", message("task y")))
      assert.strictEqual(sent.task.status.state, "TASK_STATE_COMPLETED")
      assert.include(saved, sent.task.id)
    }).pipe(Effect.scoped))

  it.live("push over fetch: an allowlisted webhook receives the task's events; internal URLs are refused", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const allowlist = Result.getOrThrow(WebhookGuard.parseAllowlist("127.0.0.1"))
      const web = yield* handlerOf({ push: { allowlist } })
      const sent = yield* json(
        yield* post(web, "/message:send", {
          ...message("task z"),
          configuration: { taskPushNotificationConfig: { url: receiver.url("/hook"), token: "tok" } }
        })
      )
      assert.strictEqual(sent.task.status.state, "TASK_STATE_COMPLETED")
      yield* receiver.waitFor("/hook", 3)
      const hook = receiver.on("/hook")
      assert.strictEqual(hook[0]!.headers["x-a2a-notification-token"], "tok")
      assert.strictEqual(hook[0]!.headers["content-type"], "application/a2a+json")
      for (const { body } of hook) {
        assert.includeMembers(["task", "statusUpdate", "artifactUpdate"], Object.keys(JSON.parse(body)), body)
      }

      const guarded = yield* handlerOf()
      for (const url of [receiver.url("/x"), `http://localhost:${receiver.port}/x`, "http://169.254.169.254/latest"]) {
        const refused = yield* post(guarded, "/message:send", {
          ...message("task w"),
          configuration: { taskPushNotificationConfig: { url } }
        })
        assert.strictEqual(refused.status, 400, url)
        const body = yield* json(refused)
        assert.include(body.error.message, "webhooks to internal networks are refused", url)
      }
      assert.lengthOf(receiver.on("/x"), 0)
    }).pipe(Effect.scoped))

  it.live("extensions the card declares are acknowledged in A2A-Extensions", () =>
    Effect.gen(function*() {
      const uri = "https://example.com/ext/trace/v1"
      const card = { ...DemoAgent.card, capabilities: { ...DemoAgent.card.capabilities, extensions: [{ uri }] } }
      const web = yield* handlerOf({ card })
      const response = yield* post(web, "/message:send", message("hi"), {
        ...V1,
        "a2a-extensions": `${uri}, https://example.com/unknown`
      })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers.get("a2a-extensions"), uri)
    }).pipe(Effect.scoped))

  it.live("request bodies: read across chunks, under the size limit, never past a declared length", () =>
    Effect.gen(function*() {
      const web = yield* handlerOf({ maxBodyBytes: 1024 })
      const streamed = (chunks: ReadonlyArray<Uint8Array>, headers: Record<string, string> = V1) =>
        call(web, "/", {
          method: "POST",
          headers,
          body: new ReadableStream<Uint8Array>({
            start(controller) {
              for (const chunk of chunks) controller.enqueue(chunk)
              controller.close()
            }
          }),
          duplex: "half"
        } as RequestInit)
      const bytes = new TextEncoder().encode(
        `\uFEFF${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendMessage", params: message("héllo") })}`
      )
      // A leading BOM is dropped and a two-byte character split between chunks is whole again.
      const cut = bytes.indexOf(0xc3) + 1
      const echoed = yield* json(yield* streamed([bytes.slice(0, cut), bytes.slice(cut)]))
      assert.strictEqual(echoed.id, 7)
      assert.strictEqual(echoed.result.message.parts[0].text, "Echo: héllo")

      const big = new Uint8Array(600).fill(0x20)
      const tooLarge = yield* streamed([big, big])
      assert.strictEqual(tooLarge.status, 413)
      assert.strictEqual((yield* json(tooLarge)).error.code, -32600)
      const understated = yield* streamed([bytes], { ...V1, "content-length": "10" })
      assert.strictEqual((yield* json(understated)).error.code, -32700)
      const strings = yield* call(web, "/", {
        method: "POST",
        headers: V1,
        body: new ReadableStream<string>({
          start(controller) {
            controller.enqueue("{}")
            controller.close()
          }
        }),
        duplex: "half"
      } as RequestInit)
      assert.strictEqual((yield* json(strings)).error.code, -32700)
      const empty = yield* call(web, "/", { method: "POST", headers: V1 })
      assert.strictEqual((yield* json(empty)).error.code, -32700)
    }).pipe(Effect.scoped))

  it.live("fromLayer serves a server core composed elsewhere", () =>
    Effect.gen(function*() {
      const web = yield* Effect.acquireRelease(
        Effect.sync(() =>
          A2AWeb.fromLayer(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }), { restPath: "/v1x" })
        ),
        (web) => Effect.promise(() => web.dispose())
      )
      const sent = yield* json(yield* post(web, "/v1x/message:send", message("hey")))
      assert.strictEqual(sent.message.parts[0].text, "Echo: hey")
      const missing = yield* call(web, "/nope")
      assert.strictEqual(missing.status, 404)
    }).pipe(Effect.scoped))
})
