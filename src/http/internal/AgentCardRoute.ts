/**
 * `GET /.well-known/agent-card.json` (spec 8.2): the public card with the interfaces this server mounts,
 * at the origin the client used. Cacheable per spec 8.6.1: `Cache-Control: max-age`, an `ETag` from the
 * card's bytes, and `304 Not Modified` for a matching `If-None-Match`. The card is public, so any origin may
 * read it (CORS). Rendered cards are kept per origin; rendering (and signing, with a CardSigner) happens once per
 * origin, not per request. An edition's card (A2A 0.3) is rendered from the unsigned card and goes unsigned: the
 * signatures cover the 1.0 card's canonical form, which a 0.3 card is not.
 *
 * With a CardSigner whose `jku` is a path, `keysHandler` serves the signer's public key there as a JWKS (RFC 7517,
 * `application/jwk-set+json`), public and cacheable like the card.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Sha256 from "../../server/internal/Sha256.ts"
import type { BindingEnv } from "../HttpCallContext.ts"
import type { HttpEdition } from "../HttpEdition.ts"
import { JSON_CONTENT_TYPE } from "./HttpErrors.ts"

export interface Rendered {
  readonly body: string
  readonly etag: string
}

const MAX_CACHED_ORIGINS = 256

/** Whether an `If-None-Match` value matches an entity tag (weak comparison, RFC 9110 13.1.2). */
export const matchesEtag = (ifNoneMatch: string, etag: string): boolean => {
  const opaque = etag.replace(/^W\//, "")
  return ifNoneMatch.split(",").some((candidate) => {
    const c = candidate.trim()
    return c === "*" || c.replace(/^W\//, "") === opaque
  })
}

/** A public document's body with its entity tag (from its bytes). */
export const rendered = (body: string): Rendered => ({
  body,
  etag: `"${Base64Url.encode(Sha256.digest(body)).slice(0, 32)}"`
})

/**
 * A public, cacheable document (the card, the key set): readable from any origin, kept `max-age` seconds, and a
 * 304 without its body for a matching `If-None-Match`.
 */
export const cacheable = (
  request: HttpServerRequest.HttpServerRequest,
  { body, etag }: Rendered,
  options: { readonly contentType: string; readonly maxAge: number; readonly vary?: string | undefined }
) => {
  const headers: Record<string, string> = {
    "cache-control": `public, max-age=${options.maxAge}`,
    etag,
    "access-control-allow-origin": "*",
    ...(options.vary !== undefined ? { vary: options.vary } : {})
  }
  const ifNoneMatch = request.headers["if-none-match"]
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, etag)) {
    return HttpServerResponse.empty({ status: 304, headers })
  }
  return HttpServerResponse.text(body, { contentType: options.contentType, headers })
}

/** The card route; `only`: the route of an edition's own card path (HttpEdition.card.path), always in its form. */
export const handler = (
  env: BindingEnv,
  only?: HttpEdition<BindingEnv> | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> => {
  const cache = new Map<string, Rendered>()
  // A request an edition claims (A2A 0.3: no A2A-Version) gets that edition's card; cached apart from the 1.0 one.
  const keyOf = (origin: string, edition: HttpEdition<BindingEnv> | undefined) =>
    edition === undefined ? origin : `${edition.methods.version} ${origin}`
  const render = (origin: string, edition: HttpEdition<BindingEnv> | undefined): Effect.Effect<Rendered> => {
    const card = env.card.publicCard(env.interfaces.forOrigin(origin))
    return Effect.map(
      edition === undefined ? env.card.sign(card, origin) : Effect.succeed(edition.card.render(card)),
      (served) => {
        const document = rendered(JSON.stringify(served))
        if (cache.size >= MAX_CACHED_ORIGINS) cache.clear()
        cache.set(keyOf(origin, edition), document)
        return document
      }
    )
  }
  const maxAge = Math.floor(Duration.toSeconds(env.options.cardMaxAge))
  const vary = [
    ...(env.options.trustedProxies !== undefined ? ["X-Forwarded-Host", "X-Forwarded-Proto"] : []),
    ...(only === undefined ? new Set(env.editions.map((edition) => edition.card.vary)) : [])
  ].join(", ") || undefined
  const options = { contentType: JSON_CONTENT_TYPE, maxAge, vary }
  const respond = (request: HttpServerRequest.HttpServerRequest, document: Rendered) =>
    cacheable(request, document, options)
  return HttpServerRequest.HttpServerRequest.use((request) => {
    const edition = only ?? env.editions.find((e) => e.card.wants(request))
    const origin = env.interfaces.origin(request)
    // Rendered (and signed) once per origin: every later request is answered from the cache without a step.
    const cached = cache.get(keyOf(origin, edition))
    return cached !== undefined
      ? Effect.succeed(respond(request, cached))
      : Effect.map(render(origin, edition), (document) => respond(request, document))
  })
}

/** The signer's public key set (see `AgentCardConfig.publishedKeys`), cacheable and readable from any origin. */
export const keysHandler = (
  jwks: { readonly keys: ReadonlyArray<Readonly<Record<string, unknown>>> },
  env: BindingEnv
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> => {
  const document = rendered(JSON.stringify(jwks))
  const options = {
    contentType: "application/jwk-set+json",
    maxAge: Math.floor(Duration.toSeconds(env.options.cardMaxAge))
  }
  return HttpServerRequest.HttpServerRequest.use((request) => Effect.succeed(cacheable(request, document, options)))
}
