/**
 * The API docs page's routes without a browser: the page, its style and script, with the dev UI's strict
 * Content-Security-Policy, the document path escaped into the page, and a script that parses and renders the
 * document without markup APIs. The page itself is driven in Chromium by ApiDocs.browser.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import { Script } from "node:vm"
import * as ApiDocs from "../../src/pages/ApiDocs.ts"
import * as DevUi from "../../src/pages/DevUi.ts"
import * as ApiDocsScript from "../../src/pages/internal/ApiDocsScript.ts"

const withHandler = <A>(options: ApiDocs.ApiDocsOptions, f: (get: (path: string) => Promise<Response>) => Promise<A>) =>
  Effect.promise(async () => {
    const { dispose, handler } = HttpRouter.toWebHandler(ApiDocs.routes(options), { disableLogger: true })
    try {
      return await f((path) => handler(new Request(`http://127.0.0.1${path}`)))
    } finally {
      await dispose()
    }
  })

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
