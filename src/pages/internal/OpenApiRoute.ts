/**
 * `GET <path>`: the OpenAPI document of the HTTP+JSON binding (OpenApiDocument) for the agent this server serves,
 * at the origin the client used: its public card (name, security, the HTTP+JSON interface URL as the server).
 * Public and cacheable like the card (the binding's AgentCardRoute): any origin may read it, an `ETag` from its
 * bytes, `304` for a matching `If-None-Match`. Rendered once per origin; the module that derives it is loaded on
 * the first request, not with the server.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { BindingEnv } from "../../http/HttpCallContext.ts"
import { cacheable, type Rendered, rendered } from "../../http/internal/AgentCardRoute.ts"
import { JSON_CONTENT_TYPE } from "../../http/internal/HttpErrors.ts"

const MAX_CACHED_ORIGINS = 256

/** The route's handler, over the binding's environment (the card, the public interfaces, the options). */
export const handler = (
  env: BindingEnv
): Effect.Effect<
  Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
> =>
  Effect.map(
    // Our own module: a failure to load it is a defect.
    Effect.cached(Effect.promise(() => import("../OpenApiDocument.ts"))),
    (module) => {
      const cache = new Map<string, Rendered>()
      const options = {
        contentType: JSON_CONTENT_TYPE,
        maxAge: Math.floor(Duration.toSeconds(env.options.cardMaxAge)),
        vary: env.options.trustedProxies !== undefined ? "X-Forwarded-Host, X-Forwarded-Proto" : undefined
      }
      const render = (origin: string) =>
        Effect.map(module, (OpenApiDocument) => {
          const card = env.card.publicCard(env.interfaces.forOrigin(origin))
          const document = rendered(
            OpenApiDocument.toJson(OpenApiDocument.make({ card, tenantPaths: env.options.tenantPaths }))
          )
          if (cache.size >= MAX_CACHED_ORIGINS) cache.clear()
          cache.set(origin, document)
          return document
        })
      return HttpServerRequest.HttpServerRequest.use((request) => {
        const origin = env.interfaces.origin(request)
        const cached = cache.get(origin)
        return cached !== undefined
          ? Effect.succeed(cacheable(request, cached, options))
          : Effect.map(render(origin), (document) => cacheable(request, document, options))
      })
    }
  )
