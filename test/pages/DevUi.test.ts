/**
 * The dev UI's routes without a browser: what they serve (the page, its style and script, nothing else), with a
 * strict Content-Security-Policy, the configured paths escaped into the page, and a script that parses. The page
 * itself is driven in Chromium by DevUi.browser.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Script } from "node:vm"
import * as DevUi from "../../src/pages/DevUi.ts"
import * as DevUiScript from "../../src/pages/internal/DevUiScript.ts"
import { withRoutes } from "../fixtures/PageRoutes.ts"

const withHandler = <A>(
  options: DevUi.DevUiOptions,
  f: (get: (path: string, method?: string) => Promise<Response>) => Promise<A>
) => withRoutes(DevUi.routes(options), f)

describe("DevUi.routes", () => {
  it.live("serves the page, its style and script with a strict CSP; nothing else", () =>
    withHandler({}, async (get) => {
      const served = await Promise.all(["/_dev", "/_dev/", "/_dev/app.css", "/_dev/app.js"].map(async (path) => {
        const response = await get(path)
        return {
          path,
          status: response.status,
          type: response.headers.get("content-type"),
          csp: response.headers.get("content-security-policy"),
          nosniff: response.headers.get("x-content-type-options"),
          body: await response.text()
        }
      }))
      for (const file of served) {
        assert.strictEqual(file.status, 200, file.path)
        assert.strictEqual(file.csp, DevUi.contentSecurityPolicy, file.path)
        assert.strictEqual(file.nosniff, "nosniff", file.path)
      }
      assert.deepStrictEqual(served.map((f) => f.type?.split(";")[0]), [
        "text/html",
        "text/html",
        "text/css",
        "text/javascript"
      ])
      // no inline script or style, so the CSP needs no 'unsafe-inline'
      const page = served[0]!.body
      assert.notMatch(page, /<script>|<style|\son[a-z]+=/i)
      assert.include(page, `<script src="/_dev/app.js" defer></script>`)
      assert.include(page, `<meta name="a2a-card-path" content="/.well-known/agent-card.json">`)
      assert.notInclude(DevUi.contentSecurityPolicy, "unsafe")
      const others = await Promise.all([get("/_dev/other"), get("/_dev", "POST"), get("/_dev/app.js", "POST")])
      assert.deepStrictEqual(others.map((r) => r.status), [404, 404, 404])
    }))

  it.live("puts the page where it is told, escaping the paths it writes into it", () =>
    withHandler({ path: "/ui/", cardPath: `/card"><script>alert(1)</script>` }, async (get) => {
      const page = await (await get("/ui")).text()
      assert.include(page, `content="/card&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`)
      assert.notInclude(page, "<script>alert")
      assert.strictEqual((await get("/ui/app.js")).status, 200)
      assert.strictEqual((await get("/_dev")).status, 404)
    }))

  it("the script parses, and renders agent text without markup APIs", () => {
    assert.doesNotThrow(() => new Script(DevUiScript.script))
    assert.notMatch(DevUiScript.script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
  })
})
