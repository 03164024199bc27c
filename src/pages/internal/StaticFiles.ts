/**
 * The browser pages served beside the bindings (DevUi, ApiDocs): a page and its script and style, loaded on first
 * use, each file with a strict Content-Security-Policy and the headers that keep it to this origin, never cached.
 */
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Layer from "effect/Layer"

/**
 * The pages' Content-Security-Policy: their own script and style, requests to their own origin, nothing else (no
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

/** Escapes text for an HTML attribute value or element content. */
export const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
    /'/g,
    "&#39;"
  )

/**
 * A page's HTML (its `index.html`) with each `{{name}}` replaced by `values[name]`, escaped: the paths the route is
 * configured with (where the page's own files are, where its script reads).
 */
export const fill = (template: string, values: Readonly<Record<string, string>>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (marker, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`the page's HTML names ${marker}, which its route does not give`)
    return escapeHtml(value)
  })

/** One file of a page, with the security headers. */
export const file = (body: string, contentType: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(body, { contentType, headers: securityHeaders })

/** A page's three files: its HTML, and the script and style it loads from `<base>/app.js` and `<base>/app.css`. */
export interface Page {
  readonly html: string
  readonly script: string
  readonly css: string
}

/**
 * Adds a page at `path`, its script and style below it. `load` gives their text, given the path they are served
 * under; it runs on the first request for one of them, not with the server, so a server that nobody opens the page
 * of never holds it in memory.
 */
export const pageRoutes = (
  path: `/${string}`,
  load: (base: string) => Promise<Page>
): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  // "/" puts the page at the root and its files beside it.
  const base = path.replace(/\/+$/, "")
  const at = (suffix: string) => `${base}${suffix}` as `/${string}`
  return HttpRouter.use((router) =>
    Effect.gen(function*() {
      // Our own modules: a failure to load one is a defect.
      const files = yield* Effect.cached(Effect.promise(async () => {
        const page = await load(base)
        return {
          page: file(page.html, "text/html; charset=utf-8"),
          script: file(page.script, "text/javascript; charset=utf-8"),
          style: file(page.css, "text/css; charset=utf-8")
        }
      }))
      // The router treats `/_dev/` as `/_dev`.
      yield* router.add("GET", base === "" ? "/" : at(""), Effect.map(files, (f) => f.page))
      yield* router.add("GET", at("/app.js"), Effect.map(files, (f) => f.script))
      yield* router.add("GET", at("/app.css"), Effect.map(files, (f) => f.style))
    })
  )
}
