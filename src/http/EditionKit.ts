/**
 * What an edition (HttpEdition) builds its operations and REST routes from, so that it plugs into the bindings through
 * the seam alone and answers as the 1.0 routes do: a request body read under the binding's limits, a REST path's
 * custom verb, the HTTP side of an A2A error, and event streams answered as SSE. An edition brings its own shapes
 * (bodies, error bodies, events); how the HTTP work is done stays the bindings' own.
 *
 * @example
 * ```ts
 * import { EditionKit } from "effect-a2a/http"
 *
 * EditionKit.splitVerb("/v1/tasks/t-1:cancel?x=1") // { id: "t-1", verb: "cancel" }
 * EditionKit.sseEvent(JSON.stringify({ code: -32001 }), "error") // the bytes of one `event: error` SSE event
 * ```
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import type * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import { type A2AError, errorTable } from "../protocol/A2AError.ts"
import * as Ids from "../server/internal/Ids.ts"
import * as PushStream from "../server/internal/PushStream.ts"
import type { BindingEnv } from "./HttpCallContext.ts"
import * as HttpErrors from "./internal/HttpErrors.ts"
import * as RequestBody from "./internal/RequestBody.ts"
import * as RestPath from "./internal/RestPath.ts"
import * as SseResponse from "./internal/SseResponse.ts"

/**
 * A request a route cannot take: the A2A error, and the HTTP status it travels with when not the error table's.
 *
 * @since 0.1.0
 * @category models
 */
export type HttpFailure = HttpErrors.HttpFailure

/**
 * The media type of JSON responses.
 *
 * @since 0.1.0
 * @category constants
 */
export const JSON_CONTENT_TYPE = HttpErrors.JSON_CONTENT_TYPE

// --- Requests ---

/**
 * A request's body as a JSON object, read as the 1.0 routes read theirs: a JSON media type, the binding's size and
 * nesting limits (415 for another media type, 413 beyond the size), one parse; an empty body is `{}`, anything but an object an invalid
 * request.
 *
 * @since 0.1.0
 * @category utils
 */
export const readObject = (
  env: BindingEnv,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Readonly<Record<string, unknown>>, HttpFailure> => RequestBody.readObject(env.readJson, request)

/**
 * A REST path's last segment (the query ignored) split at its last unescaped `:` into the decoded id and the custom
 * verb (`/tasks/{id}:cancel`: the router cannot tell them apart); undefined when the segment cannot be decoded.
 *
 * @since 0.1.0
 * @category utils
 */
export const splitVerb: (url: string) => { readonly id: string; readonly verb: string | undefined } | undefined =
  RestPath.splitVerb

// --- Errors ---

/**
 * An error response: `body` (the edition's shape of `error`) as JSON, with the error table's HTTP status unless
 * `status` overrides it, and what HTTP says beside it (`WWW-Authenticate` on 401, `Retry-After` when the server asks
 * for a retry later) before `headers`.
 *
 * @since 0.1.0
 * @category utils
 */
export const errorResponse = (
  error: A2AError,
  body: unknown,
  options?: { readonly status?: number | undefined; readonly headers?: Record<string, string> | undefined }
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(body), {
    status: options?.status ?? errorTable[error._tag].httpStatus,
    contentType: HttpErrors.JSON_CONTENT_TYPE,
    headers: { ...HttpErrors.errorHeaders(error), ...options?.headers }
  })

/**
 * The A2A error a failed operation answers with: its typed failure, or InternalError for a defect (logged, and
 * never shown to the client beyond a generic message).
 *
 * @since 0.1.0
 * @category utils
 */
export const errorOf: (cause: Cause.Cause<A2AError>) => Effect.Effect<A2AError> = HttpErrors.fromCause

// --- Event streams ---

/**
 * One SSE event (an `event:` line when named) whose data is one line, such as serialized JSON.
 *
 * @since 0.1.0
 * @category utils
 */
export const sseEvent: (data: string, event?: string) => Uint8Array = SseResponse.frame

/**
 * Like Stream.map, for an operation's events on their way to the client in an edition's shapes. The streams the
 * RequestHandler returns deliver their events to an SSE response without a fiber or queue of their own; mapped
 * this way they still do, where Stream.map would read them through both.
 *
 * @since 0.1.0
 * @category utils
 */
export const mapEvents: <A, E, B>(self: Stream.Stream<A, E>, f: (event: A) => B) => Stream.Stream<B, E> = PushStream.map

/**
 * A route's answer: a response, or the effect that opens its event stream (`HttpCallContext.streamAnswer`).
 *
 * @since 0.1.0
 * @category models
 */
export type Answer = SseResponse.Answer

/**
 * A route handler answering with an `Answer`, its stream opened once the handler has returned: an open stream
 * then holds none of the handler's variables.
 *
 * @since 0.1.0
 * @category utils
 */
export const answering: <E, R>(
  handler: Effect.Effect<Answer, E, R>
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | Scope.Scope> = SseResponse.answering

// --- Ids ---

/**
 * A fresh random id (UUIDv4), for what an edition names on its clients' behalf (a message id 0.1 has not).
 *
 * @since 0.1.0
 * @category utils
 */
export const randomId: Effect.Effect<string> = Ids.randomId
