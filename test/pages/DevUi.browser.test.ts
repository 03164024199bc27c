/**
 * The dev UI in a real headless Chromium, against a real server on 127.0.0.1 (NodeA2AServer with `devUi: true`,
 * the demo agent): the card is shown, a streamed task's status and artifact appear while it runs, the task list
 * shows it with its history, a long task is canceled from the page, a multi-turn task is answered, agent output
 * is rendered as text, and an auth failure is a readable message. Screenshots go to test-results/devui/.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Option, Scope } from "effect"
import type { Page } from "playwright-core"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { serveDemo, TOKEN } from "../client/OurServer.ts"
import * as Chromium from "../fixtures/Chromium.ts"

const WAIT = { timeout: 15_000 }

/**
 * The demo agent, plus "gated": a task that reports its first step and artifact chunk, then waits for the test
 * to open `gate` before it finishes, so the page can be seen showing a task still at work.
 */
const agent = (gate: Deferred.Deferred<void>) => {
  const demo = DemoAgent.make({ stepDelay: Duration.millis(5), slowSteps: 100_000 })
  const gated = AgentExecutor.task((task) =>
    Effect.gen(function*() {
      yield* task.working("Gated: waiting for the test")
      const artifactId = yield* task.artifact({ name: "gated", parts: [{ text: "First part. " }] }, {
        lastChunk: false
      })
      yield* Deferred.await(gate)
      yield* task.artifact({ artifactId, parts: [{ text: "Second part." }] }, { append: true, lastChunk: true })
      yield* task.complete("Gate opened")
    })
  )
  return AgentExecutor.make((context) =>
    Option.isNone(context.task) && AgentExecutor.textOf(context.message).startsWith("gated")
      ? gated.execute(context)
      : demo.execute(context)
  )
}

/** A page of the browser, with the errors it reports (script errors, CSP violations) collected. */
const openPage = (url: string) =>
  Effect.gen(function*() {
    const browser = yield* Chromium.launch
    const page = yield* Effect.promise(() => browser.newPage())
    const problems: Array<string> = []
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
    page.on("console", (message) => {
      if (message.type() === "error" && !/Failed to load resource/.test(message.text())) {
        problems.push(`console: ${message.text()}`)
      }
    })
    yield* Effect.promise(() => page.goto(url))
    return { page, problems }
  })

const text = (page: Page, selector: string) => Effect.promise(() => page.locator(selector).first().innerText(WAIT))

const waitFor = (page: Page, selector: string) =>
  Effect.promise(() => page.locator(selector).first().waitFor({ state: "attached", ...WAIT }))

const send = (page: Page, message: string) =>
  Effect.promise(async () => {
    await page.locator("#send:not([disabled])").waitFor(WAIT)
    await page.fill("#message", message)
    await page.click("#send")
  })

const screenshot = (page: Page, name: string) =>
  Effect.promise(() => page.screenshot({ path: Chromium.screenshotPath("devui", name), fullPage: true }))

/** The id of the newest task block in the chat. */
const lastTaskId = (page: Page) =>
  Effect.promise(() => page.locator("#transcript li.task").last().getAttribute("data-task-id", WAIT)).pipe(
    Effect.map((id) => id ?? "")
  )

const getTask = (base: string, id: string, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    fetch(base, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } })
    }).then((r) => r.json() as Promise<{ result: { status: { state: string } } }>)
  )

