/**
 * The gateway's catalog page in a real headless Chromium, against a real gateway on 127.0.0.1 (Gateway.routes with
 * GatewayUi.routes, as `effect-a2a gateway` serves them) with our own bearer-secured A2A server upstream: the page
 * shows nothing without the admin token and says why with a wrong one; with the right one it registers the agent
 * (its credential from the form), lists it healthy (reachable, last card fetch, latency), checks it again, tries it
 * through the front door (a reply, then a streamed task event by event), previews a request (secrets masked), shows
 * a refused registration's reason, shows the last call and, once the agent is gone, the last error, and removes
 * the agent. The token is never in the HTML, and the upstream secret never reaches the page. Screenshots go to
 * test-results/gateway-catalog/.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Logger, Redacted, Scope } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import { createServer } from "node:http"
import type { Page } from "playwright-core"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as GatewayUi from "../../src/pages/GatewayUi.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as OurServer from "../client/OurServer.ts"
import * as Chromium from "../fixtures/Chromium.ts"

const WAIT = { timeout: 15_000 }
const ADMIN = "admin-catalog-t0ken"
const NAME = "effect-a2a-demo-agent"

/** The gateway with its catalog page, as the command serves them, for the scope; its registry in memory. */
const startGateway: Effect.Effect<{ readonly url: string }, never, Scope.Scope> = Effect.gen(function*() {
  const layer = HttpRouter.serve(
    Layer.merge(Gateway.routes({ adminToken: Redacted.make(ADMIN) }), GatewayUi.routes()),
    { disableLogger: true, disableListenLog: true }
  ).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
    Layer.provide(Gateway.layerMemory),
    Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Logger.layer([]))
  )
  const context = yield* Layer.build(layer).pipe(Effect.orDie)
  const address = Context.get(context, HttpServer.HttpServer).address
  return { url: `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}` }
})

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
    // "Remove the agent?" is answered yes
    page.on("dialog", (dialog) => void dialog.accept())
    yield* Effect.promise(() => page.goto(url))
    return { page, problems }
  })

const text = (page: Page, selector: string) => Effect.promise(() => page.locator(selector).first().innerText(WAIT))

const waitFor = (page: Page, selector: string, state: "attached" | "detached" | "visible" = "attached") =>
  Effect.promise(() => page.locator(selector).first().waitFor({ state, ...WAIT }))

const act = <A>(f: () => Promise<A>) => Effect.promise(f)

const screenshot = (page: Page, name: string) =>
  Effect.promise(() => page.screenshot({ path: Chromium.screenshotPath("gateway-catalog", name), fullPage: true }))

const useToken = (page: Page, token: string) =>
  act(async () => {
    await page.fill("#admin-token", token)
    await page.click("#use-token")
  })

const row = `#agent-list tr[data-agent="${NAME}"]`

