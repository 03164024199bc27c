/**
 * The LLM bridge through the in-memory server core: a scripted LanguageModel (no network) drives LlmAgent, and the
 * test reads the A2A events and tasks the RequestHandler gives a client.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import * as AiError from "effect/ai/AiError"
import type * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Caller from "../../src/ai/Caller.ts"
import * as LlmAgent from "../../src/ai/LlmAgent.ts"
import * as ScriptedModel from "../../src/ai/ScriptedModel.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import type { AgentExecutor } from "../../src/server/AgentExecutor.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import { ctxFor, principal, send, taskOf } from "../server/support.ts"

const serve = <R>(executor: Layer.Layer<AgentExecutor, never, R>) =>
  A2AServer.layer({
    card: { ...DemoAgent.card, defaultInputModes: ["text/plain", "image/*", "application/pdf", "application/zip"] },
    executor
  })

/** The user's text in each message of a prompt, for reading what the model was sent. */
const lines = (prompt: Prompt.Prompt): Array<string> =>
  prompt.content.map((message) =>
    `${message.role}:${
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) =>
          part.type === "text"
            ? part.text
            : part.type === "tool-call"
            ? `call ${part.name}`
            : part.type === "tool-result"
            ? `result ${part.name}`
            : part.type
        ).join("|")
    }`
  )

const artifactEvents = (events: ReadonlyArray<v1.StreamResponse>) =>
  events.flatMap((e) =>
    "artifactUpdate" in e
      ? [{
        id: e.artifactUpdate.artifact.artifactId,
        text: e.artifactUpdate.artifact.parts.map((p) => ("text" in p ? p.text : "?")).join(""),
        append: e.artifactUpdate.append ?? false,
        lastChunk: e.artifactUpdate.lastChunk ?? false
      }]
      : []
  )

const states = (events: ReadonlyArray<v1.StreamResponse>) =>
  events.flatMap((e) => "task" in e ? [e.task.status.state] : "statusUpdate" in e ? [e.statusUpdate.status.state] : [])

const statusTexts = (events: ReadonlyArray<v1.StreamResponse>) =>
  events.flatMap((e) =>
    "statusUpdate" in e && e.statusUpdate.status.message !== undefined
      ? [e.statusUpdate.status.message.parts.map((p) => ("text" in p ? p.text : "")).join("")]
      : []
  )

