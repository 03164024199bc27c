/**
 * Agent discovery (spec 8.2): fetch an agent card from its well-known URI, or from a URL that already names a
 * card, and decode it with the generated AgentCard Schema.
 */
import { Duration, Effect, Option, Predicate } from "effect"
import type * as Headers from "effect/http/Headers"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as v1 from "../generated/v1.ts"
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

const decodeCard = Http.decode(v1.AgentCard, "an AgentCard")

/** A 0.3 card has a top-level `url` and `protocolVersion` "0.x" and no `supportedInterfaces`. */
const looksLikeV03 = (value: unknown): boolean =>
  Predicate.isObject(value) && value["supportedInterfaces"] === undefined &&
  (Predicate.isString(value["url"]) ||
    (Predicate.isString(value["protocolVersion"]) && value["protocolVersion"].startsWith("0.")))

export const fetchCard = (
  httpClient: HttpClient.HttpClient,
  input: string,
  options: {
    readonly headers?: Headers.Input | undefined
    readonly timeout?: Duration.Input | undefined
    /** Sent as `A2A-Version`. Default "1.0". */
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
      const card = yield* decodeCard(json.value, r, body).pipe(
        Effect.mapError((error) =>
          looksLikeV03(json.value)
            ? Http.responseError(r, "SchemaMismatch", body, "an A2A 0.3 agent card (this client speaks 1.0)")
            : error
        )
      )
      return { card, url: response.request.url }
    })
    if (options.timeout === undefined) return yield* exchange
    const timeout = Duration.fromInputUnsafe(options.timeout)
    return yield* Effect.timeoutOrElse(exchange, {
      duration: timeout,
      orElse: () => Effect.fail(Http.timeoutError({ method: "GET", url }, timeout, "agent card"))
    })
  })
