/**
 * The API docs page in a real headless Chromium, against a real server on 127.0.0.1 (NodeA2AServer, the demo agent
 * with bearer auth; the document and the page are on by default): every operation of the served document is listed
 * with its method, path and summary, each schema it references is a working link, the server and the security
 * scheme are shown, and nothing breaks the page's Content-Security-Policy. Screenshots go to test-results/apidocs/.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type * as OpenApiDocument from "../../src/pages/OpenApiDocument.ts"
import * as Auth from "../../src/server/Auth.ts"
import { serveDemo, TOKEN } from "../client/OurServer.ts"
import * as Chromium from "../fixtures/Chromium.ts"

const WAIT = { timeout: 15_000 }

describe("API docs in Chromium", () => {
  if (!Chromium.available) {
    it.skip(Chromium.skipReason, () => {})
    return
  }

  it.live("lists every operation of the served document, links its schemas, shows servers and security", () =>
    Effect.gen(function*() {
      const server = yield* serveDemo({ auth: Auth.bearer({ tokens: { [TOKEN]: "alice" } }) })
      const document = yield* Effect.promise(() =>
        fetch(`${server.url}/openapi.json`).then((r) => r.json() as Promise<OpenApiDocument.Document>)
      )
      const expected = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, op]) => ({ id: op!.operationId, method, path, summary: op!.summary }))
      )

      const browser = yield* Chromium.launch
      const page = yield* Effect.promise(() => browser.newPage())
      const problems: Array<string> = []
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console: ${message.text()}`)
      })
      yield* Effect.promise(() => page.goto(`${server.url}/docs`))
      yield* Effect.promise(() => page.locator("article.operation").nth(expected.length - 1).waitFor(WAIT))

      // Every operation, in the document's order, with its method, path and summary.
      const listed = yield* Effect.promise(() =>
        page.locator("article.operation").evaluateAll((nodes) =>
          nodes.map((node) => ({
            id: node.getAttribute("data-operation-id"),
            method: node.getAttribute("data-method"),
            path: node.querySelector(".path")?.textContent,
            summary: node.querySelector(".summary")?.textContent
          }))
        )
      )
      assert.deepStrictEqual(listed, expected)
      assert.strictEqual(yield* Effect.promise(() => page.locator("#operation-index li").count()), expected.length)
      const cancel = page.locator(`article[data-operation-id="CancelTask"]`)
      assert.include(yield* Effect.promise(() => cancel.locator("table.parameters").innerText()), "id")
      assert.include(yield* Effect.promise(() => cancel.locator(".responses").innerText()), "404")

      yield* Effect.promise(() => page.screenshot({ path: Chromium.screenshotPath("apidocs", "1-operations") }))

      // Every schema is there; a reference is a link that leads to it.
      const schemas = yield* Effect.promise(() =>
        page.locator("article.schema").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-schema")))
      )
      assert.deepStrictEqual(schemas, Object.keys(document.components.schemas))
      yield* Effect.promise(() =>
        page.locator(`article[data-operation-id="GetTask"] .responses a`, { hasText: "Task" }).first().click()
      )
      assert.strictEqual(new URL(page.url()).hash, "#schema-Task")
      assert.include(yield* Effect.promise(() => page.locator("#schema-Task table").innerText()), "status")

      // Servers and security, as the document says.
      assert.include(yield* Effect.promise(() => page.locator("#servers").innerText()), server.url)
      assert.include(yield* Effect.promise(() => page.locator("#security").innerText()), "bearer: HTTP Bearer")
      assert.strictEqual(yield* Effect.promise(() => page.title()), document.info.title)
      yield* Effect.promise(() => page.screenshot({ path: Chromium.screenshotPath("apidocs", "2-schema") }))
      assert.deepStrictEqual(problems, [])
    }))

  it.live("says so when the document cannot be read", () =>
    Effect.gen(function*() {
      const server = yield* serveDemo()
      const browser = yield* Chromium.launch
      const page = yield* Effect.promise(() => browser.newPage())
      // The document fails on its way to the page (a proxy's 502, say).
      yield* Effect.promise(() => page.route("**/openapi.json", (route) => route.fulfill({ status: 502, body: "" })))
      yield* Effect.promise(() => page.goto(`${server.url}/docs`))
      yield* Effect.promise(() => page.locator("#error:not([hidden])").waitFor(WAIT))
      assert.include(
        yield* Effect.promise(() => page.locator("#error").innerText()),
        "Cannot read the OpenAPI document: HTTP 502"
      )
      assert.strictEqual(yield* Effect.promise(() => page.locator("article.operation").count()), 0)
    }))
})
