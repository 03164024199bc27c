/**
 * Node's side of the `NativeHttp` seam, with public Node APIs only: a request that came through Node's HTTP server
 * has its body read straight from the `IncomingMessage` (the generic reader memoises its result with a fiber of
 * its own, a cost out of proportion to a small JSON body), and a stream can be written straight to its `ServerResponse`.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { A2AHttp } from "effect-a2a/http"
 * import { NodeNativeHttp } from "effect-a2a/node"
 *
 * const routes = A2AHttp.routes({ directStreams: true }).pipe(Layer.provide(NodeNativeHttp.layer))
 * ```
 *
 * @since 0.1.0
 */
// By subpath: the package barrel loads every platform module (Redis, undici, ws...) into the process.
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { IncomingMessage as NodeIncomingMessage } from "node:http"
import { TLSSocket } from "node:tls"
import { type BodyReadFailure, NativeHttp, type Service } from "../http/NativeHttp.ts"
import { clientCertificateOf } from "../server/Principal.ts"
import * as IncomingBody from "./internal/IncomingBody.ts"
import { http } from "./internal/NodeHttpModule.ts"

const { IncomingMessage, ServerResponse } = http

const toText = (body: Buffer) => body.toString("utf8")

/** The body of a Node request as UTF-8 text, at most `maxBytes` of it (see IncomingBody). */
const readIncoming = (source: NodeIncomingMessage, maxBytes: number): Effect.Effect<string, BodyReadFailure> =>
  IncomingBody.read(source, maxBytes, toText)

/**
 * Node's native HTTP access.
 *
 * @since 0.1.0
 * @category utils
 */
export const service: Service = {
  readBody: (request, maxBytes) => {
    const source = request.source
    // The platform's reader stays in charge when it must answer `Expect: 100-continue` first, or when something
    // (a middleware) has already started reading the body.
    return source instanceof IncomingMessage && request.headers["expect"] === undefined && !source.readableDidRead
      ? readIncoming(source, maxBytes)
      : undefined
  },
  clientCertificate: (request) => {
    const socket = request.source instanceof IncomingMessage ? request.source.socket : undefined
    // Only a certificate the TLS layer verified against the server's CAs (`authorized`) is anyone's identity.
    if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined
    return clientCertificateOf(socket.getPeerCertificate())
  },
  directResponse: (request) => {
    if (!(request.source instanceof IncomingMessage)) return undefined
    const response = NodeHttpServerRequest.toServerResponse(request)
    return response instanceof ServerResponse ? response : undefined
  }
}

/**
 * Provides Node's native HTTP access to the routes (`A2AHttp.routes`) built with it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = Layer.succeed(NativeHttp, service)
