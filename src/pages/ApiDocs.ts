/**
 * The API docs: the OpenAPI document of the HTTP+JSON binding for the agent this server serves
 * (`documentRoutes`, at `/openapi.json` by default), and a page that shows it (`routes`, at `/docs`): the servers,
 * each operation with its parameters, request body and responses, and every schema, linked to one another.
 *
 * Use it to let users of other stacks read, or generate a client from, what the binding serves. The page is
 * self-contained: its own small script reads the document from this origin and renders it (no CDN, no other
 * network), under the same strict Content-Security-Policy as the dev UI; the document is rendered as text, never as
 * markup. Both load their heavier modules on the first request, so a server nobody asks for them never holds them.
 *
 * `effect-a2a serve` and `NodeA2AServer.serve` mount both (`apiDocs`, on by default; `--no-api-docs` /
 * A2A_API_DOCS=false turn both off). A gateway's document (its admin API, its front door, its MCP endpoint) is
 * `gatewayDocumentRoutes`, which `effect-a2a gateway` mounts with the page.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { A2AHttp } from "effect-a2a/http"
 * import { ApiDocs } from "effect-a2a/pages"
 *
 * // the A2A routes, the OpenAPI document at /openapi.json and the page that shows it at /docs
 * const app = HttpRouter.serve(
 *   Layer.mergeAll(A2AHttp.routes(), ApiDocs.documentRoutes(), ApiDocs.routes(), A2AHttp.notFound)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpMiddleware from "effect/http/HttpMiddleware"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as Layer from "effect/Layer"
import type * as A2AHttp from "../http/A2AHttp.ts"
import * as HttpBindingOptions from "../http/HttpBindingOptions.ts"
import * as HttpCallContext from "../http/HttpCallContext.ts"
import * as AgentCardRoute from "../http/internal/AgentCardRoute.ts"
import { JSON_CONTENT_TYPE } from "../http/internal/HttpErrors.ts"
import * as OpenApiRoute from "./internal/OpenApiRoute.ts"
import * as StaticFiles from "./internal/StaticFiles.ts"

/**
 * Where the page is served and where it reads the document.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiDocsOptions {
  /** Where the page is served; its style and script are below it. Default "/docs". */
  readonly path?: `/${string}` | undefined
  /** Where the page reads the document (`documentRoutes`' `openApiPath`). Default "/openapi.json". */
  readonly documentPath?: `/${string}` | undefined
}

/**
 * Where the page is served unless told otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PATH = "/docs"

/**
 * Where the document is served unless told otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_DOCUMENT_PATH = "/openapi.json"

/**
 * Adds the page at `path` and its style and script below it, loaded on the first request for one of them.
 *
 * @since 0.1.0
 * @category routes
 */
export const routes = (options: ApiDocsOptions = {}): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const documentPath = options.documentPath ?? DEFAULT_DOCUMENT_PATH
  return StaticFiles.pageRoutes(options.path ?? DEFAULT_PATH, async (base) => {
    const [ApiDocsPage, ApiDocsScript] = await Promise.all([
      import("./internal/ApiDocsPage.ts"),
      import("./internal/ApiDocsScript.ts")
    ])
    const html = StaticFiles.fill(ApiDocsPage.html, { assets: base, documentPath })
    return { html, script: ApiDocsScript.script, css: ApiDocsPage.css }
  })
}

/**
 * The document's route: the binding's own options (the same ones given to `A2AHttp.routes`, from which the
 * document takes its server URL, tenant paths and proxies), and where the document is served.
 *
 * @since 0.2.0
 * @category models
 */
export interface DocumentOptions extends HttpBindingOptions.HttpBindingOptions {
  /** Where the document is served, or false for nowhere. Default "/openapi.json". */
  readonly openApiPath?: `/${string}` | false | undefined
}

/**
 * Adds `GET <openApiPath>`: the OpenAPI 3.1 document of the HTTP+JSON binding (OpenApiDocument) for the agent in
 * context, at the origin asked (its public card: name, security, the HTTP+JSON interface as the server). Public
 * and cacheable like the card. Nothing is added when REST is not mounted (`restPath: false`), since the document
 * describes the REST routes.
 *
 * @since 0.2.0
 * @category routes
 */
export const documentRoutes = (
  options: DocumentOptions = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter | A2AHttp.Requirements> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const path = options.openApiPath === false ? undefined : options.openApiPath ?? DEFAULT_DOCUMENT_PATH
      if (path === undefined || options.restPath === false) return
      // The document needs the binding's card and public interfaces, not its event streams: no keep-alive.
      const resolved = { ...HttpBindingOptions.resolve(options), keepAliveInterval: Duration.zero }
      const env = yield* HttpCallContext.makeEnv(resolved)
      const proxies = resolved.trustedProxies
      const handler = yield* OpenApiRoute.handler(env)
      yield* router.add(
        "GET",
        path,
        proxies === undefined ? handler : HttpMiddleware.xForwardedHeaders({ trustedProxies: proxies })(handler)
      )
    })
  )

/**
 * What `gatewayDocumentRoutes` describes and where it serves it.
 *
 * @since 0.2.0
 * @category models
 */
export interface GatewayDocumentOptions {
  /** Where the document is served. Default "/openapi.json". */
  readonly openApiPath?: `/${string}` | undefined
  /** Whether the gateway's admin API is on (an admin token is configured). Default true. */
  readonly admin?: boolean | undefined
  /** Whether the gateway serves its registry as MCP tools at `/mcp`. Default true. */
  readonly mcp?: boolean | undefined
}

// A host name or address with an optional port, nothing else: a hostile Host header names no server.
const HOST = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/

/**
 * Adds `GET <openApiPath>`: a gateway's OpenAPI 3.1 document (`GatewayOpenApiDocument.make`: its admin API, its front
 * door with every agent's routes, its MCP endpoint), the origin asked as its server. Public and cacheable; the
 * module that derives it is loaded on the first request. `effect-a2a gateway` mounts it with the page (`routes`).
 *
 * @since 0.2.0
 * @category routes
 */
export const gatewayDocumentRoutes = (
  options: GatewayDocumentOptions = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const modules = yield* Effect.cached(
        Effect.promise(() => Promise.all([import("./OpenApiDocument.ts"), import("./GatewayOpenApiDocument.ts")]))
      )
      const cache = new Map<string, AgentCardRoute.Rendered>()
      yield* router.add(
        "GET",
        options.openApiPath ?? DEFAULT_DOCUMENT_PATH,
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const host = request.headers["host"] ?? ""
          const origin = HOST.test(host) ? `${request.protocol ?? "http"}://${host}` : undefined
          const key = origin ?? ""
          let document = cache.get(key)
          if (document === undefined) {
            const [OpenApiDocument, GatewayOpenApiDocument] = yield* modules
            document = AgentCardRoute.rendered(OpenApiDocument.toJson(GatewayOpenApiDocument.make({
              serverUrl: origin,
              admin: options.admin,
              mcp: options.mcp
            })))
            if (cache.size >= 256) cache.clear()
            cache.set(key, document)
          }
          return AgentCardRoute.cacheable(request, document, { contentType: JSON_CONTENT_TYPE, maxAge: 300 })
        })
      )
    })
  )
