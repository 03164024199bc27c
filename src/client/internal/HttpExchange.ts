/**
 * What every HTTP binding does with a request and its response, and how each thing that can go wrong becomes
 * a typed error saying what was received. Bindings add only their envelope (JSON-RPC, google.rpc.Status).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { InvalidParams, PermissionDenied, Unauthenticated } from "../../protocol/A2AError.ts"
import { A2ACredentialError, A2AResponseError, A2ATransportError, snippet } from "../A2AClientError.ts"
import * as SseParser from "../SseParser.ts"
import * as Tolerance from "../Tolerance.ts"

/** The request a response belongs to, for error messages. */
export interface Exchange {
  readonly method: string
  readonly url: string
}

/** What came back, for error messages. */
export interface Received extends Exchange {
  readonly status: number
  readonly contentType: string | undefined
}

export const JSON_CONTENT_TYPE = "application/json"
export const A2A_JSON_CONTENT_TYPE = "application/a2a+json"
export const EVENT_STREAM_CONTENT_TYPE = "text/event-stream"

const exchangeOf = (request: HttpClientRequest.HttpClientRequest): Exchange => ({
  method: request.method,
  url: request.url
})

/** The innermost message of an error chain (fetch wraps "connect ECONNREFUSED ..." in "fetch failed"). */
const rootMessage = (u: unknown): string => {
  let current: unknown = u
  let message = Predicate.isError(current) ? current.message : String(current)
  for (let depth = 0; depth < 8 && Predicate.hasProperty(current, "cause") && current.cause !== undefined; depth++) {
    current = current.cause
    if (Predicate.isError(current) && current.message !== "") message = current.message
  }
  return message
}

const fromClientError = (
  exchange: Exchange,
  error: HttpClientError.HttpClientError
): A2ATransportError | A2AResponseError => {
  const reason = error.reason
  switch (reason._tag) {
    case "StatusCodeError":
      // Only reachable when the user's client transformation filters statuses itself.
      return responseError(received(reason.response), "UnexpectedStatus", undefined)
    case "InvalidUrlError":
      return new A2ATransportError({
        reason: "InvalidUrl",
        ...exchange,
        message: `Invalid URL ${exchange.url}: ${rootMessage(reason.cause)}`,
        cause: error
      })
    case "EncodeError":
      return new A2ATransportError({
        reason: "EncodeFailed",
        ...exchange,
        message: `Could not encode the request ${exchange.method} ${exchange.url}: ${rootMessage(error)}`,
        cause: error
      })
    default:
      if (reason._tag === "TransportError" && reason.cause instanceof A2ACredentialError) {
        return new A2ATransportError({
          reason: "CredentialUnavailable",
          ...exchange,
          message: reason.cause.message,
          cause: reason.cause
        })
      }
      return new A2ATransportError({
        reason: "Unreachable",
        ...exchange,
        message: `Could not reach ${exchange.url} (${exchange.method}): ${rootMessage(error)}`,
        cause: error
      })
  }
}

export const timeoutError = (exchange: Exchange, timeout: Duration.Duration, what = "response") =>
  new A2ATransportError({
    reason: "Timeout",
    ...exchange,
    message: `No ${what} from ${exchange.url} (${exchange.method}) within ${Duration.format(timeout)}`
  })

/** Sends a request; failures to get a response (within `timeout`, if any) become A2ATransportError. */
export const send = (
  httpClient: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  timeout?: Duration.Duration | undefined
): Effect.Effect<HttpClientResponse.HttpClientResponse, A2ATransportError | A2AResponseError> => {
  const exchange = exchangeOf(request)
  const sent = httpClient.execute(request).pipe(Effect.mapError((error) => fromClientError(exchange, error)))
  return timeout === undefined
    ? sent
    : Effect.timeoutOrElse(sent, { duration: timeout, orElse: () => Effect.fail(timeoutError(exchange, timeout)) })
}

