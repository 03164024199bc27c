/**
 * effect-a2a pages: what a person opens in a browser beside the A2A bindings. `DevUi` is a small UI for developing
 * an agent (its card, a live chat, its tasks); `GatewayUi` is the gateway's catalog page (its agents, their health,
 * register, try, preview, remove); `ApiDocs` serves the OpenAPI document of the HTTP+JSON binding for
 * the agent at hand and a page that shows it; `OpenApiDocument` derives that document (for any agent, or none).
 *
 * Use it to mount these on your own router next to `A2AHttp.routes` (effect-a2a/http); `NodeA2AServer.serve`
 * (effect-a2a/node) and `effect-a2a serve` mount them for you. Every page is static files under a strict
 * Content-Security-Policy, loaded on its first request, never with the server.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { A2AHttp } from "effect-a2a/http"
 * import { ApiDocs, DevUi } from "effect-a2a/pages"
 *
 * // the A2A routes, the dev UI at /_dev, the OpenAPI document at /openapi.json and its page at /docs
 * const app = HttpRouter.serve(
 *   Layer.mergeAll(A2AHttp.routes(), DevUi.routes(), ApiDocs.documentRoutes(), ApiDocs.routes(), A2AHttp.notFound)
 * )
 * ```
 *
 * @since 0.2.0
 */
export * as ApiDocs from "./ApiDocs.ts"
export * as DevUi from "./DevUi.ts"
export * as GatewayOpenApiDocument from "./GatewayOpenApiDocument.ts"
export * as GatewayUi from "./GatewayUi.ts"
export * as OpenApiDocument from "./OpenApiDocument.ts"
