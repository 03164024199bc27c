/**
 * `effect-a2a get` and `effect-a2a cancel` against our demo agent: the task as `send` shows it, and A2A errors
 * (TaskNotFound, TaskNotCancelable) as one line for the user.
 */
import { assert, layer } from "@effect/vitest"
import { Cause, Console, Effect, Fiber, Layer, Option, Sink, Stdio } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { cancelTask, getTask, listTasks, subscribe } from "../../src/cli/TaskCommands.ts"
import { Ours } from "../client/OurServer.ts"

/** Runs a command's effect with console.log captured; its outcome and what it printed. */
const captured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const console = { ...globalThis.console, log: (...args: ReadonlyArray<unknown>) => void out.push(args.join(" ")) }
    const stdio = Stdio.layerTest({
      stdout: () => Sink.forEach((chunk: string | Uint8Array) => Effect.sync(() => void out.push(String(chunk))))
    })
    const exit = yield* effect.pipe(Effect.provideService(Console.Console, console), Effect.provide(stdio), Effect.exit)
    const error = exit._tag === "Failure" ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
    return { exit, stdout: out.join("\n"), error: error as { readonly userMessage?: string } | undefined }
  })

const none = { token: Option.none() }

layer(Layer.mergeAll(Ours.layer, FetchHttpClient.layer), { excludeTestServices: true })("get and cancel", (it) => {
  it.effect("get shows a running task; cancel cancels it; a second cancel and an unknown id are clear errors", () =>
    Effect.gen(function*() {
      const { url } = yield* Ours
      const started = yield* Effect.promise(() =>
        fetch(`${url}/message:send`, {
          method: "POST",
          headers: { "a2a-version": "1.0", "content-type": "application/json" },
          body: JSON.stringify({
            message: { messageId: "m-slow", role: "ROLE_USER", parts: [{ text: "slow" }] },
            configuration: { returnImmediately: true }
          })
        }).then((r) => r.json())
      ) as Effect.Effect<{ task: { id: string } }>
      const id = started.task.id

      const got = yield* captured(getTask(url, id, { ...none, historyLength: 1 }))
      assert.strictEqual(got.exit._tag, "Success")
      assert.match(got.stdout, new RegExp(`^Task ${id} \\(context [^)]+\\): (submitted|working)`))

      const canceled = yield* captured(cancelTask(url, id, none))
      assert.strictEqual(canceled.exit._tag, "Success")
      assert.include(canceled.stdout, `Task ${id}`)
      assert.include(canceled.stdout, ": canceled")

      const again = yield* captured(cancelTask(url, id, none))
      assert.strictEqual(again.exit._tag, "Failure")
      assert.include(again.error?.userMessage ?? "", "cannot be canceled")

      const unknown = yield* captured(getTask(url, "no-such-task", none))
      assert.strictEqual(unknown.exit._tag, "Failure")
      assert.include(unknown.error?.userMessage ?? "", "not found")
    }))

  it.effect("tasks lists them with their states; subscribe follows one until it is done", () =>
    Effect.gen(function*() {
      const { url } = yield* Ours
      const post = (text: string, messageId: string) =>
        Effect.promise(() =>
          fetch(`${url}/message:send`, {
            method: "POST",
            headers: { "a2a-version": "1.0", "content-type": "application/json" },
            body: JSON.stringify({
              message: { messageId, role: "ROLE_USER", parts: [{ text }] },
              configuration: { returnImmediately: true }
            })
          }).then((r) => r.json())
        ) as Effect.Effect<{ task: { id: string; contextId: string } }>
      const working = (yield* post("task write a report", "m-report")).task
      const listed = yield* captured(listTasks(url, { ...none, contextId: working.contextId }))
      assert.strictEqual(listed.exit._tag, "Success")
      assert.match(listed.stdout, new RegExp(`^${working.id}  (submitted|working|completed)`))

      // A task that runs until canceled: subscribe follows it to its end.
      const slow = (yield* post("slow", "m-slow-2")).task
      const followed = yield* captured(subscribe(url, slow.id, none)).pipe(Effect.forkChild)
      yield* Effect.sleep("200 millis")
      yield* captured(cancelTask(url, slow.id, none))
      const result = yield* Fiber.join(followed)
      assert.strictEqual(result.exit._tag, "Success")
      assert.include(result.stdout, `Task ${slow.id}`)
      assert.include(result.stdout, "[canceled]")

      const empty = yield* captured(listTasks(url, { ...none, contextId: "no-such-context" }))
      assert.strictEqual(empty.stdout, "No tasks.")
    }))

  it.effect("--binding picks the interface: GRPC from an agent serving none is a clear error, HTTP+JSON works", () =>
    Effect.gen(function*() {
      const { url } = yield* Ours
      const grpc = yield* captured(listTasks(url, { ...none, binding: Option.some("GRPC") }))
      assert.strictEqual(grpc.exit._tag, "Failure")
      assert.include(grpc.error?.userMessage ?? "", "Supported: GRPC 1.0")
      const rest = yield* captured(listTasks(url, { ...none, binding: Option.some("HTTP+JSON") }))
      assert.strictEqual(rest.exit._tag, "Success")
    }))
})