export const received = (response: HttpClientResponse.HttpClientResponse): Received => ({
  method: response.request.method,
  url: response.request.url,
  status: response.status,
  contentType: response.headers["content-type"]
})

const lost = (exchange: Exchange, error: unknown) =>
  new A2ATransportError({
    reason: "ConnectionLost",
    ...exchange,
    message: `The connection to ${exchange.url} broke while reading the response: ${rootMessage(error)}`,
    cause: error
  })

/** Reads the whole body as text. */
export const readText = (
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<string, A2ATransportError> =>
  response.text.pipe(Effect.mapError((error) => lost(exchangeOf(response.request), error)))

/** Parses the body as SSE events, incrementally, as the consumer pulls. */
export const sseEvents = (
  response: HttpClientResponse.HttpClientResponse
): Stream.Stream<SseParser.SseEvent, A2ATransportError | A2AResponseError> =>
  SseParser.decode(response.stream.pipe(Stream.mapError((error) => lost(exchangeOf(response.request), error)))).pipe(
    Stream.catchTag("SseEventTooLarge", (error) =>
      Stream.fail(
        new A2AResponseError({
          reason: "EventTooLarge",
          ...exchangeOf(response.request),
          status: response.status,
          ...(response.headers["content-type"] !== undefined ? { contentType: response.headers["content-type"] } : {}),
          message: `${error.message} (${response.request.method} ${response.request.url})`
        })
      ))
  )

const mediaType = (contentType: string | undefined): string | undefined =>
  contentType?.split(";")[0]?.trim().toLowerCase()

/** JSON media types: `application/json` and any `+json` suffix (`application/a2a+json`). A missing one passes. */
export const isJsonContentType = (contentType: string | undefined): boolean => {
  const type = mediaType(contentType)
  return type === undefined || type === "" || type === JSON_CONTENT_TYPE || type.endsWith("+json")
}

export const isEventStream = (contentType: string | undefined): boolean =>
  mediaType(contentType) === EVENT_STREAM_CONTENT_TYPE

export const isOk = (status: number): boolean => status >= 200 && status < 300

const describeReceived = (r: Received): string =>
  `${r.method} ${r.url} answered HTTP ${r.status}${r.contentType !== undefined ? ` (${r.contentType})` : ""}`

export const responseError = (
  r: Received,
  reason: A2AResponseError["reason"],
  body: string | undefined,
  detail?: string
): A2AResponseError => {
  const shown = body !== undefined && body !== "" ? snippet(body) : undefined
  const what = reason === "UnexpectedStatus"
    ? describeReceived(r)
    : reason === "UnexpectedContentType"
    ? `${describeReceived(r)}, expected ${detail ?? "JSON"}`
    : reason === "InvalidJson"
    ? `${describeReceived(r)} with a body that is not valid JSON`
    : reason === "InvalidJsonRpc"
    ? `${describeReceived(r)} with a body that is not a JSON-RPC 2.0 response${
      detail !== undefined ? ` (${detail})` : ""
    }`
    : `${describeReceived(r)} with ${detail ?? "a body"} that does not match the A2A schema`
  return new A2AResponseError({
    reason,
    method: r.method,
    url: r.url,
    status: r.status,
    ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
    ...(shown !== undefined ? { body: shown } : {}),
    message: shown !== undefined ? `${what}: ${shown}` : what
  })
}

/** Parses JSON text; `None` when it is not JSON. */
export const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text) as unknown)
  } catch {
    return Option.none()
  }
}

/** 401 / 403 without a protocol error body: the transport-level security errors of spec 7.4. */
export const securityError = (r: Received, body: string): Unauthenticated | PermissionDenied | undefined => {
  const shown = body.trim() === "" ? "" : `: ${snippet(body)}`
  if (r.status === 401) {
    return new Unauthenticated({ message: `${r.method} ${r.url} requires authentication (HTTP 401)${shown}` })
  }
  if (r.status === 403) {
    return new PermissionDenied({ message: `${r.method} ${r.url} is not permitted (HTTP 403)${shown}` })
  }
  return undefined
}

