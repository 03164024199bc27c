/**
 * Agent discovery (spec 8.2): fetch an agent card from its well-known URI, or from a URL that already names a
 * card, and read it into the 1.0 model. A 1.0 card is taken as it is. A 0.3 card (top-level `url`,
 * `preferredTransport`, `additionalInterfaces`; no `supportedInterfaces`) is translated by
 * protocol/v0_3/AgentCards, its interfaces stamped with its `protocolVersion`, so that interface selection
 * picks a 0.3 transport for them. A hybrid card (the 0.3 fields plus the 1.0 `supportedInterfaces`, what a
 * server with a 0.3 compatibility layer serves to a request without a version) keeps its 1.0 interface list,
 * so the agent's own order still decides.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Headers from "effect/http/Headers"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as v0_3 from "../generated/v0_3.ts"
import * as v1 from "../generated/v1.ts"
import * as AgentCards from "../protocol/v0_3/AgentCards.ts"
import { type A2AResponseError, A2ATransportError } from "./A2AClientError.ts"
import * as Http from "./HttpExchange.ts"

export const WELL_KNOWN_PATH = "/.well-known/agent-card.json"

/**
 * The card URL for what the user typed: a URL ending in `.json` or containing `/.well-known/` is taken as
 * the card itself; any other URL is an agent base URL, whose card is at `<base>/.well-known/agent-card.json`.
 */
export const cardUrlFor = (input: string): string => {
  const url = new URL(input)
  if (url.pathname.endsWith(".json") || url.pathname.includes("/.well-known/")) return url.toString()
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${WELL_KNOWN_PATH}`
  return url.toString()
}

export interface ResolvedCard {
  readonly card: v1.AgentCard
  /** The URL the card was fetched from (interface URLs resolve against it). */
  readonly url: string
}

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

/** A 0.3 card has a top-level `url` or a 0.x `protocolVersion`, and no `supportedInterfaces`. */
const looksLikeV03 = (value: unknown): boolean =>
  Predicate.isObject(value) && value["supportedInterfaces"] === undefined &&
  (Predicate.isString(value["url"]) ||
    (Predicate.isString(value["protocolVersion"]) && value["protocolVersion"].startsWith("0.")))

const decodeV1Effect = Http.decode(v1.AgentCard, "an A2A 1.0 AgentCard")
const decodeV03Effect = Http.decode(v0_3.AgentCard, "an A2A 0.3 AgentCard")

/** Reads a card of either version into the 1.0 model, or the SchemaMismatch that says what is wrong. */
export const read = (json: unknown, r: Http.Received, body: string): Effect.Effect<v1.AgentCard, A2AResponseError> => {
  const card = decode(json)
  if (Option.isSome(card)) return Effect.succeed(card.value)
  // Neither version: decoding with the schema of the version it looks like names what is wrong.
  return looksLikeV03(json)
    ? Effect.map(decodeV03Effect(json, r, body), AgentCards.toV1AgentCard)
    : decodeV1Effect(json, r, body)
}

export const fetchCard = (
  httpClient: HttpClient.HttpClient,
  input: string,
  options: {
    readonly headers?: Headers.Input | undefined
    readonly timeout?: Duration.Input | undefined
    /**
     * Sent as `A2A-Version`. Default "1.0": a server that serves both versions then answers with the 1.0 card,
     * which lists its 0.3 interfaces too; a 0.3-only server ignores it.
     */
    readonly protocolVersion?: string | undefined
  } = {}
): Effect.Effect<ResolvedCard, A2ATransportError | A2AResponseError> =>
  Effect.gen(function*() {
    const url = yield* Effect.try({
      try: () => cardUrlFor(input),
      catch: (cause) =>
        new A2ATransportError({
          reason: "InvalidUrl",
          method: "GET",
          url: input,
          message: `Invalid agent URL "${input}": ${Predicate.isError(cause) ? cause.message : String(cause)}`,
          cause
        })
    })
    // A server with a 0.3 compatibility layer picks the card's shape by A2A-Version (absent means 0.3).
    const request = HttpClientRequest.get(url).pipe(
      HttpClientRequest.setHeader("accept", Http.JSON_CONTENT_TYPE),
      HttpClientRequest.setHeader("a2a-version", options.protocolVersion ?? "1.0"),
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
      const card = yield* read(json.value, r, body)
      return { card, url: response.request.url }
    })
    if (options.timeout === undefined) return yield* exchange
    const timeout = Duration.fromInputUnsafe(options.timeout)
    return yield* Effect.timeoutOrElse(exchange, {
      duration: timeout,
      orElse: () => Effect.fail(Http.timeoutError({ method: "GET", url }, timeout, "agent card"))
    })
  })