describe("dev UI in Chromium", () => {
  if (!Chromium.available) {
    it.skip(Chromium.skipReason, () => {})
    return
  }

  it.live("shows the card, streams a task live, lists it with its history", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const server = yield* serveDemo({ executor: agent(gate) }, { devUi: true })
      const { page, problems } = yield* openPage(`${server.url}/_dev`)

      // The card, as the server publishes it.
      assert.include(yield* text(page, "#card-name"), "effect-a2a demo agent")
      assert.include(yield* text(page, "#card-skills"), "Multi-step task")
      assert.include(yield* text(page, "#card-interfaces"), `JSONRPC 1.0 ${server.url}/`)
      assert.isTrue(yield* Effect.promise(() => page.locator("#token-field").isHidden()), "no auth, no token field")

      // A task still at work: its WORKING status and first artifact chunk are on the page before it ends.
      yield* send(page, "gated report")
      yield* waitFor(page, "#transcript li.task .state[data-state=TASK_STATE_WORKING]")
      yield* waitFor(page, "#transcript li.task .artifact[data-artifact-id]")
      assert.strictEqual(yield* text(page, "#transcript li.task .artifact pre"), "First part. ")
      assert.include(yield* text(page, "#transcript li.task .status-lines"), "Gated: waiting for the test")
      const taskId = yield* lastTaskId(page)
      // it shows up in the task list while it works
      yield* waitFor(page, `#task-list li[data-task-id="${taskId}"] .state[data-state=TASK_STATE_WORKING]`)
      yield* screenshot(page, "1-streaming")

      yield* Deferred.succeed(gate, undefined)
      yield* waitFor(page, "#transcript li.task .state[data-state=TASK_STATE_COMPLETED]")
      assert.strictEqual(yield* text(page, "#transcript li.task .artifact pre"), "First part. Second part.")
      assert.include(yield* text(page, "#transcript li.task .status-lines"), "Gate opened")
      assert.isTrue(yield* Effect.promise(() => page.locator("#transcript li.task .cancel").isHidden()))

      // The task list, refreshed when the stream ended, shows it done; selecting it shows its history.
      yield* waitFor(page, `#task-list li[data-task-id="${taskId}"] .state[data-state=TASK_STATE_COMPLETED]`)
      yield* Effect.promise(() => page.click(`#task-list li[data-task-id="${taskId}"] button`))
      yield* waitFor(page, `#task-detail[data-task-id="${taskId}"] .history li`)
      const history = yield* Effect.promise(() => page.locator("#task-detail .history li").allInnerTexts())
      assert.deepStrictEqual(history.map((line) => line.replace(/\s+/g, " ").trim()), [
        "user gated report",
        "agent Gated: waiting for the test",
        "agent Gate opened"
      ])
      assert.include(yield* text(page, "#task-detail .artifact"), "First part. Second part.")
      yield* screenshot(page, "2-task-history")
      assert.deepStrictEqual(problems, [])
    }))

  it.live("cancels a long task from the page, answers an input-required task, shows a failed one", () =>
    Effect.gen(function*() {
      const server = yield* serveDemo({ executor: agent(yield* Deferred.make<void>()) }, { devUi: true })
      const { page, problems } = yield* openPage(`${server.url}/_dev`)
      yield* waitFor(page, "#card-name")

      yield* send(page, "slow")
      yield* waitFor(page, "#transcript li.task .state[data-state=TASK_STATE_WORKING]")
      const slowId = yield* lastTaskId(page)
      yield* Effect.promise(() => page.click(`#transcript li.task[data-task-id="${slowId}"] .cancel`))
      yield* waitFor(page, `#transcript li.task[data-task-id="${slowId}"] .state[data-state=TASK_STATE_CANCELED]`)
      yield* waitFor(page, `#task-list li[data-task-id="${slowId}"] .state[data-state=TASK_STATE_CANCELED]`)
      // what any client sees
      assert.strictEqual((yield* getTask(server.url, slowId)).result.status.state, "TASK_STATE_CANCELED")
      yield* screenshot(page, "3-canceled")

      // A task that asks for input: the next message answers it.
      yield* Effect.promise(() => page.click("#new-conversation"))
      yield* send(page, "ask")
      yield* waitFor(page, "#transcript li.task .state[data-state=TASK_STATE_INPUT_REQUIRED]")
      assert.include(yield* text(page, "#transcript li.task .status-lines"), "What is your name?")
      yield* waitFor(page, "#transcript li.notice")
      yield* send(page, "Ada")
      yield* waitFor(page, "#transcript li.task .state[data-state=TASK_STATE_COMPLETED]")
      assert.strictEqual(yield* text(page, "#transcript li.task .artifact pre"), "Hello, Ada!")

      // A failing agent: the task ends FAILED with its reason.
      yield* Effect.promise(() => page.click("#new-conversation"))
      yield* send(page, "fail")
      yield* waitFor(page, "#transcript li.task .state[data-state=TASK_STATE_FAILED]")
      assert.include(yield* text(page, "#transcript li.task .status-lines"), "the demo agent failed on purpose")
      assert.isTrue(yield* Effect.promise(() => page.locator("#error").isHidden()), "a failed task is no UI error")
      assert.deepStrictEqual(problems, [])
    }))

  it.live("renders agent output as text, never as markup", () =>
    Effect.gen(function*() {
      const server = yield* serveDemo({}, { devUi: true })
      const { page, problems } = yield* openPage(`${server.url}/_dev`)
      yield* waitFor(page, "#card-name")
      const hostile = `<img src=x id=injected onerror="window.injected=1"><script>window.injected=2</script>`
      yield* send(page, hostile)
      yield* waitFor(page, "#transcript li.agent")
      assert.strictEqual(yield* text(page, "#transcript li.agent"), `Echo: ${hostile}`)
      const injected = yield* Effect.promise(() =>
        page.evaluate<{ element: boolean; ran: number | null }>(
          "({ element: document.getElementById('injected') !== null, ran: window.injected ?? null })"
        )
      )
      assert.deepStrictEqual(injected, { element: false, ran: null })
      assert.deepStrictEqual(problems, [])
    }))

  it.live("with auth: says the token is missing or wrong, and works once it is given", () =>
    Effect.gen(function*() {
      const server = yield* serveDemo({ auth: Auth.bearer({ tokens: { [TOKEN]: "alice" } }) }, { devUi: true })
      const { page, problems } = yield* openPage(`${server.url}/_dev`)

      // The page and the card load without credentials; the task list does not.
      assert.include(yield* text(page, "#card-name"), "effect-a2a demo agent")
      yield* waitFor(page, "#error:not([hidden])")
      assert.strictEqual(
        yield* text(page, "#error"),
        "ListTasks failed: Missing bearer token (code -32040). Enter a valid token in the Token field."
      )
      assert.isTrue(yield* Effect.promise(() => page.locator("#token-field").isVisible()))
      yield* screenshot(page, "4-auth-missing")

      // A changed token lists the tasks again.
      yield* Effect.promise(() => page.fill("#token", "not-the-token").then(() => page.press("#token", "Tab")))
      yield* waitFor(page, "#error:has-text('Invalid bearer token')")
      assert.strictEqual(
        yield* text(page, "#error"),
        "ListTasks failed: Invalid bearer token (code -32040). Enter a valid token in the Token field."
      )
      yield* send(page, "hi")
      yield* waitFor(page, "#error:has-text('SendStreamingMessage failed')")
      assert.match(
        yield* text(page, "#error"),
        /^SendStreamingMessage failed: .+ \(code -32040\)\. Enter a valid token/
      )

      yield* Effect.promise(() => page.fill("#token", TOKEN))
      yield* send(page, "hi")
      yield* waitFor(page, "#transcript li.agent")
      assert.strictEqual(yield* text(page, "#transcript li.agent"), "Echo: hi")
      assert.isTrue(yield* Effect.promise(() => page.locator("#error").isHidden()))
      assert.deepStrictEqual(problems, [])
    }))

  it.live("a server that stops: the open stream's end and the unreachable server are said, not hidden", () =>
    Effect.gen(function*() {
      const serverScope = yield* Scope.make()
      const server = yield* serveDemo({ executor: agent(yield* Deferred.make<void>()) }, {
        devUi: true,
        shutdownTimeout: "1 second"
      }).pipe(Scope.provide(serverScope))
      const { page, problems } = yield* openPage(`${server.url}/_dev`)
      yield* waitFor(page, "#card-name")
      yield* send(page, "slow")
      yield* waitFor(page, "#transcript li.task .state[data-state=TASK_STATE_WORKING]")

      yield* Scope.close(serverScope, Exit.void)
      // The stream ended (or was cut) with the task still working: the page says so.
      yield* Effect.promise(() =>
        page.locator("#transcript li.notice, #error:not([hidden])").first().waitFor({ state: "visible", ...WAIT })
      )
      const said = yield* Effect.promise(() =>
        page.locator("#transcript li.notice, #error:not([hidden])").allInnerTexts()
      )
      assert.match(said.join("\n"), /may still be running/)
      yield* Effect.promise(() => page.click("#refresh"))
      yield* waitFor(page, "#error:has-text('ListTasks failed')")
      assert.match(yield* text(page, "#error"), /^ListTasks failed: cannot reach the server \(.+\)$/)
      yield* screenshot(page, "5-server-gone")
      assert.deepStrictEqual(problems, [])
    }))

  it.live("with an API key: sends it where the card says (header, query parameter, cookie)", () =>
    Effect.gen(function*() {
      for (const location of ["header", "query", "cookie"] as const) {
        const auth = Auth.apiKey({ keys: { "k-123": "bob" }, name: "X-Demo-Key", location })
        const server = yield* serveDemo({ auth }, { devUi: true })
        const { page, problems } = yield* openPage(`${server.url}/_dev`)
        yield* waitFor(page, "#error:not([hidden])")
        assert.include(yield* text(page, "#error"), "ListTasks failed:", location)
        yield* Effect.promise(() => page.fill("#token", "k-123").then(() => page.press("#token", "Tab")))
        yield* send(page, "hi")
        yield* waitFor(page, "#transcript li.agent")
        assert.strictEqual(yield* text(page, "#transcript li.agent"), "Echo: hi", location)
        assert.isTrue(yield* Effect.promise(() => page.locator("#error").isHidden()), location)
        assert.deepStrictEqual(problems, [], location)
      }
    }))
})
