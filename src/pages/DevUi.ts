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
 * import { A2AHttp } from "effect-a2a/http"
 * import { DevUi } from "effect-a2a/pages"
 *
 * // the A2A routes and the dev UI at /_dev on one router
 * const app = HttpRouter.serve(Layer.mergeAll(A2AHttp.routes(), DevUi.routes(), A2AHttp.notFound))
 * ```
 *
 * @since 0.1.0
 */
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as Layer from "effect/Layer"
import * as StaticFiles from "./internal/StaticFiles.ts"

/**
 * Where the page is served and where it reads the agent card.
 *
 * @since 0.1.0
 * @category models
 */
export interface DevUiOptions {
  /** Where the page is served; its style and script are below it. Default "/_dev". */
  readonly path?: `/${string}` | undefined
  /** Where the page reads the agent card. Default "/.well-known/agent-card.json" (as HttpBindingOptions). */
  readonly cardPath?: `/${string}` | undefined
}

/**
 * Where the page is served unless told otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PATH = "/_dev"

/**
 * The page's Content-Security-Policy: its own script, style and requests only.
 *
 * @since 0.1.0
 * @category constants
 */
export const contentSecurityPolicy = StaticFiles.contentSecurityPolicy

/**
 * Adds the page at `path` and its style and script below it, loaded on the first request for one of them.
 *
 * @since 0.1.0
 * @category routes
 */
export const routes = (options: DevUiOptions = {}): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const cardPath = options.cardPath ?? "/.well-known/agent-card.json"
  return StaticFiles.pageRoutes(options.path ?? DEFAULT_PATH, async (base) => {
    const [DevUiPage, DevUiScript] = await Promise.all([
      import("./internal/DevUiPage.ts"),
      import("./internal/DevUiScript.ts")
    ])
    const html = StaticFiles.fill(DevUiPage.html, { assets: base, cardPath })
    return { html, script: DevUiScript.script, css: DevUiPage.css }
  })
}
