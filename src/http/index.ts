/**
 * effect-a2a HTTP bindings: the agent card, JSON-RPC and HTTP+JSON/REST routes on Effect's HttpRouter, to mount
 * on any router, and their seams: `NativeHttp` (a runtime's fast paths), `NativeRelay` (a runtime's way of carrying
 * the gateway's byte relay) and `HttpEdition` (other protocol versions,
 * provided through `HttpCallContext.HttpEditions`; A2A 0.3 is `effect-a2a/v0_3`, 0.1 `effect-a2a/v0_1`). What the
 * bindings are made of lives in `internal/`. The browser pages served beside them (the dev UI, the OpenAPI document
 * and its page) are `effect-a2a/pages`; `NodeA2AServer.serve` (`effect-a2a/node`) serves them all on Node.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { HttpRouter, HttpServerResponse } from "effect/http"
 * import { A2AHttp } from "effect-a2a/http"
 *
 * // the A2A routes under /a2a, next to the application's own routes
 * const health = HttpRouter.add("GET", "/health", HttpServerResponse.text("ok"))
 * const routes = Layer.mergeAll(A2AHttp.routes({ jsonRpcPath: "/a2a/rpc", restPath: "/a2a" }), health)
 * const app = HttpRouter.serve(routes)
 * ```
 *
 * @since 0.1.0
 */
export * as A2AHttp from "./A2AHttp.ts"
export * as EditionKit from "./EditionKit.ts"
export * as HttpBindingOptions from "./HttpBindingOptions.ts"
export * as HttpCallContext from "./HttpCallContext.ts"
export * as HttpEdition from "./HttpEdition.ts"
export * as NativeHttp from "./NativeHttp.ts"
export * as NativeRelay from "./NativeRelay.ts"
export * as ServerShutdown from "./ServerShutdown.ts"
