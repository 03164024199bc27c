/**
 * The API docs page's routes without a browser: the page, its style and script, with the dev UI's strict
 * Content-Security-Policy, the document path escaped into the page, and a script that parses and renders the
 * document without markup APIs; and the document's own route (documentRoutes). The page itself is driven in
 * Chromium by ApiDocs.browser.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import { Script } from "node:vm"
import * as ApiDocs from "../../src/pages/ApiDocs.ts"
import * as DevUi from "../../src/pages/DevUi.ts"
import * as ApiDocsScript from "../../src/pages/internal/ApiDocsScript.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { withRoutes } from "../fixtures/PageRoutes.ts"

const withHandler = <A>(
  options: ApiDocs.ApiDocsOptions,
  f: (get: (path: string, method?: string) => Promise<Response>) => Promise<A>
) => withRoutes(ApiDocs.routes(options), f)

describe("ApiDocs.routes", () => {
  it.live("serves the page at /docs, its style and script, with a strict CSP; nothing else", () =>
    withHandler({}, async (get) => {
      for (
        const [path, type] of [["/docs", "text/html"], ["/docs/app.css", "text/css"], [
          "/docs/app.js",
          "text/javascript"
        ]]
      ) {
        const response = await get(path!)
        assert.strictEqual(response.status, 200, path)
        assert.strictEqual(response.headers.get("content-type")?.split(";")[0], type)
        assert.strictEqual(response.headers.get("content-security-policy"), DevUi.contentSecurityPolicy)
      }
      const page = await (await get("/docs")).text()
      assert.notMatch(page, /<script>|<style|\son[a-z]+=/i)
      assert.include(page, `<meta name="openapi-path" content="/openapi.json">`)
      assert.include(page, `<script src="/docs/app.js" defer></script>`)
      assert.strictEqual((await get("/docs/other")).status, 404)
    }))

  it.live("puts the page where it is told, escaping the document path it writes into it", () =>
    withHandler({ path: "/api", documentPath: `/o"><script>alert(1)</script>` }, async (get) => {
      const page = await (await get("/api")).text()
      assert.include(page, `content="/o&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`)
      assert.notInclude(page, "<script>alert")
      assert.strictEqual((await get("/docs")).status, 404)
    }))

  it("the script parses, and renders the document without markup APIs", () => {
    assert.doesNotThrow(() => new Script(ApiDocsScript.script))
    assert.notMatch(ApiDocsScript.script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
  })
})

describe("ApiDocs.documentRoutes", () => {
  const documentAt = (options: ApiDocs.DocumentOptions, path: string) =>
    Effect.promise(async () => {
      const { dispose, handler } = HttpRouter.toWebHandler(
        ApiDocs.documentRoutes(options).pipe(
          Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }))
        ),
        { disableLogger: true }
      )
      try {
        const response = await handler(new Request(`http://127.0.0.1${path}`))
        return { status: response.status, body: await response.text() }
      } finally {
        await dispose()
      }
    })

  it.live("serves this agent's document at /openapi.json, or where it is told, and nowhere without REST", () =>
    Effect.gen(function*() {
      const served = yield* documentAt({}, "/openapi.json")
      assert.strictEqual(served.status, 200)
      const document = JSON.parse(served.body) as { info: { title: string }; servers: ReadonlyArray<{ url: string }> }
      assert.include(document.info.title, DemoAgent.card.name)
      assert.strictEqual(document.servers[0]?.url, "http://127.0.0.1")
      assert.strictEqual((yield* documentAt({ openApiPath: "/api.json" }, "/api.json")).status, 200)
      assert.strictEqual((yield* documentAt({ openApiPath: "/api.json" }, "/openapi.json")).status, 404)
      assert.strictEqual((yield* documentAt({ openApiPath: false }, "/openapi.json")).status, 404)
      assert.strictEqual((yield* documentAt({ restPath: false }, "/openapi.json")).status, 404)
    }))
})
