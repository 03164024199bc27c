/**
 * The seam for a runtime's own way of carrying the gateway's byte relay (ByteRelay, effect-a2a/gateway): calls
 * forwarded as bytes, the caller's request to an agent and the agent's answer back. Without an implementation (the
 * default) a relayed call is read with the platform's body reader, sent with the HttpClient in context and answered
 * with an `HttpServerResponse`; where the runtime offers its native request, response and HTTP client, a relayed
 * call can skip those layers: its body read as bytes in one pass, the call sent on the runtime's client, and the
 * agent's answer written straight to the caller's response (an event stream piped chunk by chunk). What the relay
 * decides (which calls it takes, the credentials, health, masking, timeouts, errors in the caller's binding) stays
 * ByteRelay's: an implementation only moves bytes.
 *
 * `effect-a2a/node` provides the Node one (`NodeNativeRelay.layer`, over undici's dispatcher), which `effect-a2a
 * gateway` installs. A request that is not the runtime's own (another server) takes the generic path.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Gateway } from "effect-a2a/gateway"
 * import { NativeRelay } from "effect-a2a/http"
 *
 * // the gateway's routes with the generic relay only, whatever the runtime offers
 * const routes = Gateway.routes().pipe(Layer.provide(Layer.succeed(NativeRelay.NativeRelay, undefined)))
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { BodyReadFailure, DirectResponse } from "./NativeHttp.ts"

/**
 * One call to the agent, as the relay built it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Call {
  readonly method: "GET" | "POST" | "DELETE"
  /** The agent's URL, its query included. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | undefined
  /** Bound on the answer's head, and again on the rest of a body that is not an event stream. */
  readonly timeoutMillis: number
}

/**
 * Why a call got no usable answer: the agent could not be reached, its answer was cut before its end, or it did not
 * come within the timeout.
 *
 * @since 0.2.0
 * @category models
 */
export interface Failure {
  readonly _tag: "Unreachable" | "ConnectionLost" | "Timeout"
  readonly message: string
}

/**
 * What changes an event stream's bytes on their way (the relay's masking): each chunk as it comes, then what is left
 * at the end.
 *
 * @since 0.2.0
 * @category models
 */
export interface Transform {
  /** The bytes to write for a chunk of the agent's stream (some may be kept for the next one). */
  readonly chunk: (bytes: Uint8Array) => Uint8Array
  /** What is left to write once the agent's stream has ended. */
  readonly end: () => Uint8Array
}

/**
 * The agent's answer: a body read whole, or an event stream (media type `text/event-stream`) still to be written.
 *
 * @since 0.2.0
 * @category models
 */
export type Answer =
  | {
    readonly _tag: "Body"
    readonly status: number
    readonly headers: Readonly<Record<string, string | undefined>>
    readonly body: Uint8Array
  }
  | {
    readonly _tag: "Stream"
    readonly status: number
    readonly headers: Readonly<Record<string, string | undefined>>
    /**
     * Writes the stream's chunks to `to` (whose head is written already) through `transform`, waiting for the caller
     * when it reads slower; succeeds when the agent's stream ends, with undefined, or with why it was cut (`to` is
     * left open then, for a last event). Interrupted, it drops the agent's stream.
     */
    readonly pipe: (to: DirectResponse, transform: Transform) => Effect.Effect<string | undefined>
    /** Drops the agent's stream unread. */
    readonly discard: () => void
  }

/**
 * What a runtime offers the relay.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * The request body as bytes, at most `maxBytes` of them; undefined when this request is not the runtime's own (the
   * platform's reader then reads it).
   */
  readonly readBody: (
    request: HttpServerRequest.HttpServerRequest,
    maxBytes: number
  ) => Effect.Effect<Uint8Array, BodyReadFailure> | undefined
  /** The request's native response, to write the answer to; undefined when there is none. */
  readonly response: (request: HttpServerRequest.HttpServerRequest) => DirectResponse | undefined
  /** Sends the call; its answer once the head (and, unless it is an event stream, the body) has come. */
  readonly send: (call: Call) => Effect.Effect<Answer, Failure>
}

/**
 * The runtime's native relay, if one was provided (none by default).
 *
 * @since 0.2.0
 * @category services
 */
export const NativeRelay = Context.Reference<Service | undefined>("effect-a2a/http/NativeRelay", {
  defaultValue: () => undefined
})
