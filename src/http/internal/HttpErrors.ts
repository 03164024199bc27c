/**
 * Error responses of the HTTP bindings. Every error goes through the one table in `protocol/A2AError`;
 * this module only adds what HTTP needs on top: the status line, `WWW-Authenticate` on 401, `Retry-After`, and the
 * transport-level failures no A2A error names (body too large, wrong content type).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import {
  type A2AError,
  InternalError,
  InvalidRequest,
  ParseError,
  toHttpError,
  type Unauthenticated
} from "../../protocol/A2AError.ts"
import * as JsonRpc from "../../protocol/JsonRpc.ts"

export const JSON_CONTENT_TYPE = "application/json"
export const A2A_JSON_CONTENT_TYPE = "application/a2a+json"

/** A transport-level failure: an A2A error plus the HTTP status it must travel with. */
export interface HttpFailure {
  readonly error: A2AError
  readonly status?: number | undefined
}

export const bodyTooLarge = (maxBytes: number): HttpFailure => ({
  error: new InvalidRequest({ message: `Request body exceeds the limit of ${maxBytes} bytes` }),
  status: 413
})

export const unsupportedMediaType = (contentType: string): HttpFailure => ({
  error: new InvalidRequest({
    message: `Unsupported Content-Type "${contentType}": send application/json or application/a2a+json`
  }),
  status: 415
})

export const invalidJson = (detail: string): HttpFailure => ({
  error: new ParseError({ message: `Invalid JSON payload: ${detail}` })
})

/** `WWW-Authenticate` for a 401: the challenge Auth put in the error, or a bearer challenge. */
export const wwwAuthenticate = (error: Unauthenticated): string => {
  const challenge = error.metadata?.["wwwAuthenticate"]
  if (challenge !== undefined) return challenge
  const scheme = error.metadata?.["scheme"]
  const location = error.metadata?.["location"]
  const name = error.metadata?.["name"]
  // An API key has no registered HTTP auth scheme; name the key so a client knows what to send.
  if (location !== undefined && name !== undefined) {
    return `ApiKey realm="a2a", in="${location}", name="${name}"${scheme !== undefined ? `, scheme="${scheme}"` : ""}`
  }
  return `Bearer realm="a2a"`
}

/** What HTTP says beside the body: `WWW-Authenticate` on 401, `Retry-After` when the server asks for a retry later. */
export const errorHeaders = (error: A2AError): Record<string, string> | undefined =>
  error._tag === "Unauthenticated"
    ? { "www-authenticate": wwwAuthenticate(error) }
    : error._tag === "Unavailable" && error.retryAfterSeconds !== undefined
    ? { "retry-after": String(Math.ceil(error.retryAfterSeconds)) }
    : undefined

/** google.rpc.Status body (spec 11.6) with the table's HTTP status, or the override. */
export const restError = (
  error: A2AError,
  options?: { readonly status?: number | undefined; readonly headers?: Record<string, string> | undefined }
): HttpServerResponse.HttpServerResponse => {
  const { body, status } = toHttpError(error)
  const finalStatus = options?.status ?? status
  return HttpServerResponse.text(
    JSON.stringify(
      options?.status === undefined ? body : { error: { ...body.error, code: finalStatus } }
    ),
    {
      status: finalStatus,
      contentType: A2A_JSON_CONTENT_TYPE,
      headers: { ...errorHeaders(error), ...options?.headers }
    }
  )
}

export const restFailure = (failure: HttpFailure, headers?: Record<string, string>) =>
  restError(failure.error, { status: failure.status, headers })

/**
 * A JSON-RPC error response. JSON-RPC errors travel with HTTP 200, except where HTTP itself must speak:
 * 401/403 for authentication (spec 7.4) and the transport failures (413, 415).
 */
export const jsonRpcError = (
  id: JsonRpc.JsonRpcId,
  error: A2AError,
  options?: { readonly status?: number | undefined; readonly headers?: Record<string, string> | undefined }
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JsonRpc.encodeFailure(id, error), {
    status: options?.status ??
      (error._tag === "Unauthenticated" ? 401 : error._tag === "PermissionDenied" ? 403 : 200),
    contentType: JSON_CONTENT_TYPE,
    headers: { ...errorHeaders(error), ...options?.headers }
  })

/**
 * The A2A error a failed operation answers with: its typed failure, or InternalError for a defect (logged,
 * since it is a bug, and never shown to the client beyond a generic message).
 */
export const fromCause = (cause: Cause.Cause<A2AError>): Effect.Effect<A2AError> => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some") return Effect.succeed(error.value)
  return Effect.as(
    Effect.logError("effect-a2a: operation failed unexpectedly", cause),
    new InternalError({ message: "Internal error" })
  )
}