/**
 * Decodes a response payload with a generated Schema; a mismatch says which value and why, listing every
 * problem. A valid payload is decoded once, in the default mode (cheaper); only an invalid one is decoded
 * again to list them all.
 */
export const decode = <A, I>(schema: Schema.Codec<A, I>, what: string) => {
  const decodeFirst = Schema.decodeUnknownResult(schema)
  const decodeAll = Schema.decodeUnknownEffect(schema, { errors: "all" })
  return (value: unknown, r: Received, body: string): Effect.Effect<A, A2AResponseError> => {
    const decoded = decodeFirst(value)
    if (Result.isSuccess(decoded)) return Effect.succeed(decoded.success)
    return decodeAll(value).pipe(
      Effect.mapError((error) => {
        const base = responseError(r, "SchemaMismatch", undefined, what)
        return new A2AResponseError({
          ...base,
          body: snippet(body),
          message: `${base.message}: ${error.message}`
        })
      })
    )
  }
}

/** Encodes a request with a generated Schema; a value the schema rejects is the caller's InvalidParams. */
export const encode = <A, I>(schema: Schema.Codec<A, I>, what: string) => {
  const encodeUnknown = Schema.encodeUnknownEffect(schema)
  return (value: A): Effect.Effect<I, InvalidParams> =>
    encodeUnknown(value).pipe(
      Effect.mapError((error) => new InvalidParams({ message: `Invalid ${what}: ${error.message}` }))
    )
}

/**
 * An event whose data is not JSON: JSON after control characters (VoltAgent's stray U+001E) is read, the repair
 * logged once (Tolerance), unless the client is strict; anything else is InvalidJson.
 */
const repairedEvent = <A, E2>(
  event: SseParser.SseEvent,
  r: Received,
  onEvent: (value: unknown, event: SseParser.SseEvent, r: Received) => Effect.Effect<A, E2>
): Effect.Effect<A, E2 | A2AResponseError> => {
  const invalid = Effect.fail(responseError(r, "InvalidJson", event.data))
  const stripped = Tolerance.stripControlPrefix(event.data)
  const json = stripped === undefined ? Option.none() : parseJson(stripped)
  if (Option.isNone(json)) return invalid
  return Effect.flatMap(
    Effect.service(Tolerance.Strict),
    (strict): Effect.Effect<A, E2 | A2AResponseError> =>
      strict ? invalid : Effect.andThen(
        Tolerance.logRepair(r.url, "SseDataControlPrefix"),
        onEvent(json.value, { ...event, data: stripped! }, r)
      )
  )
}

/**
 * The events of a streaming response, each `data:` parsed as JSON and handed to `onEvent`. A response that is
 * not a 2xx event stream is an error answered before the first event: `readBody` (the binding's reader of a
 * whole response) fails with the typed error it carries, or, when it carries none, the stream fails with
 * UnexpectedContentType.
 */
export const jsonEvents = <A, E, E2>(
  response: HttpClientResponse.HttpClientResponse,
  readBody: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<readonly [unknown, Received, string], E>,
  onEvent: (value: unknown, event: SseParser.SseEvent, r: Received) => Effect.Effect<A, E2>
): Stream.Stream<A, E | E2 | A2ATransportError | A2AResponseError> => {
  const r = received(response)
  if (!isOk(r.status) || !isEventStream(r.contentType)) {
    return Stream.fromEffect(
      Effect.flatMap(
        readBody(response),
        ([, , body]) => Effect.fail(responseError(r, "UnexpectedContentType", body, EVENT_STREAM_CONTENT_TYPE))
      )
    )
  }
  return sseEvents(response).pipe(
    Stream.mapEffect((event): Effect.Effect<A, E2 | A2AResponseError> => {
      const json = parseJson(event.data)
      return json._tag === "Some" ? onEvent(json.value, event, r) : repairedEvent(event, r, onEvent)
    })
  )
}