describe("LlmAgent", () => {
  it.effect("streams text deltas into one artifact: created, appended, lastChunk; then COMPLETED", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const events = Array.from(yield* Stream.runCollect(handler.sendStreamingMessage(send("hi"), ctx)))
      assert.deepStrictEqual(states(events), ["TASK_STATE_SUBMITTED", "TASK_STATE_COMPLETED"])
      const chunks = artifactEvents(events)
      assert.deepStrictEqual(chunks.map(({ append, lastChunk, text }) => ({ text, append, lastChunk })), [
        { text: "Hel", append: false, lastChunk: false },
        { text: "lo ", append: true, lastChunk: false },
        { text: "there", append: true, lastChunk: true }
      ])
      assert.strictEqual(new Set(chunks.map((c) => c.id)).size, 1)
      const id = "task" in events[0]! ? events[0].task.id : ""
      const task = yield* handler.getTask({ id }, ctx)
      // the store appends the chunks' parts to the one artifact
      assert.deepStrictEqual(task.artifacts?.map((a) => a.parts), [[{ text: "Hel" }, { text: "lo " }, {
        text: "there"
      }]])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({}).pipe(
        Layer.provide(ScriptedModel.layer(() => ScriptedModel.text(["Hel", "lo ", "there"])))
      )
    ))))

  it.effect("a final text that differs from the streamed one replaces the artifact before the final status", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const events = Array.from(yield* Stream.runCollect(handler.sendStreamingMessage(send("hi"), ctxFor())))
      const chunks = artifactEvents(events)
      // streamed A, B, C in arrival order; the model's text is block a ("AC") then block b ("B")
      assert.deepStrictEqual(chunks.map(({ append, lastChunk, text }) => ({ text, append, lastChunk })), [
        { text: "A", append: false, lastChunk: false },
        { text: "B", append: true, lastChunk: false },
        { text: "ACB", append: false, lastChunk: true }
      ])
      assert.strictEqual(states(events).at(-1), "TASK_STATE_COMPLETED")
      const last = events.at(-1)!
      assert.isTrue("statusUpdate" in last)
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({}).pipe(
        Layer.provide(ScriptedModel.layer(() => [
          { type: "text-start", id: "a" },
          { type: "text-start", id: "b" },
          { type: "text-delta", id: "a", delta: "A" },
          { type: "text-delta", id: "b", delta: "B" },
          { type: "text-delta", id: "a", delta: "C" },
          { type: "text-end", id: "a" },
          { type: "text-end", id: "b" },
          ScriptedModel.finish()
        ]))
      )
    ))))

  it.effect("deltas the conversation does not keep (no text-start) still stand as the answer", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const events = Array.from(yield* Stream.runCollect(handler.sendStreamingMessage(send("hi"), ctx)))
      assert.deepStrictEqual(artifactEvents(events).map(({ lastChunk, text }) => [text, lastChunk]), [
        ["a", false],
        ["b", true]
      ])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({}).pipe(
        Layer.provide(ScriptedModel.layer(() => [
          { type: "text-delta", id: "x", delta: "a" },
          { type: "text-delta", id: "x", delta: "b" },
          ScriptedModel.finish()
        ]))
      )
    ))))

  it.effect("reasoning is not part of the answer", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const task = yield* taskOf(yield* handler.sendMessage(send("hi"), ctxFor()))
      assert.deepStrictEqual(task.artifacts?.map((a) => a.parts), [[{ text: "42" }]])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({}).pipe(
        Layer.provide(ScriptedModel.layer(() => [
          { type: "reasoning-start", id: "r" },
          { type: "reasoning-delta", id: "r", delta: "let me think" },
          { type: "reasoning-end", id: "r" },
          ...ScriptedModel.text("42")
        ]))
      )
    ))))

  const GetWeather = Tool.make("get_weather", {
    description: "The weather in a city",
    parameters: Schema.Struct({ city: Schema.String }),
    success: Schema.String,
    dependencies: [Caller.Caller]
  })
  const Tools = Toolkit.make(GetWeather)
  const toolHandlers = Tools.toLayer({
    get_weather: ({ city }) =>
      Effect.map(
        Effect.service(Caller.Caller),
        (caller) =>
          `Sunny in ${city} for ${caller.principal.id}${
            Option.match(caller.bearerToken, { onNone: () => "", onSome: (t) => ` token=${Redacted.value(t)}` })
          }`
      )
  })
  /** Calls get_weather first, then answers with the tool's result it was sent. */
  const weatherModel = ScriptedModel.layer((request) => {
    const last = request.prompt.content.at(-1)
    if (last?.role === "tool") {
      const result = last.content[0]
      return ScriptedModel.text(`Report: ${result?.type === "tool-result" ? String(result.result) : "?"}`)
    }
    return ScriptedModel.toolCall("get_weather", { city: "Paris" })
  })

  it.effect("tool calls and results show as WORKING messages; the tool reads the Caller; then the answer", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const alice = principal("alice")
      const events = Array.from(
        yield* Stream.runCollect(handler.sendStreamingMessage(
          send("weather?"),
          ctxFor(alice, { headers: { authorization: "Bearer tok-123" } })
        ))
      )
      assert.deepStrictEqual(states(events), [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED"
      ])
      assert.deepStrictEqual(statusTexts(events), [
        `Calling get_weather: {"city":"Paris"}`,
        `get_weather returned: Sunny in Paris for alice`
      ])
      assert.deepStrictEqual(artifactEvents(events).map((c) => c.text), ["Report: Sunny in Paris for alice"])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({ toolkit: Tools }).pipe(
        Layer.provide([weatherModel, toolHandlers])
      )
    ))))

  it.effect("forwardBearerToken hands the caller's token to tools; toolStatus: false hides the tool messages", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const events = Array.from(
        yield* Stream.runCollect(handler.sendStreamingMessage(
          send("weather?"),
          ctxFor(principal("bob"), { headers: { authorization: "Bearer tok-123" } })
        ))
      )
      assert.deepStrictEqual(states(events), ["TASK_STATE_SUBMITTED", "TASK_STATE_COMPLETED"])
      assert.deepStrictEqual(artifactEvents(events).map((c) => c.text), [
        "Report: Sunny in Paris for bob token=tok-123"
      ])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({ toolkit: Tools, forwardBearerToken: true, toolStatus: false }).pipe(
        Layer.provide([weatherModel, toolHandlers])
      )
    ))))

  it.effect("a model that keeps calling tools is stopped after maxSteps calls: FAILED, saying so", () => {
    let calls = 0
    const model = ScriptedModel.layer(() => {
      calls++
      return ScriptedModel.toolCall("get_weather", { city: "Paris" }, `call-${calls}`)
    })
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const task = yield* taskOf(yield* handler.sendMessage(send("loop"), ctxFor()))
      assert.strictEqual(task.status.state, "TASK_STATE_FAILED")
      assert.match(JSON.stringify(task.status.message), /still calling tools after 3 calls/)
      assert.strictEqual(calls, 3)
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({ toolkit: Tools, maxSteps: 3 }).pipe(
        Layer.provide([model, toolHandlers])
      )
    )))
  })

  it.effect("a 'pause' finish ends the turn INPUT_REQUIRED; the streamed text stays the answer", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const task = yield* taskOf(yield* handler.sendMessage(send("go"), ctxFor()))
      assert.strictEqual(task.status.state, "TASK_STATE_INPUT_REQUIRED")
      assert.deepStrictEqual(task.artifacts?.map((a) => a.parts), [[{ text: "Half done." }]])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({}).pipe(
        Layer.provide(ScriptedModel.layer(() => ScriptedModel.text("Half done.", { finish: "pause" })))
      )
    ))))

  it.effect("ask_user: INPUT_REQUIRED with the question; the answer on the task continues the conversation", () => {
    const prompts: Array<Array<string>> = []
    const model = ScriptedModel.layer((request) => {
      prompts.push(lines(request.prompt))
      const last = request.prompt.content.at(-1)
      if (last?.role === "user") {
        const said = lines(request.prompt).at(-1)!
        return said === "user:Ada" ? ScriptedModel.text("Hello, Ada!") : ScriptedModel.toolCall("ask_user", {
          question: "What is your name?"
        })
      }
      return ScriptedModel.text("(waiting)")
    })
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const asked = yield* taskOf(yield* handler.sendMessage(send("greet me"), ctx))
      assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
      assert.deepStrictEqual(asked.status.message?.parts, [{ text: "What is your name?" }])
      assert.strictEqual(prompts.length, 1, "the model is not called again after asking")
      const done = yield* taskOf(yield* handler.sendMessage(send("Ada", { taskId: asked.id }), ctx))
      assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
      assert.deepStrictEqual(done.artifacts?.at(-1)?.parts, [{ text: "Hello, Ada!" }])
      assert.deepStrictEqual(prompts[1], [
        "system:Be brief.",
        "user:greet me",
        "assistant:call ask_user",
        "tool:result ask_user",
        "user:Ada"
      ])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({ instructions: "Be brief.", askUser: true }).pipe(Layer.provide(model))
    )))
  })

  const DeleteFile = Tool.make("delete_file", {
    description: "Deletes a file",
    parameters: Schema.Struct({ path: Schema.String }),
    success: Schema.String,
    needsApproval: true
  })
  const Risky = Toolkit.make(DeleteFile)
  /** Asks to delete, then reports what the tool's result (or its denial) said. */
  const deletingModel = ScriptedModel.layer((request) => {
    const last = request.prompt.content.at(-1)
    if (last?.role === "tool") {
      const result = last.content.find((p) => p.type === "tool-result")
      return ScriptedModel.text(
        result?.type === "tool-result"
          ? `${result.isFailure ? "Not done" : "Done"}: ${JSON.stringify(result.result)}`
          : "?"
      )
    }
    return ScriptedModel.toolCall("delete_file", { path: "/tmp/x" })
  })

  for (
    const [answer, ran, reply] of [["yes", 1, /^Done: "deleted \/tmp\/x"$/], ["no, keep it", 0, /^Not done/]] as const
  ) {
    it.effect(`a tool that needs approval: INPUT_REQUIRED asking; "${answer}" on the task ${ran ? "runs" : "skips"} it`, () => {
      let deleted = 0
      const handlers = Risky.toLayer({
        delete_file: ({ path }) => Effect.sync(() => (deleted++, `deleted ${path}`))
      })
      return Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("clean up"), ctx))
        assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
        assert.deepStrictEqual(asked.status.message?.parts, [{
          text: `Approve delete_file {"path":"/tmp/x"}? Answer yes to run it, or no.`
        }])
        assert.strictEqual(deleted, 0)
        const done = yield* taskOf(yield* handler.sendMessage(send(answer, { taskId: asked.id }), ctx))
        assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
        assert.strictEqual(deleted, ran)
        const text = done.artifacts?.at(-1)?.parts.map((p) => ("text" in p ? p.text : "")).join("") ?? ""
        assert.match(text, reply)
      }).pipe(Effect.provide(serve(
        LlmAgent.layer({ toolkit: Risky }).pipe(
          Layer.provide([deletingModel, handlers])
        )
      )))
    })
  }

  it.effect("a context keeps its conversation; other contexts and other callers start their own", () => {
    const prompts: Array<Array<string>> = []
    const model = ScriptedModel.layer((request) => {
      prompts.push(lines(request.prompt))
      return ScriptedModel.text(`reply ${prompts.length}`)
    })
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const alice = ctxFor(principal("alice"))
      yield* handler.sendMessage(send("one", { contextId: "c1" }), alice)
      yield* handler.sendMessage(send("two", { contextId: "c1" }), alice)
      yield* handler.sendMessage(send("other", { contextId: "c2" }), alice)
      yield* handler.sendMessage(send("mallory", { contextId: "c1" }), ctxFor(principal("mallory")))
      assert.deepStrictEqual(prompts, [
        ["user:one"],
        ["user:one", "assistant:reply 1", "user:two"],
        ["user:other"],
        ["user:mallory"]
      ])
    }).pipe(Effect.provide(serve(LlmAgent.layer({}).pipe(Layer.provide(model)))))
  })

  it.effect("maxTurns bounds what is kept and sent; 'request' keeps nothing across tasks", () => {
    const prompts: Array<Array<string>> = []
    const model = ScriptedModel.layer((request) => {
      prompts.push(lines(request.prompt))
      return ScriptedModel.text("ok")
    })
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      for (const text of ["1", "2", "3"]) yield* handler.sendMessage(send(text, { contextId: "bounded" }), ctx)
      assert.deepStrictEqual(prompts.at(-1), ["user:2", "assistant:ok", "user:3"])
    }).pipe(
      Effect.provide(serve(LlmAgent.layer({ maxTurns: 2 }).pipe(Layer.provide(model)))),
      Effect.andThen(
        Effect.gen(function*() {
          prompts.length = 0
          const handler = yield* RequestHandler
          const ctx = ctxFor()
          yield* handler.sendMessage(send("a", { contextId: "r" }), ctx)
          yield* handler.sendMessage(send("b", { contextId: "r" }), ctx)
          assert.deepStrictEqual(prompts, [["user:a"], ["user:b"]])
        }).pipe(Effect.provide(serve(LlmAgent.layer({ conversation: "request" }).pipe(Layer.provide(model)))))
      )
    )
  })

  it.effect("the provider refusing the credentials: AUTH_REQUIRED; another provider error: FAILED, no secret", () => {
    const model = ScriptedModel.layer((request) => {
      const said = lines(request.prompt).at(-1)
      return Stream.fail(AiError.make({
        module: "OpenAiClient",
        method: "streamText",
        reason: said === "user:auth"
          ? new AiError.AuthenticationError({ kind: "InvalidKey" })
          : new AiError.InvalidRequestError({
            description: "model not found at https://api.example.com/v1/chat?key=sk-abcdefgh12345678 Bearer abc.def"
          })
      }))
    })
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      const auth = yield* taskOf(yield* handler.sendMessage(send("auth"), ctx))
      assert.strictEqual(auth.status.state, "TASK_STATE_AUTH_REQUIRED")
      const failed = yield* taskOf(yield* handler.sendMessage(send("other"), ctx))
      assert.strictEqual(failed.status.state, "TASK_STATE_FAILED")
      const message = JSON.stringify(failed.status.message)
      assert.match(message, /InvalidRequestError/)
      assert.match(message, /model not found at https:\/\/api.example.com\/v1\/chat/)
      assert.notMatch(message, /sk-abcdefgh|abc\.def/)
    }).pipe(Effect.provide(serve(LlmAgent.layer({}).pipe(Layer.provide(model)))))
  })

  it.effect("file and data parts reach the prompt; a file without a media type is InvalidParams", () => {
    const sent: Array<Prompt.Prompt> = []
    const model = ScriptedModel.layer((request) => {
      sent.push(request.prompt)
      return ScriptedModel.text("seen")
    })
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ctx = ctxFor()
      yield* handler.sendMessage(
        send("", {
          parts: [
            { text: "look" },
            { raw: "iVBORw0KGgo=", mediaType: "image/png", filename: "a.png" },
            { url: "https://example.com/doc.pdf", mediaType: "application/pdf" },
            { data: { n: 1 } }
          ]
        }),
        ctx
      )
      const user = sent[0]!.content.at(-1)!
      assert.strictEqual(user.role, "user")
      const parts = user.role === "user" ? user.content : []
      assert.deepStrictEqual(parts.map((p) => p.type), ["text", "file", "file", "text"])
      const [, image, pdf, data] = parts
      assert.strictEqual(image?.type === "file" ? image.mediaType : "", "image/png")
      assert.strictEqual(pdf?.type === "file" ? String(pdf.data) : "", "https://example.com/doc.pdf")
      assert.strictEqual(data?.type === "text" ? data.text : "", `{"n":1}`)
      const refused = yield* Effect.flip(handler.sendMessage(send("", { parts: [{ raw: "AAAA" }] }), ctx))
      assert.strictEqual(refused._tag, "InvalidParams")
    }).pipe(Effect.provide(serve(LlmAgent.layer({}).pipe(Layer.provide(model)))))
  })

  it.effect("a media type outside acceptedMediaTypes is ContentTypeNotSupported", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const refused = yield* Effect.flip(
        handler.sendMessage(send("", { parts: [{ raw: "AAAA", mediaType: "application/zip" }] }), ctxFor())
      )
      assert.strictEqual(refused._tag, "ContentTypeNotSupported")
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({ acceptedMediaTypes: ["image/*"] }).pipe(
        Layer.provide(ScriptedModel.layer(() => ScriptedModel.text("x")))
      )
    ))))

  it.effect("files the model returns become file parts", () =>
    Effect.gen(function*() {
      const handler = yield* RequestHandler
      const task = yield* taskOf(yield* handler.sendMessage(send("draw"), ctxFor()))
      assert.deepStrictEqual(task.artifacts?.map((a) => a.parts), [[{ raw: "AQID", mediaType: "image/png" }], [{
        text: "here"
      }]])
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({}).pipe(
        Layer.provide(ScriptedModel.layer(() => [
          { type: "file", mediaType: "image/png", data: "AQID" },
          ...ScriptedModel.text("here")
        ]))
      )
    ))))

  it.effect("with a response Schema the answer is a data part checked by it", () => {
    const Answer = Schema.Struct({ city: Schema.String, degrees: Schema.Number })
    let reply = `{"city":"Paris","degrees":21}`
    return Effect.gen(function*() {
      const handler = yield* RequestHandler
      const ok = yield* taskOf(yield* handler.sendMessage(send("weather"), ctxFor()))
      assert.strictEqual(ok.status.state, "TASK_STATE_COMPLETED")
      assert.deepStrictEqual(ok.artifacts?.[0]?.parts, [{ data: { city: "Paris", degrees: 21 } }])
      reply = `{"city":"Paris"}`
      const bad = yield* taskOf(yield* handler.sendMessage(send("weather"), ctxFor()))
      assert.strictEqual(bad.status.state, "TASK_STATE_FAILED")
      assert.match(JSON.stringify(bad.status.message), /degrees/)
    }).pipe(Effect.provide(serve(
      LlmAgent.layer({ responseSchema: Answer }).pipe(
        Layer.provide(ScriptedModel.layer(() => ScriptedModel.text(reply)))
      )
    )))
  })

  it.live("CancelTask interrupts the model call", () => {
    return Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const closed = yield* Deferred.make<void>()
      const model = ScriptedModel.layer(() =>
        Stream.concat(
          Stream.fromIterable(ScriptedModel.text("partial").slice(0, 2)),
          Stream.fromEffect(Effect.andThen(Deferred.succeed(started, undefined), Effect.never)).pipe(
            Stream.ensuring(Deferred.succeed(closed, undefined))
          )
        )
      )
      yield* Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const task = yield* taskOf(
          yield* handler.sendMessage(send("long", { configuration: { returnImmediately: true } }), ctx)
        )
        yield* Deferred.await(started)
        const canceled = yield* handler.cancelTask({ id: task.id }, ctx)
        assert.strictEqual(canceled.status.state, "TASK_STATE_CANCELED")
        yield* Deferred.await(closed)
      }).pipe(Effect.provide(serve(LlmAgent.layer({}).pipe(Layer.provide(model)))))
    })
  })
})
