/**
 * Reading a JSON request body under the binding's limits: a JSON media type (which also keeps browsers from
 * posting A2A requests cross-site as "simple" form or text requests), a maximum size checked against
 * Content-Length before anything is read and enforced again while reading, and one JSON.parse.
 */
import { ByteSize, Effect } from "effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import { bodyTooLarge, type HttpFailure, invalidJson, unsupportedMediaType } from "./HttpErrors.ts"

/** `application/json`, `application/a2a+json` or any other `+json` type; parameters (charset) ignored. */
export const isJsonMediaType = (contentType: string): boolean => {
  const semi = contentType.indexOf(";")
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

export interface ReadOptions {
  readonly maxBytes: number
  /** What an empty body means; when unset, an empty body is a parse error. */
  readonly empty?: (() => unknown) | undefined
}

/** The parsed body (`unknown` JSON), or the failure to answer with. */
export const readJson = (
  request: HttpServerRequest.HttpServerRequest,
  options: ReadOptions
): Effect.Effect<unknown, HttpFailure> => {
  const headers = request.headers
  const contentType = headers["content-type"]
  if (contentType !== undefined && contentType !== "" && !isJsonMediaType(contentType)) {
    return Effect.fail(unsupportedMediaType(contentType))
  }
  const declared = headers["content-length"]
  if (declared !== undefined && Number(declared) > options.maxBytes) {
    return Effect.fail(bodyTooLarge(options.maxBytes))
  }
  return request.text.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(options.maxBytes)),
    Effect.mapError((e): HttpFailure =>
      e.reason._tag === "RequestParseError" && e.reason.reason === "BodyTooLarge"
        ? bodyTooLarge(options.maxBytes)
        : invalidJson("the request body could not be read")
    ),
    Effect.flatMap((text) => {
      if (text.length === 0 || text.trim().length === 0) {
        return options.empty !== undefined
          ? Effect.succeed(options.empty())
          : Effect.fail(invalidJson("the request body is empty"))
      }
      try {
        return Effect.succeed(JSON.parse(text) as unknown)
      } catch (e) {
        return Effect.fail(invalidJson(e instanceof Error ? e.message : String(e)))
      }
    })
  )
}
