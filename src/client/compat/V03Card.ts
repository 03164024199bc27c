/**
 * Reading agent cards of any version into the 1.0 model (spec 1.0 section 8, Appendix A.2.2; spec 0.3
 * section 5): a 1.0 card as it is; a 0.3 card (top-level `url` / `preferredTransport` / `additionalInterfaces`,
 * no `supportedInterfaces`) translated by protocol/v0_3/AgentCards, its interfaces stamped with its
 * `protocolVersion` (0.3) so that interface selection picks a 0.3 transport for them. A hybrid card (0.3 fields
 * plus 1.0 `supportedInterfaces`, what a server with a 0.3 compatibility layer serves to clients that send no
 * version) keeps its 1.0 interface list, so a 1.0 interface is still preferred where one exists.
 */
import { Duration, Effect, Option, Predicate, Schema } from "effect"
import type * as Headers from "effect/http/Headers"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as v0_3 from "../../generated/v0_3.ts"
import * as v1 from "../../generated/v1.ts"
import * as AgentCards from "../../protocol/v0_3/AgentCards.ts"
import { type A2AResponseError, A2ATransportError } from "../A2AClientError.ts"
import * as AgentCardResolver from "../AgentCardResolver.ts"
import * as Http from "../HttpExchange.ts"

const decodeV1 = Schema.decodeUnknownOption(v1.AgentCard)
const decodeV03 = Schema.decodeUnknownOption(v0_3.AgentCard)
const decodeInterfaces = Schema.decodeUnknownOption(Schema.NonEmptyArray(v1.AgentInterface))

/** A card of either version as a 1.0 card; None when it is neither. */
export const decode = (json: unknown): Option.Option<v1.AgentCard> => {
  const modern = decodeV1(json)
  if (Option.isSome(modern)) return modern
  return Option.map(decodeV03(json), (legacy) => {
    const card = AgentCards.toV1AgentCard(legacy)
    const interfaces = Predicate.isObject(json) ? decodeInterfaces(json["supportedInterfaces"]) : Option.none()
    return Option.isSome(interfaces) ? { ...card, supportedInterfaces: interfaces.value } : card
  })
}

/** Like AgentCardResolver.fetchCard (A2A-Version 1.0 on the request), accepting 0.3 cards too. */
export const fetchCard = (
  httpClient: HttpClient.HttpClient,
  input: string,
  options: {
    readonly headers?: Headers.Input | undefined
    readonly timeout?: Duration.Input | undefined
  } = {}
): Effect.Effect<AgentCardResolver.ResolvedCard, A2ATransportError | A2AResponseError> =>
  Effect.gen(function*() {
    const url = yield* Effect.try({
      try: () => AgentCardResolver.cardUrlFor(input),
      catch: (cause) =>
        new A2ATransportError({
          reason: "InvalidUrl",
          method: "GET",
          url: input,
          message: `Invalid agent URL "${input}": ${Predicate.isError(cause) ? cause.message : String(cause)}`,
          cause
        })
    })
    const request = HttpClientRequest.get(url).pipe(
      HttpClientRequest.setHeader("accept", Http.JSON_CONTENT_TYPE),
      HttpClientRequest.setHeader("a2a-version", "1.0"),
      HttpClientRequest.setHeaders(options.headers ?? {})
    )
    const exchange = Effect.gen(function*() {
      const response = yield* Http.send(httpClient, request)
      const body = yield* Http.readText(response)
      const r = Http.received(response)
      if (!Http.isOk(r.status)) return yield* Http.responseError(r, "UnexpectedStatus", body)
      if (!Http.isJsonContentType(r.contentType)) {
        return yield* Http.responseError(r, "UnexpectedContentType", body, Http.JSON_CONTENT_TYPE)
      }
      const json = Http.parseJson(body)
      if (Option.isNone(json)) return yield* Http.responseError(r, "InvalidJson", body)
      const card = decode(json.value)
      if (Option.isNone(card)) {
        return yield* Http.responseError(r, "SchemaMismatch", body, "an A2A 1.0 or 0.3 agent card")
      }
      return { card: card.value, url: response.request.url }
    })
    if (options.timeout === undefined) return yield* exchange
    const timeout = Duration.fromInputUnsafe(options.timeout)
    return yield* Effect.timeoutOrElse(exchange, {
      duration: timeout,
      orElse: () => Effect.fail(Http.timeoutError({ method: "GET", url }, timeout, "agent card"))
    })
  })
