/**
 * Reading a JSON request body under the binding's limits: a JSON media type (which also keeps browsers from
 * posting A2A requests cross-site as "simple" form or text requests), a maximum size checked against
 * Content-Length before anything is read and enforced again while reading, a maximum nesting depth checked on the
 * text before it is parsed, and one JSON.parse.
 *
 * The body is read through the runtime's native request when NativeHttp offers it (one pass, no fiber of its own),
 * else straight from a web `Request`'s stream (WebRequestBody), else with the platform's generic reader.
 */
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Predicate from "effect/Predicate"
import { InvalidRequest } from "../../protocol/A2AError.ts"
import type { BodyReadFailure, Service as NativeHttp } from "../NativeHttp.ts"
import { bodyTooLarge, type HttpFailure, invalidJson, unsupportedMediaType } from "./HttpErrors.ts"
import * as WebRequestBody from "./WebRequestBody.ts"

/** `application/json`, `application/a2a+json` or any other `+json` type; parameters (charset) ignored. */
export const isJsonMediaType = (contentType: string): boolean => {
  const semi = contentType.indexOf(";")
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

/**
 * Whether JSON text nests objects and arrays deeper than `max`, counted in one pass over the text (brackets inside
 * strings do not count). Invalid JSON is left to JSON.parse.
 */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--
  }
  return false
}

export interface Limits {
  readonly maxBytes: number
  /** Deepest nesting of objects and arrays accepted (protobuf's JSON parsers stop at 100). */
  readonly maxDepth: number
}

/** Reads one request's body as JSON; `empty` says what an empty body means (unset: a parse error). */
export type Reader = (
  request: HttpServerRequest.HttpServerRequest,
  empty?: (() => unknown) | undefined
) => Effect.Effect<unknown, HttpFailure>

const unreadable = () => invalidJson("the request body could not be read")

const tooDeep = (max: number): HttpFailure => ({
  error: new InvalidRequest({ message: `The request body nests objects and arrays deeper than ${max} levels` })
})

/** The body reader of one set of routes. */
export const reader = (limits: Limits, native: NativeHttp | undefined): Reader => {
  const { maxBytes, maxDepth } = limits
  const platformText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, HttpFailure> =>
    request.text.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBytes)),
      Effect.mapError((e): HttpFailure =>
        e.reason._tag === "RequestParseError" && e.reason.reason === "BodyTooLarge"
          ? bodyTooLarge(maxBytes)
          : unreadable()
      )
    )
  const parse = (body: string, empty: (() => unknown) | undefined): Effect.Effect<unknown, HttpFailure> => {
    if (body.length === 0 || body.trim().length === 0) {
      return empty !== undefined ? Effect.succeed(empty()) : Effect.fail(invalidJson("the request body is empty"))
    }
    // Each level takes a character: a text no longer than the limit cannot nest deeper.
    if (body.length > maxDepth && nestsDeeperThan(body, maxDepth)) return Effect.fail(tooDeep(maxDepth))
    try {
      return Effect.succeed(JSON.parse(body) as unknown)
    } catch (e) {
      return Effect.fail(invalidJson(e instanceof Error ? e.message : String(e)))
    }
  }
  const failedRead = (reason: BodyReadFailure): Effect.Effect<never, HttpFailure> =>
    Effect.fail(reason === "TooLarge" ? bodyTooLarge(maxBytes) : unreadable())
  return (request, empty) => {
    const headers = request.headers
    const contentType = headers["content-type"]
    if (contentType !== undefined && contentType !== "" && !isJsonMediaType(contentType)) {
      return Effect.fail(unsupportedMediaType(contentType))
    }
    const declared = headers["content-length"]
    if (declared !== undefined && Number(declared) > maxBytes) return Effect.fail(bodyTooLarge(maxBytes))
    const direct = native?.readBody(request, maxBytes) ?? WebRequestBody.readBody(request, maxBytes)
    // The direct read's failure and the text's parse in one step (a POST body is read on every such request).
    return direct === undefined
      ? Effect.flatMap(platformText(request), (body) => parse(body, empty))
      : Effect.matchEffect(direct, { onFailure: failedRead, onSuccess: (body) => parse(body, empty) })
  }
}

const emptyObject = () => ({})

const notAnObject: HttpFailure = { error: new InvalidRequest({ message: "The request body must be a JSON object" }) }

/** The body as a JSON object, an empty body being `{}`; anything else is an invalid request. */
export const readObject = (
  read: Reader,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Readonly<Record<string, unknown>>, HttpFailure> =>
  Effect.flatMap(
    read(request, emptyObject),
    (body) => Predicate.isReadonlyObject(body) ? Effect.succeed(body) : Effect.fail(notAnObject)
  )
