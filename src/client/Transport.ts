/**
 * The seam between the client and a protocol binding. A Transport speaks one binding (JSON-RPC, HTTP+JSON)
 * at one protocol version to one interface URL; the client picks a TransportFactory for the first card
 * interface a factory matches (spec 8.3.2). A 0.3 peer plugs in as factories for protocol version "0.3" that
 * translate these 1.0 requests and responses at the edge, so the client itself only knows 1.0.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Headers from "effect/http/Headers"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Stream from "effect/Stream"
import type * as v1 from "../protocol/generated/v1.ts"
import type * as Operations from "../protocol/Operations.ts"
import type { A2AClientError } from "./A2AClientError.ts"

/**
 * Per-call HTTP details the client has already worked out (A2A-Version, A2A-Extensions, credentials).
 *
 * @since 0.1.0
 * @category models
 */
export interface Call {
  readonly headers: Headers.Headers
  /** Bound on getting the response headers (for streams: on opening the stream). */
  readonly timeout?: Duration.Duration | undefined
}

/**
 * One function per A2A operation (protocol/Operations), named by its key: a request/response operation answers
 * an Effect, a streaming one a Stream of its raw events (ending at a terminal state is the client's job, not the
 * transport's).
 *
 * @since 0.1.0
 * @category models
 */
export type TransportMethods = {
  readonly [Op in Operations.Any as Op["key"]]: (
    request: Operations.RequestOf<Op>,
    call: Call
  ) => Op["streaming"] extends true ? Stream.Stream<Operations.ResponseOf<Op>, A2AClientError>
    : Effect.Effect<Operations.ResponseOf<Op>, A2AClientError>
}

/**
 * Requests reach a transport with `tenant` already set from the selected interface.
 *
 * @since 0.1.0
 * @category models
 */
export interface Transport extends TransportMethods {
  readonly protocolBinding: string
  readonly protocolVersion: string
  readonly url: string
}

/**
 * Makes transports for one protocol binding and version, as card interfaces name them.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransportFactory {
  /** `AgentInterface.protocolBinding` this factory speaks, e.g. "JSONRPC", "HTTP+JSON". */
  readonly protocolBinding: string
  /** `AgentInterface.protocolVersion` (`Major.Minor`) this factory speaks, e.g. "1.0". */
  readonly protocolVersion: string
  /**
   * For a binding whose interface URL is not an HTTP URL (gRPC's `host:port`): the URL to use as it is, or
   * undefined when it is not one this binding can reach. Without it, the URL is resolved against the card's URL.
   */
  readonly target?: ((interfaceUrl: string) => string | undefined) | undefined
  /** A transport to one interface of the card. */
  readonly make: (options: {
    readonly interface: v1.AgentInterface
    /** Absolute interface URL (resolved against the card URL when the card gave a relative one). */
    readonly url: string
    readonly httpClient: HttpClient.HttpClient
  }) => Transport
}
