/**
 * The seam for protocol versions served beside A2A 1.0: an edition brings its JSON-RPC methods (an `MethodTable`), the
 * REST routes of its own, and the card its clients read. The 1.0 bindings know no other version; A2A 0.3 is the
 * edition of `effect-a2a/v0_3`, which plugs in by providing `HttpCallContext.HttpEditions`, and A2A 0.1 the edition of
 * `effect-a2a/v0_1` (whose JSON-RPC method names tell its requests apart: `MethodTable.methodsNameVersion`). An edition
 * builds its routes from the public modules alone: this one, Operations, HttpCallContext and EditionKit (request
 * bodies, REST paths, error headers, event streams), so the bindings' internals stay theirs to change.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { A2AHttp } from "effect-a2a/http"
 * import { A2A03 } from "effect-a2a/v0_3"
 *
 * // the A2A routes, serving 0.3 clients too
 * const routes = A2AHttp.routes().pipe(Layer.provide(A2A03.layer))
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Scope from "effect/Scope"
import type * as v1 from "../protocol/generated/v1.ts"
import type { MethodTable } from "../server/MethodTable.ts"

/**
 * A REST route's handler, as the bindings build them.
 *
 * @since 0.1.0
 * @category models
 */
export type RouteHandler = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams | HttpRouter.RouteContext | Scope.Scope
>

/**
 * One protocol version served beside 1.0; `Env` is what the bindings share (`HttpCallContext.BindingEnv`).
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpEdition<Env> {
  /** Its version (`Major.Minor`) and JSON-RPC methods, on the same endpoint as 1.0's. */
  readonly methods: MethodTable
  /** Its own REST routes, relative to the REST base path; `wrap` applies the bindings' middleware. */
  readonly restRoutes: (
    env: Env,
    wrap: (handler: RouteHandler) => RouteHandler
  ) => ReadonlyArray<HttpRouter.Route<never, never>>
  /** The agent card its clients read. */
  readonly card: {
    /** The request header that decides which card a request gets (sent back in `Vary`). */
    readonly vary: string
    /** Whether this card request asks for this edition's card. */
    readonly wants: (request: HttpServerRequest.HttpServerRequest) => boolean
    /** The card in this edition's shape, JSON-ready. */
    readonly render: (card: v1.AgentCard) => unknown
    /**
     * Where its clients look for the card when that is not the card path (A2A 0.1 and 0.2:
     * `/.well-known/agent.json`): served there too, always in this edition's form. When several editions name
     * one path, the last of them is served there (a later edition's card reads for the earlier ones' clients too).
     */
    readonly path?: `/${string}` | undefined
  }
}
