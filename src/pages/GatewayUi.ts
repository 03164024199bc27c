/**
 * The gateway's catalog page, for the operators of a gateway (effect-a2a/gateway): the registered agents with their
 * health (reachable, last card fetch, latency; checked again on demand), a form to register one (URL, optional name,
 * kind, credentials, who may call it), remove one, try one (a message sent through the front door, its reply or
 * stream shown as it arrives) and preview the exact request the gateway would send upstream (secrets masked,
 * nothing sent). The page is a client of the gateway's own admin API and front door, nothing more.
 *
 * The admin token is typed into the page and kept in the tab's sessionStorage, sent as `Authorization: Bearer`;
 * it is never written into the HTML, so the route serves static files only and shows nothing without it. A strict
 * Content-Security-Policy allows this origin's script, style and requests only, and agent output is rendered as
 * text, never as markup.
 *
 * `effect-a2a gateway` mounts it at `/ui`. The gateway's library layers (`Gateway.routes`) do not, since the
 * gateway sits below the pages: mount it beside them on your router.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { Gateway } from "effect-a2a/gateway"
 * import { GatewayUi } from "effect-a2a/pages"
 *
 * // the gateway's admin API and front door, and its catalog page at /ui
 * const routes = Layer.merge(Gateway.routes({ adminToken: Redacted.make("admin-s3cret") }), GatewayUi.routes())
 * ```
 *
 * @since 0.2.0
 */
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as Layer from "effect/Layer"
import * as StaticFiles from "./internal/StaticFiles.ts"

/**
 * Where the page is served and where it finds the gateway's admin API and front door.
 *
 * @since 0.2.0
 * @category models
 */
export interface GatewayUiOptions {
  /** Where the page is served; its style and script are below it. Default "/ui". */
  readonly path?: `/${string}` | undefined
  /** Where the admin API is (its `/agents` below it). Default "/admin". */
  readonly adminPath?: `/${string}` | undefined
  /** Where the front door serves the agents (`{agentsPath}/{name}`). Default "/agents". */
  readonly agentsPath?: `/${string}` | undefined
}

/**
 * Where the page is served unless told otherwise.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_PATH = "/ui"

/**
 * The page's Content-Security-Policy: its own script, style and requests only.
 *
 * @since 0.2.0
 * @category constants
 */
export const contentSecurityPolicy = StaticFiles.contentSecurityPolicy

/**
 * Adds the page at `path` and its style and script below it, loaded on the first request for one of them.
 *
 * @since 0.2.0
 * @category routes
 */
export const routes = (options: GatewayUiOptions = {}): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const adminPath = (options.adminPath ?? "/admin").replace(/\/+$/, "")
  const agentsPath = (options.agentsPath ?? "/agents").replace(/\/+$/, "")
  return StaticFiles.pageRoutes(options.path ?? DEFAULT_PATH, async (base) => {
    const [GatewayUiPage, GatewayUiScript] = await Promise.all([
      import("./internal/GatewayUiPage.ts"),
      import("./internal/GatewayUiScript.ts")
    ])
    const html = StaticFiles.fill(GatewayUiPage.html, { assets: base, adminPath, agentsPath })
    return { html, script: GatewayUiScript.script, css: GatewayUiPage.css }
  })
}
