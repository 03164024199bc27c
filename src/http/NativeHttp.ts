/**
 * The seam for a runtime's own HTTP objects. The bindings work on Effect's `HttpServerRequest` and
 * `HttpServerResponse` everywhere; where the runtime underneath exposes its native request and response, two hot
 * paths may use them instead: reading a JSON body in one pass, and writing an event stream straight to the
 * response (an open stream then holds no body pull). Without an implementation (the default) the platform's
 * generic reader and streamed bodies serve every request.
 *
 * `effect-a2a/node` provides the Node one (`NodeNativeHttp.layer`), which `NodeA2AServer.serve` installs.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { A2AHttp } from "effect-a2a/http"
 * import { NodeNativeHttp } from "effect-a2a/node"
 *
 * // the routes on your own Node HttpServer, with the Node fast paths
 * const routes = A2AHttp.routes({ directStreams: true }).pipe(Layer.provide(NodeNativeHttp.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { ClientCertificate } from "../server/Auth.ts"

/**
 * Why a native body read failed.
 *
 * @since 0.1.0
 * @category models
 */
export type BodyReadFailure = "TooLarge" | "Unreadable"

/**
 * A response written to directly: what a stream needs of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface DirectResponse {
  /** Once true (the client is gone), writes are dropped. */
  readonly destroyed: boolean
  /** Starts the response; the head may wait for the first write. */
  writeHead(status: number, headers: Record<string, string>): unknown
  /** Sends the head now, before any body. */
  flushHeaders(): void
  /** Writes a chunk of the body. */
  write(chunk: Uint8Array): unknown
  /** Ends the response, with a last chunk when given. */
  end(chunk?: Uint8Array): unknown
}

/**
 * What a runtime offers the bindings; each member optional.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The request body as UTF-8 text, at most `maxBytes` of it; undefined when this request must go through the
   * platform's reader (not a native request, `Expect: 100-continue` to answer, or its body already being read).
   */
  readonly readBody: (
    request: HttpServerRequest.HttpServerRequest,
    maxBytes: number
  ) => Effect.Effect<string, BodyReadFailure> | undefined
  /** The native response of this request, to write a stream to directly; undefined when there is none. */
  readonly directResponse: (request: HttpServerRequest.HttpServerRequest) => DirectResponse | undefined
  /** The client certificate the connection's TLS layer verified, if any (mutual TLS). */
  readonly clientCertificate?:
    | ((request: HttpServerRequest.HttpServerRequest) => ClientCertificate | undefined)
    | undefined
}

/**
 * The runtime's native HTTP access, if one was provided.
 *
 * @since 0.1.0
 * @category services
 */
export const NativeHttp = Context.Reference<Service | undefined>("effect-a2a/http/NativeHttp", {
  defaultValue: () => undefined
})