describe("gateway catalog page in Chromium", () => {
  if (!Chromium.available) {
    it.skip(Chromium.skipReason, () => {})
    return
  }

  it.live(
    "registers an agent, lists it healthy, tries it, previews a request, removes it",
    () =>
      Effect.gen(function*() {
        // The agent in a scope of its own, so that it can go away before the test ends.
        const agentScope = yield* Scope.make()
        const upstream = yield* OurServer.start({ secured: true }).pipe(Scope.provide(agentScope))
        const gateway = yield* startGateway
        const { page, problems } = yield* openPage(`${gateway.url}/ui`)

        // nothing without the token; a wrong one is a readable refusal
        assert.include(yield* text(page, "#agents-empty"), "Enter the admin token")
        yield* useToken(page, "not-the-token")
        yield* waitFor(page, "#error", "visible")
        assert.include(yield* text(page, "#error"), "The admin API needs the admin token (401")

        // the right one: an empty registry
        yield* useToken(page, ADMIN)
        yield* act(() => page.getByText("No agent is registered yet.").waitFor(WAIT))
        assert.isTrue(yield* act(() => page.locator("#error").isHidden()), "the error is gone")
        assert.strictEqual(yield* act(() => page.inputValue("#admin-token")), "", "the field does not keep the token")

        // register our secured agent with its bearer credential, typed into the form
        yield* act(async () => {
          await page.fill("#reg-url", upstream.url)
          await page.selectOption("#reg-cred-kind", "bearer")
          await page.locator("#cred-secret").waitFor({ state: "visible", ...WAIT })
          await page.fill("#reg-secret", OurServer.TOKEN)
          await page.click("#register-button")
        })
        yield* waitFor(page, `${row} .health[data-health=up]`)
        assert.include(yield* text(page, "#register-status"), `Registered ${NAME}.`)
        assert.strictEqual(yield* act(() => page.inputValue("#reg-secret")), "", "the form forgets the secret")
        assert.include(yield* text(page, `${row} .url`), upstream.url)
        assert.strictEqual(yield* text(page, `${row} .kind`), "a2a")
        assert.include(yield* text(page, `${row} .skills`), "Multi-step task")
        assert.match(yield* text(page, `${row} .latency`), /^\d+ ms$/)
        assert.notStrictEqual(yield* text(page, `${row} .fetched`), "never")

        // checked again now: still reachable
        yield* act(() => page.click(`${row} button.check`))
        yield* waitFor(page, `${row} .health[data-health=up]`)

        // tried through the front door: a reply, then a task streamed event by event
        yield* act(() => page.click(`${row} button.select`))
        assert.strictEqual(yield* text(page, "#try-agent"), NAME)
        const send = (message: string) =>
          act(async () => {
            await page.locator("#try-send:not([disabled])").waitFor(WAIT)
            await page.fill("#try-message", message)
            await page.click("#try-send")
            await page.locator("#try-send:not([disabled])").waitFor(WAIT)
          })
        yield* send("hello")
        assert.isTrue(yield* act(() => page.locator("#error").isHidden()), "the reply came")
        assert.include(yield* text(page, "#try-output li[data-kind=message]"), "Echo: hello")
        yield* send("task write")
        const events = yield* act(() => page.locator("#try-output li.event").allInnerTexts())
        assert.isTrue(events.length > 3, events.join(" | "))
        assert.isTrue(events.some((e) => e.startsWith("status") && e.includes("WORKING")), events.join(" | "))
        assert.isTrue(events.some((e) => e.startsWith("artifact")), events.join(" | "))
        assert.isTrue(events.some((e) => e.includes("COMPLETED")), events.join(" | "))
        yield* screenshot(page, "try")

        // preview: the upstream request, its credential masked, nothing sent
        yield* act(async () => {
          await page.fill("#try-message", "preview me")
          await page.click("#try-preview")
        })
        yield* waitFor(page, "#preview", "visible")
        const preview = JSON.parse(yield* text(page, "#preview-body")) as {
          readonly method: string
          readonly url: string
          readonly headers: Record<string, string>
          readonly body: unknown
        }
        assert.strictEqual(preview.method, "POST")
        assert.isTrue(preview.url.startsWith(upstream.url), preview.url)
        assert.strictEqual(preview.headers["authorization"], "Bearer ***")
        assert.include(JSON.stringify(preview.body), "preview me")
        yield* screenshot(page, "preview")

        // a registration the gateway refuses: its reason on the page, nothing added
        yield* act(async () => {
          await page.fill("#reg-url", "http://127.0.0.1:1")
          await page.fill("#reg-name", "nowhere")
          await page.click("#register-button")
        })
        yield* waitFor(page, "#error", "visible")
        assert.match(yield* text(page, "#error"), /^Registering the agent: .+ \(4\d\d /)
        assert.strictEqual(yield* act(() => page.locator("#agent-list tr").count()), 1)

        // the token stays in the tab, never in the HTML, and the upstream's secret never reaches the page
        yield* act(() => page.reload())
        yield* waitFor(page, row)
        const html = yield* act(() => page.content())
        assert.notInclude(html, ADMIN)
        assert.notInclude(html, OurServer.TOKEN)
        const served = yield* act(() => fetch(`${gateway.url}/ui`).then((r) => r.text()))
        assert.notInclude(served, ADMIN)

        // calls show in the row: the last call; then, the agent gone, the call that failed, and why
        assert.include(yield* text(page, `${row} .last-call`), "last call ")
        assert.strictEqual(yield* act(() => page.locator(`${row} .last-error`).count()), 0)
        yield* Scope.close(agentScope, Exit.void)
        yield* act(async () => {
          await page.click(`${row} button.select`)
          await page.locator("#try-send:not([disabled])").waitFor(WAIT)
          await page.fill("#try-message", "anyone there?")
          await page.click("#try-send")
          await page.locator("#try-send:not([disabled])").waitFor(WAIT)
        })
        yield* waitFor(page, "#error", "visible")
        yield* act(() => page.click(`${row} button.check`))
        yield* waitFor(page, `${row} .health[data-health=down]`)
        assert.match(yield* text(page, `${row} .last-error`), /^last error .+: .+/)
        assert.notInclude(yield* text(page, `${row} .last-error`), OurServer.TOKEN)
        yield* screenshot(page, "agent-down")

        // removed: gone from the page and from the registry
        yield* act(() => page.click(`${row} button.remove`))
        yield* waitFor(page, row, "detached")
        yield* act(() => page.getByText("No agent is registered yet.").waitFor(WAIT))
        const listed = yield* act(() =>
          fetch(`${gateway.url}/admin/agents`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) =>
            r.json() as Promise<{ agents: ReadonlyArray<unknown> }>
          )
        )
        assert.deepStrictEqual(listed.agents, [])
        yield* screenshot(page, "removed")
        assert.deepStrictEqual(problems, [])
      }).pipe(Effect.scoped),
    60_000
  )
})
