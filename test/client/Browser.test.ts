/**
 * Our client in a browser: a page bundled with esbuild from fixtures/BrowserPage.ts, loaded in headless Chromium
 * (Debian's, driven by playwright-core) from the same origin as an A2A server on 127.0.0.1 (A2AWeb behind Node's
 * HTTP server), reads the card, sends a message and streams a task. Skips with one line without Chromium
 * (`.ci/chromium.sh` installs it; A2A_CHROMIUM names it).
 */
import { assert, describe, it } from "@effect/vitest"
import { getRequestListener } from "@hono/node-server"
import { Duration, Effect } from "effect"
import { build } from "esbuild"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as A2AWeb from "../../src/web/A2AWeb.ts"
import * as Chromium from "../fixtures/Chromium.ts"
import { root } from "../fixtures/RuntimeProcess.ts"

if (!Chromium.available) console.log(Chromium.skipReason)

const bundle = Effect.promise(async () => {
  const result = await build({
    entryPoints: [join(import.meta.dirname, "fixtures/BrowserPage.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    tsconfig: join(root, "tsconfig.json"),
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
})

/** The page and its script at /page.html and /page.js, A2A everywhere else; the base URL. */
const serve = (script: string) =>
  Effect.acquireRelease(
    Effect.promise(() => {
      const a2a = A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make({ stepDelay: Duration.millis(2) }) })
      const toA2A = getRequestListener(a2a.handler)
      const server = createServer((req, res) => {
        if (req.url === "/page.html") {
          res.writeHead(200, { "content-type": "text/html" }).end(
            "<!doctype html><title>a2a</title><script type=\"module\" src=\"/page.js\"></script>"
          )
        } else if (req.url === "/page.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script)
        else void toA2A(req, res)
      })
      return new Promise<{ url: string; close: () => Promise<void> }>((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            close: () => a2a.dispose().then(() => new Promise<void>((done) => server.close(() => done())))
          }))
      )
    }),
    (server) => Effect.promise(() => server.close())
  )

describe.skipIf(!Chromium.available)("our client in headless Chromium", () => {
  it.live("reads the card, sends a message and streams a task from a bundled page", () =>
    Effect.gen(function*() {
      const script = yield* bundle
      const server = yield* serve(script)
      const context = yield* Chromium.launch
      const page = yield* Effect.promise(() => context.newPage())
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      yield* Effect.promise(() => page.goto(`${server.url}/page.html`))
      yield* Effect.promise(() => page.waitForFunction(() => "runA2A" in globalThis))
      const seen = yield* Effect.promise(() =>
        page.evaluate(
          (url) =>
            (globalThis as unknown as {
              runA2A: (
                url: string
              ) => Promise<{ card: string; reply: string; events: Array<string>; userAgent: string }>
            }).runA2A(url),
          server.url
        )
      )
      assert.deepStrictEqual(errors, [])
      assert.include(seen.userAgent, "HeadlessChrome")
      assert.strictEqual(seen.card, "effect-a2a demo agent")
      assert.strictEqual(seen.reply, "Echo: from the browser")
      assert.strictEqual(seen.events[0], "task TASK_STATE_SUBMITTED")
      assert.include(seen.events, "artifact Chunk 3.")
      assert.strictEqual(seen.events.at(-1), "status TASK_STATE_COMPLETED")
    }).pipe(Effect.scoped), 60_000)
})
