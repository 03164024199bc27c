/**
 * The gateway catalog page's routes without a browser: what they serve (the page, its style and script, nothing
 * else), with a strict Content-Security-Policy, the admin API's and front door's paths escaped into the page, no
 * token of any kind in it, and a script that parses and builds no markup. The page itself is driven in Chromium by
 * GatewayCatalog.browser.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { Script } from "node:vm"
import * as GatewayUi from "../../src/pages/GatewayUi.ts"
import * as GatewayUiScript from "../../src/pages/internal/GatewayUiScript.ts"
import { withRoutes } from "../fixtures/PageRoutes.ts"
import { BIN } from "../fixtures/ServeProcess.ts"

const withHandler = <A>(
  options: GatewayUi.GatewayUiOptions,
  f: (get: (path: string, method?: string) => Promise<Response>) => Promise<A>
) => withRoutes(GatewayUi.routes(options), f)

describe("GatewayUi.routes", () => {
  it.live("serves the page, its style and script at /ui with a strict CSP; nothing else", () =>
    withHandler({}, async (get) => {
      const served = await Promise.all(["/ui", "/ui/", "/ui/app.css", "/ui/app.js"].map(async (path) => {
        const response = await get(path)
        return {
          path,
          status: response.status,
          type: response.headers.get("content-type"),
          csp: response.headers.get("content-security-policy"),
          cache: response.headers.get("cache-control"),
          body: await response.text()
        }
      }))
      for (const file of served) {
        assert.strictEqual(file.status, 200, file.path)
        assert.strictEqual(file.csp, GatewayUi.contentSecurityPolicy, file.path)
        assert.strictEqual(file.cache, "no-store", file.path)
      }
      assert.deepStrictEqual(served.map((f) => f.type?.split(";")[0]), [
        "text/html",
        "text/html",
        "text/css",
        "text/javascript"
      ])
      const page = served[0]!.body
      assert.notMatch(page, /<script>|<style|\son[a-z]+=/i)
      assert.include(page, `<script src="/ui/app.js" defer></script>`)
      assert.include(page, `<meta name="a2a-admin-path" content="/admin">`)
      assert.include(page, `<meta name="a2a-agents-path" content="/agents">`)
      // the token is typed into the page, never served in it
      assert.match(page, /<input id="admin-token" type="password"[^>]*>/)
      assert.notMatch(page, /<input id="admin-token"[^>]*value=/)
      assert.notInclude(GatewayUi.contentSecurityPolicy, "unsafe")
      const others = await Promise.all([get("/ui/other"), get("/ui", "POST"), get("/_dev")])
      assert.deepStrictEqual(others.map((r) => r.status), [404, 404, 404])
    }))

  it.live("puts the page and its API paths where it is told, escaped", () =>
    withHandler(
      { path: "/ops/catalog/", adminPath: `/adm"><script>alert(1)</script>/`, agentsPath: "/a" },
      async (get) => {
        const page = await (await get("/ops/catalog")).text()
        assert.include(page, `content="/adm&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`)
        assert.include(page, `<meta name="a2a-agents-path" content="/a">`)
        assert.notInclude(page, "<script>alert")
        assert.strictEqual((await get("/ops/catalog/app.js")).status, 200)
        assert.strictEqual((await get("/ui")).status, 404)
      }
    ))

  it("the script parses, keeps the token in the tab, and renders agent text without markup APIs", () => {
    assert.doesNotThrow(() => new Script(GatewayUiScript.script))
    assert.notMatch(
      GatewayUiScript.script,
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/
    )
    assert.notMatch(GatewayUiScript.script, /localStorage|document\.cookie/)
    assert.include(GatewayUiScript.script, "sessionStorage")
  })

  it.live("effect-a2a gateway serves the page at /ui, the admin token nowhere in it", () =>
    Effect.gen(function*() {
      const token = "cli-catalog-admin-token"
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [BIN, "gateway", "--memory", "--port", "0", "--admin-token", token], {
            env: process.env,
            stdio: ["ignore", "pipe", "pipe"]
          })
        ),
        (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
      )
      let output = ""
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      let base: string | undefined
      for (let i = 0; i < 1500 && base === undefined; i++) {
        base = /Gateway listening on (https?:\/\/\S+)/.exec(output)?.[1]
        if (child.exitCode !== null) return yield* Effect.die(new Error(`gateway exited: ${output}`))
        if (base === undefined) yield* Effect.sleep("20 millis")
      }
      if (base === undefined) return yield* Effect.die(new Error(`gateway did not start: ${output}`))
      assert.include(output, `catalog page ${base}/ui`)
      const files = yield* Effect.promise(() =>
        Promise.all(["/ui", "/ui/app.js", "/ui/app.css"].map(async (path) => {
          const response = await fetch(`${base}${path}`)
          return {
            status: response.status,
            csp: response.headers.get("content-security-policy"),
            body: await response.text()
          }
        }))
      )
      for (const file of files) {
        assert.strictEqual(file.status, 200)
        assert.strictEqual(file.csp, GatewayUi.contentSecurityPolicy)
        assert.notInclude(file.body, token)
      }
      assert.include(files[0]!.body, `<meta name="a2a-admin-path" content="/admin">`)
    }).pipe(Effect.scoped), 60_000)
})
