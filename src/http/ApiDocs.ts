/**
 * A page that shows the OpenAPI document of the HTTP+JSON binding (OpenApiDocument, served at the binding's
 * `openApiPath`): the servers, each operation with its parameters, request body and responses, and every schema,
 * linked to one another. Self-contained: its own small script reads the document from this origin and renders it
 * (no CDN, no other network), under the same strict Content-Security-Policy as the dev UI (StaticFiles); the
 * document is rendered as text, never as markup.
 *
 * `effect-a2a serve` and `NodeA2AServer.serve` mount it at `/docs`, the document at `/openapi.json` (`apiDocs`,
 * on by default; `--no-api-docs` / A2A_API_DOCS=false turn both off).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { A2AHttp, ApiDocs } from "effect-a2a/http"
 *
 * // the A2A routes with the OpenAPI document at /openapi.json, and the page that shows it at /docs
 * const app = HttpRouter.serve(
 *   Layer.mergeAll(A2AHttp.routes({ openApiPath: "/openapi.json" }), ApiDocs.routes(), A2AHttp.notFound)
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as Layer from "effect/Layer"
import * as StaticFiles from "./internal/StaticFiles.ts"

export interface ApiDocsOptions {
  /** Where the page is served; its style and script are below it. Default "/docs". */
  readonly path?: `/${string}` | undefined
  /** Where the page reads the document: the binding's `openApiPath`. Default "/openapi.json". */
  readonly documentPath?: `/${string}` | undefined
}

export const DEFAULT_PATH = "/docs"

export const DEFAULT_DOCUMENT_PATH = "/openapi.json"

/** Adds the page at `path` and its style and script below it (StaticFiles.pageRoutes: loaded on first use). */
export const routes = (options: ApiDocsOptions = {}): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const documentPath = options.documentPath ?? DEFAULT_DOCUMENT_PATH
  return StaticFiles.pageRoutes(options.path ?? DEFAULT_PATH, async (base) => {
    const ApiDocsPage = await import("./internal/ApiDocsPage.ts")
    const html = StaticFiles.fill(ApiDocsPage.html, { assets: base, documentPath })
    return { html, script: ApiDocsPage.script, css: ApiDocsPage.css }
  })
}
