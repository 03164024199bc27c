/**
 * Agent discovery (spec 8.2): fetch an agent card from its well-known URI, or from a URL that already names a
 * card, and read it into the 1.0 model. A 1.0 card is taken as it is; a card of another version is read by the
 * client edition that speaks it (ClientEdition: A2A 0.3 is `effect-a2a/v0_3`), its interfaces stamped with its
 * version so that interface selection picks that edition's transports for them.
 *
 * @example
 * ```ts
 * import { AgentCardResolver } from "effect-a2a/client"
 * import { Effect } from "effect"
 * import { FetchHttpClient, HttpClient } from "effect/http"
 *
 * AgentCardResolver.cardUrlFor("https://agent.example.com") // ".../.well-known/agent-card.json"
 * const card = Effect.gen(function*() {
 *   const http = yield* HttpClient.HttpClient
 *   return yield* AgentCardResolver.fetchCard(http, "https://agent.example.com")
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Headers from "effect/http/Headers"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as v1 from "../protocol/generated/v1.ts"
import { A2AAgentCardInvalid, A2AResponseError, A2ATransportError } from "./A2AClientError.ts"
import { type ClientEdition, ClientEditions } from "./ClientEdition.ts"
import * as Http from "./internal/HttpExchange.ts"
import * as Tolerance from "./Tolerance.ts"

/**
 * Where an agent publishes its card, under its base URL (spec 8.2).
 *
 * @since 0.1.0
 * @category constants
 */
export const WELL_KNOWN_PATH = "/.well-known/agent-card.json"

/**
 * The card URL for what the user typed: a URL ending in `.json` or containing `/.well-known/` is taken as
 * the card itself; any other URL is an agent base URL, whose card is at `<base>/.well-known/agent-card.json`.
 *
 * @since 0.1.0
 * @category utils
 */
export const cardUrlFor = (input: string): string => {
  const url = new URL(input)
  if (url.pathname.endsWith(".json") || url.pathname.includes("/.well-known/")) return url.toString()
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${WELL_KNOWN_PATH}`
  return url.toString()
}

/**
 * A fetched card and the URL it came from.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResolvedCard {
  readonly card: v1.AgentCard
  /** The URL the card was fetched from (interface URLs resolve against it). */
  readonly url: string
  /** The card's JSON as received: what its signatures cover (decoding drops what the schema does not know). */
  readonly json: unknown
}

const decodeV1 = Schema.decodeUnknownOption(v1.AgentCard)

/**
 * A card of 1.0 or of one of `editions` as a 1.0 card; None when it is none of them.
 *
 * @since 0.1.0
 * @category utils
 */
export const decode = (json: unknown, editions: ReadonlyArray<ClientEdition> = []): Option.Option<v1.AgentCard> => {
  const modern = decodeV1(json)
  if (Option.isSome(modern)) return modern
  for (const edition of editions) {
    const card = edition.readCard(json)
    if (Option.isSome(card)) return card
  }
  return Option.none()
}

const decodeV1Effect = Http.decode(v1.AgentCard, "an A2A 1.0 AgentCard")

/**
 * Reads a card of 1.0 or of an edition the client speaks (ClientEditions) into the 1.0 model, or the SchemaMismatch
 * that says what is wrong: checked against the schema of the version it claims to be. A card with a fault known from
 * agents in the wild is read repaired, the repair logged once (Tolerance), unless the client is strict.
 *
 * @since 0.1.0
 * @category utils
 */
export const read = (json: unknown, r: Http.Received, body: string): Effect.Effect<v1.AgentCard, A2AResponseError> =>
  Effect.catchTag(readCard(json, r, body), "A2AAgentCardInvalid", (invalid) =>
    Effect.fail(
      new A2AResponseError({
        ...Http.responseError(r, "SchemaMismatch", body),
        message: invalid.issue
      })
    ))

/**
 * As `read`, a card that does not match the schema of the version it claims (or of 1.0) being the agent's fault:
 * an A2AAgentCardInvalid carrying what the schema said.
 *
 * @since 0.2.0
 * @category decoding
 */
export const readCard = (
  json: unknown,
  r: Http.Received,
  body: string
): Effect.Effect<v1.AgentCard, A2AResponseError | A2AAgentCardInvalid> =>
  Effect.gen(function*() {
    const editions = yield* ClientEditions
    const card = decode(json, editions)
    if (Option.isSome(card)) return card.value
    if (!(yield* Tolerance.Strict)) {
      for (const edition of editions) {
        const repaired = edition.repairCard?.(json)
        if (repaired === undefined) continue
        const read = edition.readCard(repaired.json)
        if (Option.isNone(read)) continue
        for (const repair of repaired.repairs) yield* Tolerance.logRepair(r.url, repair)
        return read.value
      }
    }
    const invalid = (error: A2AResponseError) =>
      new A2AAgentCardInvalid({
        url: r.url,
        issue: error.message,
        message: `The agent card at ${r.url} does not parse: ${error.message}`
      })
    const claimed = editions.find((edition) => edition.claimsCard(json))
    if (claimed !== undefined) return yield* Effect.mapError(claimed.decodeCard(json, r, body), invalid)
    const version = olderVersionOf(json)
    if (version === undefined) return yield* Effect.mapError(decodeV1Effect(json, r, body), invalid)
    return yield* new A2AResponseError({
      ...Http.responseError(r, "SchemaMismatch", body, "an A2A 1.0 AgentCard"),
      message: `The agent card at ${r.url} is an A2A ${version} card, and this client speaks A2A 1.0 only: provide ` +
        "A2A03.layer (effect-a2a/v0_3) to speak 0.3 as well"
    })
  })

/** The version a card of an older protocol declares (no `supportedInterfaces`, a 0.x `protocolVersion`). */
const olderVersionOf = (json: unknown): string | undefined =>
  Predicate.isObject(json) && json["supportedInterfaces"] === undefined &&
    Predicate.isString(json["protocolVersion"]) &&
    json["protocolVersion"].startsWith("0.")
    ? json["protocolVersion"]
    : undefined

/**
 * Fetches and decodes an agent's card from a base URL or a card URL.
 *
 * @since 0.1.0
 * @category utils
 */
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
): Effect.Effect<ResolvedCard, A2ATransportError | A2AResponseError | A2AAgentCardInvalid> =>
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
      if (Option.isNone(json)) {
        const error = Http.responseError(r, "InvalidJson", body)
        return yield* new A2AAgentCardInvalid({
          url: r.url,
          issue: error.message,
          message: `The agent card at ${r.url} does not parse: ${error.message}`
        })
      }
      const card = yield* readCard(json.value, r, body)
      return { card, url: response.request.url, json: json.value }
    })
    if (options.timeout === undefined) return yield* exchange
    const timeout = Duration.fromInputUnsafe(options.timeout)
    return yield* Effect.timeoutOrElse(exchange, {
      duration: timeout,
      orElse: () => Effect.fail(Http.timeoutError({ method: "GET", url }, timeout, "agent card"))
    })
  })
