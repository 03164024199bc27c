/**
 * Reading the raw path of an HTTP+JSON request where the router cannot: the custom verb of `/tasks/{id}:cancel`
 * (it shares the id's path segment), and whether a path's percent-encoding can be decoded at all (RFC 3986 section
 * 2.1). Shared by the 1.0 and 0.3 REST routes.
 */
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import { InvalidRequest } from "../../protocol/A2AError.ts"
import type { HttpFailure } from "./HttpErrors.ts"

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/**
 * The raw last path segment, split at its last unescaped `:` into the decoded id and the custom verb (an escaped
 * `%3A` stays part of the id); undefined when the segment cannot be decoded.
 */
export const splitVerb = (url: string): { readonly id: string; readonly verb: string | undefined } | undefined => {
  const path = pathOf(url)
  const segment = path.slice(path.lastIndexOf("/") + 1)
  const colon = segment.lastIndexOf(":")
  // Nearly every id is plain: nothing to decode, no verb.
  if (colon === -1 && segment.indexOf("%") === -1) return { id: segment, verb: undefined }
  try {
    return colon === -1
      ? { id: decodeURIComponent(segment), verb: undefined }
      : { id: decodeURIComponent(segment.slice(0, colon)), verb: segment.slice(colon + 1) }
  } catch {
    return undefined
  }
}

/** Whether a path (before `?`) has a `%` not followed by two hex digits, or escapes that are not UTF-8. */
export const isMalformed = (url: string): boolean => {
  try {
    decodeURIComponent(pathOf(url))
    return false
  } catch {
    return true
  }
}

/** The 400 of a path that cannot be decoded. */
export const malformed = (request: HttpServerRequest.HttpServerRequest): HttpFailure => ({
  status: 400,
  error: new InvalidRequest({
    message: `The request path is not validly percent-encoded: ${request.method} ${pathOf(request.url)}`
  })
})
