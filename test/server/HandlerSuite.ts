/**
 * The RequestHandler against a TaskStore / PushConfigStore implementation, no HTTP: every operation, its
 * error paths, multi-turn, cancellation, subscriptions and principal scoping. Call `handlerSuite` with any
 * store layer (memory now; SQL later).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, type Layer, Option, Queue, Ref, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { PushConfigStore } from "../../src/server/PushConfigStore.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import type { TaskStore } from "../../src/server/TaskStore.ts"
import {
  baseCard,
  Controls,
  ctxFor,
  principal,
  send,
  serverLayer,
  stateOf,
  subscribeLive,
  taskOf,
  uniqueId
} from "./support.ts"

const collect = <A, E>(stream: Stream.Stream<A, E>) => Effect.map(Stream.runCollect(stream), (c) => Array.from(c))

const violationFields = (
  error: { readonly _tag: string; readonly fieldViolations?: ReadonlyArray<{ field: string }> }
) => (error.fieldViolations ?? []).map((v) => v.field)

export const handlerSuite = <E>(
  name: string,
  stores: Layer.Layer<TaskStore | PushConfigStore, E>,
  suiteOptions: { readonly readAsStream?: boolean } = {}
) =>
  layer(stores)(name, (it) => {
    const withServer =
      (options: Parameters<typeof serverLayer>[0] = {}) => <A, E2, R>(effect: Effect.Effect<A, E2, R>) =>
        Effect.provide(effect, serverLayer({ ...options, readAsStream: suiteOptions.readAsStream }))

    // --- SendMessage ---

    it.effect("an agent that works on after its final state is stopped there: answer sent, finalizer run", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const task = yield* taskOf(yield* handler.sendMessage(send("linger"), ctxFor()))
        assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
        // The answer may reach us just before the runner has stopped the agent: wait for the finalizer.
        const finalized = yield* Ref.get(controls.finalized).pipe(
          Effect.filterOrFail((ids) => ids.includes(task.id)),
          Effect.tapError(() => Effect.yieldNow),
          Effect.retry({ times: 10_000 })
        )
        assert.include(finalized, task.id)
      }).pipe(withServer()))

    it.effect("blocking SendMessage waits for completion and returns the final task", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const request = send("complete")
        const task = yield* taskOf(yield* handler.sendMessage(request, ctx))
        assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
        assert.isString(task.contextId)
        assert.deepStrictEqual(task.artifacts?.map((a) => a.artifactId), ["a1"])
        // history: the user's message (with the task's ids) then the agent's status messages
        const history = task.history ?? []
        assert.strictEqual(history[0]?.messageId, request.message.messageId)
        assert.strictEqual(history[0]?.taskId, task.id)
        assert.strictEqual(history[0]?.contextId, task.contextId)
        assert.deepStrictEqual(history.slice(1).map((m) => m.role), ["ROLE_AGENT", "ROLE_AGENT"])
        const stored = yield* handler.getTask({ id: task.id }, ctx)
        assert.deepStrictEqual(stored, task)
      }).pipe(withServer()))

    it.effect("returnImmediately returns the task while it is still in progress; it completes later", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const gate = uniqueId("g")
        const task = yield* taskOf(
          yield* handler.sendMessage(send(`gate ${gate}`, { configuration: { returnImmediately: true } }), ctx)
        )
        assert.strictEqual(task.status.state, "TASK_STATE_SUBMITTED")
        const subscription = yield* subscribeLive(handler, task.id, ctx)
        const working = yield* handler.getTask({ id: task.id }, ctx)
        assert.isFalse(working.status.state === "TASK_STATE_COMPLETED")
        yield* controls.open(gate)
        const seen = yield* subscription.all
        assert.strictEqual(seen.map(stateOf).at(-1), "status:TASK_STATE_COMPLETED")
        assert.strictEqual((yield* handler.getTask({ id: task.id }, ctx)).status.state, "TASK_STATE_COMPLETED")
      }).pipe(withServer()))

    it.effect("a direct Message reply is returned as a message, with a contextId, and creates no task", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const response = yield* handler.sendMessage(send("echo hello"), ctx)
        assert.isTrue("message" in response)
        if (!("message" in response)) return
        assert.strictEqual(response.message.role, "ROLE_AGENT")
        assert.deepStrictEqual(response.message.parts, [{ text: "echo: echo hello" }])
        assert.isString(response.message.contextId)
        assert.isUndefined(response.message.taskId)
        const list = yield* handler.listTasks({}, ctx)
        assert.strictEqual(list.totalSize, 0)
      }).pipe(withServer()))

    it.effect("contextId: kept when the client sends one, generated otherwise, inherited on continuation", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const given = uniqueId("ctx")
        const withContext = yield* taskOf(yield* handler.sendMessage(send("complete", { contextId: given }), ctx))
        assert.strictEqual(withContext.contextId, given)
        const generated = yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))
        assert.isTrue(generated.contextId !== undefined && generated.contextId.length > 0)
        assert.notStrictEqual(generated.contextId, given)
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const continued = yield* taskOf(yield* handler.sendMessage(send("blue", { taskId: asked.id }), ctx))
        assert.strictEqual(continued.contextId, asked.contextId)
        assert.strictEqual(continued.history?.at(-1)?.contextId, asked.contextId)
      }).pipe(withServer()))

    it.effect("multi-turn: input-required, then a message with the taskId completes the task", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const first = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        assert.strictEqual(first.status.state, "TASK_STATE_INPUT_REQUIRED")
        assert.deepStrictEqual(first.status.message?.parts, [{ text: "What next?" }])
        const answer = send("blue", { taskId: first.id, contextId: first.contextId! })
        const done = yield* taskOf(yield* handler.sendMessage(answer, ctx))
        assert.strictEqual(done.id, first.id)
        assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
        assert.deepStrictEqual(done.artifacts?.[0]?.parts, [{ text: "answer: blue" }])
        assert.deepStrictEqual(
          done.history?.map((m) => [m.role, m.parts.map((p) => ("text" in p ? p.text : "")).join("")]),
          [["ROLE_USER", "ask"], ["ROLE_AGENT", "What next?"], ["ROLE_USER", "blue"], [
            "ROLE_AGENT",
            "Thanks for: blue"
          ]]
        )
      }).pipe(withServer()))

    it.effect("a Message from the agent once the task exists ends the turn INPUT_REQUIRED, as its status message", () =>
      Effect.gen(function*() {
        // Spec 1.0 streaming: a Task (or a single Message), then status or artifact updates until a terminal or
        // interrupted state. A message after the task is neither, so it travels as the input-required status.
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const streamed = yield* collect(handler.sendStreamingMessage(send("talk"), ctx))
        assert.deepStrictEqual(streamed.map(stateOf), [
          "task:TASK_STATE_SUBMITTED",
          "status:TASK_STATE_WORKING",
          "status:TASK_STATE_INPUT_REQUIRED"
        ])
        const last = streamed.at(-1)!
        assert.isTrue("statusUpdate" in last)
        if ("statusUpdate" in last) {
          assert.deepStrictEqual(last.statusUpdate.status.message?.parts, [{ text: "which one?" }])
          assert.strictEqual(last.statusUpdate.status.message?.taskId, last.statusUpdate.taskId)
        }
        // Blocking: the task, not the message, waiting for input with the message as its status.
        const reply = yield* handler.sendMessage(send("talk"), ctx)
        assert.isTrue("task" in reply)
        const task = yield* taskOf(reply)
        assert.strictEqual(task.status.state, "TASK_STATE_INPUT_REQUIRED")
        assert.strictEqual(task.status.message?.messageId, "talk-1")
        assert.deepStrictEqual(task.history?.map((m) => m.role), ["ROLE_USER", "ROLE_AGENT"])
      }).pipe(withServer()))

    it.effect("a Message reply to a continued task is its status message, waiting for input, and joins the history", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const reply = yield* taskOf(yield* handler.sendMessage(send("chat about it", { taskId: asked.id }), ctx))
        assert.strictEqual(reply.id, asked.id)
        assert.strictEqual(reply.status.state, "TASK_STATE_INPUT_REQUIRED")
        assert.deepStrictEqual(reply.status.message?.parts, [{ text: "chat: chat about it" }])
        assert.strictEqual(reply.status.message?.taskId, asked.id)
        assert.strictEqual(reply.status.message?.contextId, asked.contextId)
        const task = yield* handler.getTask({ id: asked.id }, ctx)
        assert.deepStrictEqual(task.history?.slice(-2).map((m) => m.role), ["ROLE_USER", "ROLE_AGENT"])
        assert.strictEqual(task.history?.at(-1)?.messageId, reply.status.message?.messageId)
        const streamed = yield* collect(handler.sendStreamingMessage(send("chat again", { taskId: asked.id }), ctx))
        assert.deepStrictEqual(streamed.map(stateOf), [
          "task:TASK_STATE_INPUT_REQUIRED",
          "status:TASK_STATE_INPUT_REQUIRED"
        ])
      }).pipe(withServer()))

    it.effect("continuing with a mismatching contextId is InvalidParams; an unknown taskId is TaskNotFound", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const mismatch = yield* Effect.flip(
          handler.sendMessage(send("x", { taskId: asked.id, contextId: "another-context" }), ctx)
        )
        assert.strictEqual(mismatch._tag, "InvalidParams")
        assert.deepStrictEqual(violationFields(mismatch as never), ["message.contextId"])
        const unknown = yield* Effect.flip(handler.sendMessage(send("x", { taskId: "no-such-task" }), ctx))
        assert.strictEqual(unknown._tag, "TaskNotFound")
        // the task is untouched by the rejected message
        const still = yield* handler.getTask({ id: asked.id }, ctx)
        assert.strictEqual(still.history?.length, 2)
      }).pipe(withServer()))

    it.effect("a message to a terminal task is UnsupportedOperation (completed and canceled)", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const done = yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))
        const error = yield* Effect.flip(handler.sendMessage(send("more", { taskId: done.id }), ctx))
        assert.strictEqual(error._tag, "UnsupportedOperation")
        assert.match(error.message, /completed/)
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        yield* handler.cancelTask({ id: asked.id }, ctx)
        const afterCancel = yield* Effect.flip(handler.sendMessage(send("more", { taskId: asked.id }), ctx))
        assert.strictEqual(afterCancel._tag, "UnsupportedOperation")
      }).pipe(withServer()))

    // Lets every fiber that can run do so (the suite runs on the test clock: no sleeping).
    const settle = Effect.forEach(Array.from({ length: 200 }), () => Effect.yieldNow, { discard: true })

    it.effect("a message to a task still being worked on waits for the turn in progress, then gets its own", () =>
      Effect.gen(function*() {
        // Spec 3.7 "Task Interaction": clients send messages for ongoing tasks; 3.4.3: agents MAY accept
        // additional messages for tasks in non-terminal states.
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const holding = yield* taskOf(
          yield* handler.sendMessage(
            send("hold", { taskId: asked.id, configuration: { returnImmediately: true } }),
            ctx
          )
        )
        assert.strictEqual(holding.id, asked.id)
        // Non-blocking: the task as it is now, while the turn in progress goes on.
        const now = yield* taskOf(
          yield* handler.sendMessage(
            send("early", { taskId: asked.id, configuration: { returnImmediately: true } }),
            ctx
          )
        )
        assert.strictEqual(now.id, asked.id)
        assert.notInclude(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED"], now.status.state)
        // Blocking: answered once its own turn has run.
        const blocking = yield* Effect.forkChild(handler.sendMessage(send("second", { taskId: asked.id }), ctx))
        const streamed = yield* Effect.forkChild(
          collect(handler.sendStreamingMessage(send("third", { taskId: asked.id }), ctx))
        )
        // The "hold" turn under way (a SQL store's save takes real time: settle until it shows, boundedly).
        const held = yield* settle.pipe(
          Effect.andThen(handler.getTask({ id: asked.id }, ctx)),
          Effect.repeat({ until: (task) => task.status.state === "TASK_STATE_WORKING", times: 500 })
        )
        assert.strictEqual(held.status.state, "TASK_STATE_WORKING")
        yield* controls.open("hold")
        // "early" completes the task in its turn; the later ones find it completed and hear so.
        const second = yield* Effect.flip(Fiber.join(blocking))
        assert.strictEqual(second._tag, "UnsupportedOperation")
        assert.match(second.message, /completed/)
        const third = yield* Effect.flip(Fiber.join(streamed))
        assert.strictEqual(third._tag, "UnsupportedOperation")
        const done = yield* handler.getTask({ id: asked.id }, ctx)
        assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
        assert.deepStrictEqual(done.artifacts?.map((a) => a.parts), [[{ text: "answer: early" }]])
        const userTexts = done.history?.filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0])
        assert.deepStrictEqual(userTexts, [{ text: "ask" }, { text: "hold" }, { text: "early" }])
      }).pipe(withServer()))

    it.effect("a waiting message gets the next turn when the turn in progress stops for input; canceling refuses it", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        yield* handler.sendMessage(send("hold", { taskId: asked.id, configuration: { returnImmediately: true } }), ctx)
        const events = yield* Effect.forkChild(
          collect(handler.sendStreamingMessage(send("next", { taskId: asked.id }), ctx))
        )
        yield* settle
        yield* controls.open("hold")
        // The hold turn ends INPUT_REQUIRED; "next" then runs as a turn of its own and completes the task.
        const streamed = yield* Fiber.join(events)
        assert.deepStrictEqual(streamed.map(stateOf).at(0), "task:TASK_STATE_INPUT_REQUIRED")
        assert.deepStrictEqual(streamed.map(stateOf).at(-1), "status:TASK_STATE_COMPLETED")
        // Canceling while a message waits: the waiting message is refused, the task is CANCELED.
        const again = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        yield* handler.sendMessage(
          send("hold never", { taskId: again.id, configuration: { returnImmediately: true } }),
          ctx
        )
        const waiting = yield* Effect.forkChild(handler.sendMessage(send("late", { taskId: again.id }), ctx))
        yield* settle
        const canceled = yield* handler.cancelTask({ id: again.id }, ctx)
        assert.strictEqual(canceled.status.state, "TASK_STATE_CANCELED")
        const late = yield* Effect.flip(Fiber.join(waiting))
        assert.strictEqual(late._tag, "UnsupportedOperation")
        assert.match(late.message, /canceled/)
      }).pipe(withServer()))

    it.effect("historyLength shapes the returned task: 0 omits history, n keeps the last n", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const none = yield* taskOf(
          yield* handler.sendMessage(send("complete", { configuration: { historyLength: 0 } }), ctx)
        )
        assert.isFalse("history" in none)
        const one = yield* taskOf(
          yield* handler.sendMessage(send("complete", { configuration: { historyLength: 1 } }), ctx)
        )
        assert.strictEqual(one.history?.length, 1)
        assert.strictEqual(one.history?.[0]?.role, "ROLE_AGENT")
        const full = yield* handler.getTask({ id: one.id }, ctx)
        assert.strictEqual(full.history?.length, 3)
        assert.isFalse("history" in (yield* handler.getTask({ id: one.id, historyLength: 0 }, ctx)))
        assert.deepStrictEqual(
          (yield* handler.getTask({ id: one.id, historyLength: 2 }, ctx)).history,
          full.history?.slice(1)
        )
        assert.deepStrictEqual((yield* handler.getTask({ id: one.id, historyLength: 10 }, ctx)).history, full.history)
      }).pipe(withServer()))

    it.effect("negative historyLength is InvalidParams with a field violation (SendMessage and GetTask)", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const onSend = yield* Effect.flip(
          handler.sendMessage(send("complete", { configuration: { historyLength: -1 } }), ctx)
        )
        assert.strictEqual(onSend._tag, "InvalidParams")
        assert.deepStrictEqual(violationFields(onSend as never), ["configuration.historyLength"])
        assert.strictEqual((yield* handler.listTasks({}, ctx)).totalSize, 0)
        const done = yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))
        const onGet = yield* Effect.flip(handler.getTask({ id: done.id, historyLength: -5 }, ctx))
        assert.strictEqual(onGet._tag, "InvalidParams")
        assert.deepStrictEqual(violationFields(onGet as never), ["historyLength"])
        assert.match(onGet.message, /non-negative/)
      }).pipe(withServer()))

    it.effect("ContentTypeNotSupported for an input media type neither the agent nor any skill takes", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const image = yield* Effect.flip(handler.sendMessage(
          send("x", { parts: [{ raw: "AAAA", mediaType: "image/png" }] }),
          ctx
        ))
        assert.strictEqual(image._tag, "ContentTypeNotSupported")
        assert.match(image.message, /image\/png/)
        // wildcards and declared types are fine
        const ok = yield* handler.sendMessage(
          send("complete", {
            parts: [{ data: { a: 1 }, mediaType: "application/json" }, { text: "complete", mediaType: "text/plain" }]
          }),
          ctx
        )
        assert.isTrue("task" in ok || "message" in ok)
      }).pipe(withServer()))

    it.effect("a media type one skill declares is accepted: skills override the card's defaults (proto AgentSkill)", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const reply = yield* handler.sendMessage(
          send("echo look", { parts: [{ text: "echo look" }, { raw: "AAAA", mediaType: "image/png" }] }),
          ctx
        )
        assert.isTrue("message" in reply)
        const audio = yield* Effect.flip(
          handler.sendMessage(send("x", { parts: [{ raw: "AAAA", mediaType: "audio/ogg" }] }), ctx)
        )
        assert.strictEqual(audio._tag, "ContentTypeNotSupported")
        assert.include(audio.message, "image/*")
      }).pipe(withServer({
        card: {
          ...baseCard,
          skills: [...baseCard.skills, {
            id: "see",
            name: "see",
            description: "x",
            tags: ["x"],
            inputModes: ["image/*"]
          }]
        }
      })))

    it.effect("acceptedOutputModes the card does not list are not refused: they reach the agent, which tailors", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        // proto SendMessageConfiguration.accepted_output_modes: "Agents SHOULD use this to tailor their output."
        const reply = yield* handler.sendMessage(
          send("modes", { configuration: { acceptedOutputModes: ["image/*", "application/pdf"] } }),
          ctxFor()
        )
        assert.isTrue("message" in reply)
        if ("message" in reply) {
          assert.deepStrictEqual(reply.message.parts, [{ text: "modes: image/*,application/pdf" }])
        }
      }).pipe(withServer()))

    it.effect("a message with role ROLE_UNSPECIFIED is InvalidParams naming message.role, as a missing role is", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const error = yield* Effect.flip(
          handler.sendMessage({ message: { ...send("echo hi").message, role: "ROLE_UNSPECIFIED" } }, ctx)
        )
        assert.strictEqual(error._tag, "InvalidParams")
        assert.deepStrictEqual(violationFields(error as never), ["message.role"])
        const streamed = yield* Effect.flip(
          collect(
            handler.sendStreamingMessage({ message: { ...send("echo hi").message, role: "ROLE_UNSPECIFIED" } }, ctx)
          )
        )
        assert.strictEqual(streamed._tag, "InvalidParams")
        assert.strictEqual((yield* handler.listTasks({}, ctx)).totalSize, 0)
      }).pipe(withServer()))

    it.effect("ExtensionSupportRequired unless the client declares the card's required extensions", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const uri = "https://example.com/ext/required/v1"
        const error = yield* Effect.flip(handler.sendMessage(send("echo hi"), ctxFor()))
        assert.strictEqual(error._tag, "ExtensionSupportRequired")
        assert.include(error.message, uri)
        const streamError = yield* Effect.flip(collect(handler.sendStreamingMessage(send("echo hi"), ctxFor())))
        assert.strictEqual(streamError._tag, "ExtensionSupportRequired")
        const ok = yield* handler.sendMessage(send("echo hi"), ctxFor(principal(), { extensions: [uri] }))
        assert.isTrue("message" in ok)
      }).pipe(withServer({
        card: {
          ...baseCard,
          capabilities: {
            ...baseCard.capabilities,
            extensions: [{ uri: "https://example.com/ext/required/v1", required: true }, {
              uri: "https://example.com/ext/optional/v1"
            }]
          }
        }
      })))

    // --- agent misbehaviour ---

    it.effect("agent failures: after the task exists it ends FAILED; before, the client gets an error", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const failed = yield* taskOf(yield* handler.sendMessage(send("fail"), ctx))
        assert.strictEqual(failed.status.state, "TASK_STATE_FAILED")
        assert.match(JSON.stringify(failed.status.message?.parts), /boom/)
        const died = yield* taskOf(yield* handler.sendMessage(send("die"), ctx))
        assert.strictEqual(died.status.state, "TASK_STATE_FAILED")
        assert.notInclude(JSON.stringify(died.status.message?.parts), "kaboom") // defects are not leaked
        const early = yield* Effect.flip(handler.sendMessage(send("fail-early"), ctx))
        assert.strictEqual(early._tag, "ContentTypeNotSupported")
        assert.strictEqual(early.message, "no images please")
        const plain = yield* Effect.flip(handler.sendMessage(send("fail-plain"), ctx))
        assert.strictEqual(plain._tag, "InternalError")
        assert.match(plain.message, /plain failure/)
        const nothing = yield* Effect.flip(handler.sendMessage(send("nothing"), ctx))
        assert.strictEqual(nothing._tag, "InvalidAgentResponse")
      }).pipe(withServer()))

    it.effect("agent misbehaviour: a foreign task id or no final state ends the task FAILED; a bad first event is an error", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const foreign = yield* taskOf(yield* handler.sendMessage(send("other-task"), ctx))
        assert.strictEqual(foreign.status.state, "TASK_STATE_FAILED")
        assert.match(JSON.stringify(foreign.status.message), /someone-else/)
        // an invalid first event: no task was created, so the client gets the error itself
        const unspecified = yield* Effect.flip(handler.sendMessage(send("unspecified"), ctx))
        assert.strictEqual(unspecified._tag, "InvalidAgentResponse")
        assert.match(unspecified.message, /unspecified state/)
        const stalled = yield* taskOf(yield* handler.sendMessage(send("stall"), ctx))
        assert.strictEqual(stalled.status.state, "TASK_STATE_FAILED")
        assert.match(JSON.stringify(stalled.status.message), /without reaching a final state/)
        // the server keeps serving
        assert.isTrue("message" in (yield* handler.sendMessage(send("echo still alive"), ctx)))
      }).pipe(withServer()))

    // --- SendStreamingMessage ---

    it.effect("streaming: the task first, then every update in order; the stream ends at the final state", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const events = yield* collect(handler.sendStreamingMessage(send("complete"), ctxFor()))
        assert.deepStrictEqual(events.map(stateOf), [
          "task:TASK_STATE_SUBMITTED",
          "status:TASK_STATE_WORKING",
          "artifact:result",
          "status:TASK_STATE_COMPLETED"
        ])
        const id = "task" in events[0]! ? events[0].task.id : ""
        for (const e of events.slice(1)) {
          const taskId = "statusUpdate" in e
            ? e.statusUpdate.taskId
            : "artifactUpdate" in e
            ? e.artifactUpdate.taskId
            : ""
          assert.strictEqual(taskId, id)
        }
      }).pipe(withServer()))

    it.effect("streaming: a direct reply is exactly one message; a continuation starts with the task", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const reply = yield* collect(handler.sendStreamingMessage(send("echo hi"), ctx))
        assert.deepStrictEqual(reply.map(stateOf), ["message"])
        const asked = yield* collect(handler.sendStreamingMessage(send("ask"), ctx))
        assert.deepStrictEqual(asked.map(stateOf), ["task:TASK_STATE_SUBMITTED", "status:TASK_STATE_INPUT_REQUIRED"])
        const id = "task" in asked[0]! ? asked[0].task.id : ""
        const continued = yield* collect(handler.sendStreamingMessage(send("red", { taskId: id }), ctx))
        assert.deepStrictEqual(continued.map(stateOf), [
          "task:TASK_STATE_INPUT_REQUIRED",
          "artifact:answer: red",
          "status:TASK_STATE_COMPLETED"
        ])
      }).pipe(withServer()))

    it.effect("a client leaving the stream does not cancel the task: it runs on and is persisted", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const gate = uniqueId("g")
        const first = yield* collect(handler.sendStreamingMessage(send(`gate ${gate}`), ctx).pipe(Stream.take(2)))
        assert.deepStrictEqual(first.map(stateOf), ["task:TASK_STATE_SUBMITTED", "status:TASK_STATE_WORKING"])
        const id = "task" in first[0]! ? first[0].task.id : ""
        const rest = yield* subscribeLive(handler, id, ctx)
        yield* controls.open(gate)
        const seen = yield* rest.all
        assert.strictEqual(seen.map(stateOf).at(-1), "status:TASK_STATE_COMPLETED")
        assert.strictEqual((yield* handler.getTask({ id }, ctx)).status.state, "TASK_STATE_COMPLETED")
      }).pipe(withServer()))

    it.effect("streaming and subscribing are UnsupportedOperation when capabilities.streaming is false", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const streamError = yield* Effect.flip(collect(handler.sendStreamingMessage(send("complete"), ctx)))
        assert.strictEqual(streamError._tag, "UnsupportedOperation")
        assert.match(streamError.message, /[Ss]treaming/)
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const subscribeError = yield* Effect.flip(collect(handler.subscribeToTask({ id: asked.id }, ctx)))
        assert.strictEqual(subscribeError._tag, "UnsupportedOperation")
      }).pipe(withServer({ card: { ...baseCard, capabilities: { streaming: false } } })))

    // --- SubscribeToTask ---

    it.effect("subscribe: the snapshot first, then every event in order; several subscribers see the same", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const name = uniqueId("steps")
        const task = yield* taskOf(
          yield* handler.sendMessage(send(`steps ${name}`, { configuration: { returnImmediately: true } }), ctx)
        )
        // Until the agent waits at its first gate ("step 0" recorded), the three would not start from the same state.
        yield* handler.getTask({ id: task.id }, ctx).pipe(
          Effect.filterOrFail((t) => t.status.state === "TASK_STATE_WORKING"),
          Effect.tapError(() => Effect.yieldNow),
          Effect.retry({ times: 10_000 })
        )
        const subscribe = subscribeLive(handler, task.id, ctx)
        const subscribers = yield* Effect.all([subscribe, subscribe, subscribe])
        for (const s of subscribers) assert.isTrue("task" in s.first)
        yield* controls.open(`${name}-1`)
        yield* controls.open(`${name}-2`)
        const sequences = yield* Effect.forEach(subscribers, (s) => Effect.map(s.all, (events) => events.map(stateOf)))
        assert.deepStrictEqual(sequences[1], sequences[0])
        assert.deepStrictEqual(sequences[2], sequences[0])
        const tail = sequences[0]!.slice(-4)
        assert.deepStrictEqual(tail, [
          "artifact:s1",
          "status:TASK_STATE_WORKING",
          "artifact:s2",
          "status:TASK_STATE_COMPLETED"
        ])
        assert.isTrue(sequences[0]![0]!.startsWith("task:"))
      }).pipe(withServer()))

    it.effect("subscribe while the agent emits: snapshot + events rebuild the task exactly (nothing lost or doubled)", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const gate = uniqueId("burst")
        const n = 200
        const task = yield* taskOf(
          yield* handler.sendMessage(send(`burst ${n} ${gate}`, { configuration: { returnImmediately: true } }), ctx)
        )
        // subscribers join at different points of the burst (from this fiber: they must outlive the loop)
        const subscriptions: Array<Effect.Success<ReturnType<typeof subscribeLive>>> = []
        for (let i = 0; i < 4; i++) {
          for (let k = 0; k < 7; k++) yield* Effect.yieldNow
          subscriptions.push(yield* subscribeLive(handler, task.id, ctx))
        }
        // wait until the burst is over (all n chunks stored), then let the agent finish
        for (let i = 0; i < 10_000; i++) {
          const t = yield* handler.getTask({ id: task.id }, ctx)
          if ((t.artifacts?.[0]?.parts.length ?? 0) === n) break
          yield* Effect.yieldNow
        }
        yield* controls.open(gate)

        for (const subscription of subscriptions) {
          const events = yield* subscription.all
          const first = events[0]!
          assert.isTrue("task" in first)
          if (!("task" in first)) continue
          const fromSnapshot = first.task.artifacts?.[0]?.parts.map((p) => ("text" in p ? Number(p.text) : 0)) ?? []
          const fromEvents = events.slice(1).flatMap((e) =>
            "artifactUpdate" in e ? e.artifactUpdate.artifact.parts.map((p) => ("text" in p ? Number(p.text) : 0)) : []
          )
          assert.deepStrictEqual([...fromSnapshot, ...fromEvents], Array.from({ length: n }, (_, i) => i + 1))
          assert.strictEqual(stateOf(events.at(-1)!), "status:TASK_STATE_COMPLETED")
        }
      }).pipe(withServer({ slowReads: true })))

    it.effect("subscribing to a terminal task is UnsupportedOperation; to an unknown one TaskNotFound", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const done = yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))
        const error = yield* Effect.flip(collect(handler.subscribeToTask({ id: done.id }, ctx)))
        assert.strictEqual(error._tag, "UnsupportedOperation")
        const missing = yield* Effect.flip(collect(handler.subscribeToTask({ id: "nope" }, ctx)))
        assert.strictEqual(missing._tag, "TaskNotFound")
      }).pipe(withServer()))

    // --- CancelTask ---

    it.effect("cancel interrupts the running agent (its finalizer runs) and the task ends CANCELED", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const blocking = yield* handler.sendMessage(send("hang"), ctx).pipe(Effect.forkChild)
        const taskId = yield* Queue.take(controls.hanging)
        // The agent announces its id as it emits its first event, which the runner may not have stored yet
        // (a slower store, e.g. PostgreSQL, shows it): wait until the task is readable before subscribing.
        yield* handler.getTask({ id: taskId }, ctx).pipe(
          Effect.tapError(() => Effect.yieldNow),
          Effect.retry({ while: (e) => e._tag === "TaskNotFound", times: 10_000 })
        )
        const subscriber = yield* subscribeLive(handler, taskId, ctx)
        const canceled = yield* handler.cancelTask({ id: taskId }, ctx)
        assert.strictEqual(canceled.status.state, "TASK_STATE_CANCELED")
        assert.deepStrictEqual(yield* Ref.get(controls.finalized), [taskId])
        const blockedResult = yield* taskOf(yield* Fiber.join(blocking))
        assert.strictEqual(blockedResult.status.state, "TASK_STATE_CANCELED")
        assert.strictEqual(stateOf((yield* subscriber.all).at(-1)!), "status:TASK_STATE_CANCELED")
        assert.strictEqual((yield* handler.getTask({ id: taskId }, ctx)).status.state, "TASK_STATE_CANCELED")
        const again = yield* Effect.flip(handler.cancelTask({ id: taskId }, ctx))
        assert.strictEqual(again._tag, "TaskNotCancelable")
      }).pipe(withServer()))

    it.effect("cancel of an idle (input-required) task records CANCELED; terminal tasks are TaskNotCancelable", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const canceled = yield* handler.cancelTask({ id: asked.id }, ctx)
        assert.strictEqual(canceled.status.state, "TASK_STATE_CANCELED")
        assert.strictEqual(canceled.history?.length, asked.history?.length)
        const done = yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))
        const error = yield* Effect.flip(handler.cancelTask({ id: done.id }, ctx))
        assert.strictEqual(error._tag, "TaskNotCancelable")
        assert.match(error.message, /completed/)
        const failed = yield* taskOf(yield* handler.sendMessage(send("fail"), ctx))
        assert.strictEqual((yield* Effect.flip(handler.cancelTask({ id: failed.id }, ctx)))._tag, "TaskNotCancelable")
        assert.strictEqual((yield* Effect.flip(handler.cancelTask({ id: "nope" }, ctx)))._tag, "TaskNotFound")
      }).pipe(withServer()))

    // --- ListTasks ---

    it.effect("list: newest first, filters by contextId, status and statusTimestampAfter, totalSize", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const ctxA = uniqueId("ctxA")
        const ids: Array<string> = []
        for (const [i, text] of ["complete", "ask", "complete", "ask", "complete"].entries()) {
          yield* TestClock.adjust("1 second")
          const t = yield* taskOf(yield* handler.sendMessage(send(text, i < 3 ? { contextId: ctxA } : {}), ctx))
          ids.push(t.id)
        }
        const all = yield* handler.listTasks({}, ctx)
        assert.deepStrictEqual(all.tasks.map((t) => t.id), [...ids].reverse())
        assert.strictEqual(all.totalSize, 5)
        assert.strictEqual(all.pageSize, 50)
        assert.strictEqual(all.nextPageToken, "")
        const inA = yield* handler.listTasks({ contextId: ctxA }, ctx)
        assert.deepStrictEqual(inA.tasks.map((t) => t.id), ids.slice(0, 3).reverse())
        const waiting = yield* handler.listTasks({ status: "TASK_STATE_INPUT_REQUIRED" }, ctx)
        assert.deepStrictEqual(waiting.tasks.map((t) => t.id), [ids[3], ids[1]])
        const third = yield* handler.getTask({ id: ids[2]! }, ctx)
        const recent = yield* handler.listTasks({ statusTimestampAfter: third.status.timestamp! }, ctx)
        assert.deepStrictEqual(recent.tasks.map((t) => t.id), ids.slice(2).reverse())
        assert.strictEqual(recent.totalSize, 3)
        const unspecified = yield* handler.listTasks({ status: "TASK_STATE_UNSPECIFIED" }, ctx)
        assert.strictEqual(unspecified.totalSize, 5)
      }).pipe(withServer()))

    it.effect("list: artifacts only with includeArtifacts; historyLength shapes each task", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        yield* handler.sendMessage(send("complete"), ctx)
        yield* handler.sendMessage(send("ask"), ctx)
        const plain = yield* handler.listTasks({}, ctx)
        for (const t of plain.tasks) assert.isFalse("artifacts" in t)
        const withArtifacts = yield* handler.listTasks({ includeArtifacts: true }, ctx)
        assert.deepStrictEqual(withArtifacts.tasks.map((t) => t.artifacts?.length), [0, 1])
        const noHistory = yield* handler.listTasks({ historyLength: 0 }, ctx)
        for (const t of noHistory.tasks) assert.isFalse("history" in t)
        const lastOne = yield* handler.listTasks({ historyLength: 1 }, ctx)
        for (const t of lastOne.tasks) assert.strictEqual(t.history?.length, 1)
      }).pipe(withServer()))

    it.effect("list: walking every page returns each task exactly once, stable when tasks are added meanwhile", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const created: Array<string> = []
        for (let i = 0; i < 7; i++) {
          if (i % 2 === 0) yield* TestClock.adjust("1 second") // some timestamps tie: the id breaks the tie
          created.push((yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))).id)
        }
        const seen: Array<string> = []
        let token = ""
        let pages = 0
        do {
          const page = yield* handler.listTasks({ pageSize: 3, ...(token ? { pageToken: token } : {}) }, ctx)
          assert.strictEqual(page.pageSize, 3)
          assert.strictEqual(page.totalSize, pages === 0 ? 7 : 8)
          seen.push(...page.tasks.map((t) => t.id))
          token = page.nextPageToken
          if (pages === 0) {
            // a newer task arrives after the first page: it sorts before the cursor and shifts nothing
            yield* TestClock.adjust("1 second")
            yield* handler.sendMessage(send("complete"), ctx)
          }
          pages++
        } while (token !== "" && pages < 10)
        assert.strictEqual(pages, 3)
        assert.deepStrictEqual(seen, [...created].reverse())
      }).pipe(withServer()))

    it.effect("list: bad pageToken, token reused with other filters, and pageSize out of 1..100 are InvalidParams", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        for (let i = 0; i < 3; i++) yield* handler.sendMessage(send("complete"), ctx)
        const bad = yield* Effect.flip(handler.listTasks({ pageToken: "not a token!" }, ctx))
        assert.strictEqual(bad._tag, "InvalidParams")
        assert.deepStrictEqual(violationFields(bad as never), ["pageToken"])
        const garbage = yield* Effect.flip(
          handler.listTasks({ pageToken: Buffer.from("[1,2]").toString("base64url") }, ctx)
        )
        assert.strictEqual(garbage._tag, "InvalidParams")
        const first = yield* handler.listTasks({ pageSize: 1 }, ctx)
        assert.notStrictEqual(first.nextPageToken, "")
        const otherFilters = yield* Effect.flip(
          handler.listTasks({ pageSize: 1, pageToken: first.nextPageToken, contextId: "other" }, ctx)
        )
        assert.strictEqual(otherFilters._tag, "InvalidParams")
        for (const pageSize of [0, 101, -1]) {
          const error = yield* Effect.flip(handler.listTasks({ pageSize }, ctx))
          assert.strictEqual(error._tag, "InvalidParams")
          assert.match(error.message, /between 1 and 100/)
        }
        const many = yield* Effect.flip(
          handler.listTasks({ pageSize: 150, historyLength: -5, statusTimestampAfter: "yesterday" }, ctx)
        )
        assert.deepStrictEqual(violationFields(many as never), ["pageSize", "historyLength", "statusTimestampAfter"])
        assert.strictEqual((yield* handler.listTasks({ pageSize: 100 }, ctx)).tasks.length, 3)
      }).pipe(withServer()))

    // --- principal scoping (spec 13.1) ---

    it.effect("another principal's task does not exist: get, list, cancel, subscribe, continue, push configs", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const alice = ctxFor(principal())
        const bob = ctxFor(principal())
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), alice))
        const id = asked.id
        const tags = yield* Effect.all([
          Effect.flip(handler.getTask({ id }, bob)),
          Effect.flip(handler.cancelTask({ id }, bob)),
          Effect.flip(collect(handler.subscribeToTask({ id }, bob))),
          Effect.flip(handler.sendMessage(send("x", { taskId: id }), bob)),
          Effect.flip(handler.createTaskPushNotificationConfig({ taskId: id, url: "https://example.com/h" }, bob)),
          Effect.flip(handler.listTaskPushNotificationConfigs({ taskId: id }, bob)),
          Effect.flip(handler.getTaskPushNotificationConfig({ taskId: id, id: "c" }, bob)),
          Effect.flip(handler.deleteTaskPushNotificationConfig({ taskId: id, id: "c" }, bob))
        ])
        assert.deepStrictEqual(tags.map((e) => e._tag), Array(8).fill("TaskNotFound"))
        assert.strictEqual((yield* handler.listTasks({}, bob)).totalSize, 0)
        assert.strictEqual((yield* handler.listTasks({}, alice)).totalSize, 1)
        assert.strictEqual((yield* handler.getTask({ id }, alice)).status.state, "TASK_STATE_INPUT_REQUIRED")
      }).pipe(withServer()))

    // --- tenant scoping (spec 13.1; AgentInterface.tenant, the REST `/{tenant}` prefix) ---

    it.effect("a task under one tenant does not exist under another nor at the root: every operation", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const acme = uniqueId("acme")
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask", { tenant: acme }), ctx))
        const id = asked.id
        const config = yield* handler.createTaskPushNotificationConfig(
          { tenant: acme, taskId: id, id: "c", url: "https://example.com/h" },
          ctx
        )
        for (const tenant of [uniqueId("other"), undefined, ""]) {
          const scoped = <A extends object>(req: A) => tenant === undefined ? req : { ...req, tenant }
          const tags = yield* Effect.all([
            Effect.flip(handler.getTask(scoped({ id }), ctx)),
            Effect.flip(handler.cancelTask(scoped({ id }), ctx)),
            Effect.flip(collect(handler.subscribeToTask(scoped({ id }), ctx))),
            Effect.flip(
              handler.sendMessage(send("x", { taskId: id, ...(tenant !== undefined ? { tenant } : {}) }), ctx)
            ),
            Effect.flip(handler.createTaskPushNotificationConfig(scoped({ taskId: id, url: "https://x.test/h" }), ctx)),
            Effect.flip(handler.listTaskPushNotificationConfigs(scoped({ taskId: id }), ctx)),
            Effect.flip(handler.getTaskPushNotificationConfig(scoped({ taskId: id, id: "c" }), ctx)),
            Effect.flip(handler.deleteTaskPushNotificationConfig(scoped({ taskId: id, id: "c" }), ctx))
          ])
          assert.deepStrictEqual(tags.map((e) => e._tag), Array(8).fill("TaskNotFound"), `tenant ${tenant}`)
          assert.strictEqual((yield* handler.listTasks(scoped({}), ctx)).totalSize, 0, `tenant ${tenant}`)
        }
        // Under its own tenant everything is there, unchanged by the attempts above.
        const own = { tenant: acme }
        assert.strictEqual((yield* handler.getTask({ ...own, id }, ctx)).status.state, "TASK_STATE_INPUT_REQUIRED")
        assert.deepStrictEqual((yield* handler.listTasks(own, ctx)).tasks.map((t) => t.id), [id])
        assert.deepStrictEqual(
          yield* handler.getTaskPushNotificationConfig({ ...own, taskId: id, id: "c" }, ctx),
          config
        )
        const done = yield* taskOf(yield* handler.sendMessage(send("more", { taskId: id, tenant: acme }), ctx))
        assert.strictEqual(done.status.state, "TASK_STATE_COMPLETED")
      }).pipe(withServer()))

    it.effect("tenant and principal scope together; the agent sees the request's tenant", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const alice = ctxFor(principal())
        const bob = ctxFor(principal())
        const acme = uniqueId("acme")
        const mine = yield* taskOf(yield* handler.sendMessage(send("tenant", { tenant: acme }), alice))
        const atRoot = yield* taskOf(yield* handler.sendMessage(send("tenant"), alice))
        const agentSaid = (task: typeof mine) =>
          task.status.message?.parts.flatMap((p) => ("text" in p ? [p.text] : []))
        assert.deepStrictEqual(agentSaid(mine), [`tenant=${acme}`])
        assert.deepStrictEqual(agentSaid(atRoot), ["tenant="])
        // Same tenant, another principal: not found.
        const other = yield* Effect.flip(handler.getTask({ tenant: acme, id: mine.id }, bob))
        assert.strictEqual(other._tag, "TaskNotFound")
        assert.strictEqual((yield* handler.listTasks({ tenant: acme }, bob)).totalSize, 0)
        // Each tenant lists only its own tasks.
        assert.deepStrictEqual((yield* handler.listTasks({ tenant: acme }, alice)).tasks.map((t) => t.id), [mine.id])
        assert.deepStrictEqual((yield* handler.listTasks({}, alice)).tasks.map((t) => t.id), [atRoot.id])
        // Cancel works in its own tenant only.
        const canceled = yield* handler.cancelTask({ tenant: acme, id: mine.id }, alice)
        assert.strictEqual(canceled.status.state, "TASK_STATE_CANCELED")
      }).pipe(withServer()))

    // --- push notification configs ---

    it.effect("push config operations are PushNotificationNotSupported when the capability is off", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const taskId = asked.id
        const errors = yield* Effect.all([
          Effect.flip(handler.createTaskPushNotificationConfig({ taskId, url: "https://example.com/h" }, ctx)),
          Effect.flip(handler.getTaskPushNotificationConfig({ taskId, id: "c" }, ctx)),
          Effect.flip(handler.listTaskPushNotificationConfigs({ taskId }, ctx)),
          Effect.flip(handler.deleteTaskPushNotificationConfig({ taskId, id: "c" }, ctx)),
          Effect.flip(handler.sendMessage(
            send("complete", { configuration: { taskPushNotificationConfig: { url: "https://example.com/h" } } }),
            ctx
          ))
        ])
        assert.deepStrictEqual(errors.map((e) => e._tag), Array(5).fill("PushNotificationNotSupported"))
      }).pipe(withServer({ card: { ...baseCard, capabilities: { streaming: true } } })))

    it.effect("push configs: create (id assigned), get, list with pages, delete (idempotent), validation", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const asked = yield* taskOf(yield* handler.sendMessage(send("ask"), ctx))
        const taskId = asked.id
        const created = yield* handler.createTaskPushNotificationConfig(
          { taskId, url: "https://example.com/hook", token: "t0" },
          ctx
        )
        assert.isTrue(created.id !== undefined && created.id.length > 0)
        assert.strictEqual(created.taskId, taskId)
        assert.deepStrictEqual(yield* handler.getTaskPushNotificationConfig({ taskId, id: created.id! }, ctx), created)
        for (const id of ["b", "c", "d"]) {
          yield* handler.createTaskPushNotificationConfig({ taskId, id, url: `https://example.com/${id}` }, ctx)
        }
        const seen: Array<string> = []
        let token = ""
        do {
          const page = yield* handler.listTaskPushNotificationConfigs(
            { taskId, pageSize: 3, ...(token ? { pageToken: token } : {}) },
            ctx
          )
          seen.push(...(page.configs ?? []).map((c) => c.id!))
          token = page.nextPageToken ?? ""
        } while (token !== "")
        assert.deepStrictEqual([...seen].sort(), ["b", "c", "d", created.id!].sort())
        yield* handler.deleteTaskPushNotificationConfig({ taskId, id: "b" }, ctx)
        yield* handler.deleteTaskPushNotificationConfig({ taskId, id: "b" }, ctx)
        const gone = yield* Effect.flip(handler.getTaskPushNotificationConfig({ taskId, id: "b" }, ctx))
        assert.strictEqual(gone._tag, "TaskNotFound")
        const badUrl = yield* Effect.flip(handler.createTaskPushNotificationConfig({ taskId, url: "not a url" }, ctx))
        assert.strictEqual(badUrl._tag, "InvalidParams")
        assert.deepStrictEqual(violationFields(badUrl as never), ["url"])
        const ftp = yield* Effect.flip(handler.createTaskPushNotificationConfig({ taskId, url: "ftp://x.y/z" }, ctx))
        assert.strictEqual(ftp._tag, "InvalidParams")
        const noTask = yield* Effect.flip(
          handler.createTaskPushNotificationConfig({ taskId: "nope", url: "https://example.com/h" }, ctx)
        )
        assert.strictEqual(noTask._tag, "TaskNotFound")
      }).pipe(withServer()))

    it.effect("SendMessage with a push config attaches it to the new task; every task event reaches the notifier", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const controls = yield* Controls
        const ctx = ctxFor()
        const task = yield* taskOf(
          yield* handler.sendMessage(
            send("complete", {
              configuration: { taskPushNotificationConfig: { url: "https://example.com/hook", token: "secret" } }
            }),
            ctx
          )
        )
        const configs = yield* handler.listTaskPushNotificationConfigs({ taskId: task.id }, ctx)
        assert.deepStrictEqual(configs.configs?.map((c) => [c.taskId, c.url, c.token]), [[
          task.id,
          "https://example.com/hook",
          "secret"
        ]])
        const pushed = (yield* Ref.get(controls.pushed)).filter((p) => p.taskId === task.id)
        assert.deepStrictEqual(pushed.map((p) => stateOf(p.event)), [
          "task:TASK_STATE_SUBMITTED",
          "status:TASK_STATE_WORKING",
          "artifact:result",
          "status:TASK_STATE_COMPLETED"
        ])
        assert.strictEqual(pushed.at(-1)?.task.status.state, "TASK_STATE_COMPLETED")
      }).pipe(withServer()))

    // --- GetExtendedAgentCard ---

    it.effect("extended card: UnsupportedOperation when not declared", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const error = yield* Effect.flip(handler.getExtendedAgentCard({}, ctxFor()))
        assert.strictEqual(error._tag, "UnsupportedOperation")
      }).pipe(withServer()))

    it.effect("extended card: ExtendedAgentCardNotConfigured when declared without one", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const error = yield* Effect.flip(handler.getExtendedAgentCard({}, ctxFor()))
        assert.strictEqual(error._tag, "ExtendedAgentCardNotConfigured")
      }).pipe(
        withServer({ card: { ...baseCard, capabilities: { ...baseCard.capabilities, extendedAgentCard: true } } })
      ))

    it.effect("extended card: served to authenticated principals, per principal, with the binding's interfaces", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const anonymous = yield* Effect.flip(
          handler.getExtendedAgentCard({}, ctxFor({ id: "anonymous", anonymous: true }))
        )
        assert.strictEqual(anonymous._tag, "Unauthenticated")
        const interfaces = [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }]
        const card = yield* handler.getExtendedAgentCard({}, ctxFor(principal("carol"), { interfaces }))
        assert.deepStrictEqual(card.skills.map((s) => s.id), ["s", "secret-carol"])
        assert.deepStrictEqual(card.supportedInterfaces, interfaces)
        assert.isTrue(card.capabilities.extendedAgentCard)
      }).pipe(withServer({
        extendedCard: (p) =>
          Effect.succeed({
            ...baseCard,
            skills: [...baseCard.skills, { id: `secret-${p.id}`, name: "secret", description: "x", tags: ["x"] }]
          })
      })))

    it.effect("the stores keep the final state of every task (re-read after the run)", () =>
      Effect.gen(function*() {
        const handler = yield* RequestHandler
        const ctx = ctxFor()
        const t = yield* taskOf(yield* handler.sendMessage(send("complete"), ctx))
        const listed = yield* handler.listTasks({ includeArtifacts: true }, ctx)
        assert.deepStrictEqual(listed.tasks, [t])
        assert.isTrue(Option.isSome(Option.fromNullishOr(t.status.timestamp)))
      }).pipe(withServer()))
  })
