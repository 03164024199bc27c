/**
 * A small browser UI for developing an agent: its card, a chat that streams a task's status and artifacts live,
 * the task list with each task's history, and cancel. The page is a client of the server's own public A2A
 * endpoints (the card, then JSON-RPC 1.0: SendStreamingMessage, ListTasks, GetTask, CancelTask), so it shows what
 * any A2A client sees; when the card asks for credentials, the page has a token field and sends it as the card says
 * (an API key in its header, query parameter or cookie, or a bearer token).
 *
 * The route serves static files only (the page, its style, its script): nothing that the card does not already
 * show, and no agent data without the caller's credentials. A strict Content-Security-Policy allows this origin's
 * script, style and requests only, and agent output is rendered as text, never as markup.
 *
 * `effect-a2a serve` mounts it at `/_dev` for the demo agent (opt-in with `--ui` for other agents).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { A2AHttp, DevUi } from "effect-a2a/http"
 *
 * // the A2A routes and the dev UI at /_dev on one router
 * const app = HttpRouter.serve(Layer.mergeAll(A2AHttp.routes(), DevUi.routes(), A2AHttp.notFound))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Layer from "effect/Layer"

export interface DevUiOptions {
  /** Where the page is served; its style and script are below it. Default "/_dev". */
  readonly path?: `/${string}` | undefined
  /** Where the page reads the agent card. Default "/.well-known/agent-card.json" (as HttpBindingOptions). */
  readonly cardPath?: `/${string}` | undefined
}

export const DEFAULT_PATH = "/_dev"

/**
 * The page's Content-Security-Policy: its own script and style, requests to its own origin, nothing else (no
 * inline script, no frames, no forms posted elsewhere, not framed by another site).
 */
export const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

const file = (body: string, contentType: string) =>
  HttpServerResponse.text(body, { contentType, headers: securityHeaders })

/**
 * Adds the page at `path` and its style and script below it. Their text (DevUiPage) is loaded on the first
 * request for one of them, not with the server: a server that nobody opens the page of never holds it
 * (BENCHMARKS.md, "Start-up memory").
 */
export const routes = (options: DevUiOptions = {}): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  // "/" puts the page at the root and its files beside it.
  const base = (options.path ?? DEFAULT_PATH).replace(/\/+$/, "")
  const at = (suffix: string) => `${base}${suffix}` as `/${string}`
  const cardPath = options.cardPath ?? "/.well-known/agent-card.json"
  return HttpRouter.use((router) =>
    Effect.gen(function*() {
      // Our own module: a failure to load it is a defect.
      const files = yield* Effect.cached(Effect.promise(async () => {
        const DevUiPage = await import("./internal/DevUiPage.ts")
        return {
          page: file(DevUiPage.html(base, cardPath), "text/html; charset=utf-8"),
          script: file(DevUiPage.script, "text/javascript; charset=utf-8"),
          style: file(DevUiPage.css, "text/css; charset=utf-8")
        }
      }))
      // The router treats `/_dev/` as `/_dev`.
      yield* router.add("GET", base === "" ? "/" : at(""), Effect.map(files, (f) => f.page))
      yield* router.add("GET", at("/app.js"), Effect.map(files, (f) => f.script))
      yield* router.add("GET", at("/app.css"), Effect.map(files, (f) => f.style))
    })
  )
}
