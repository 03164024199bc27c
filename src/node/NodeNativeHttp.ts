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
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { IncomingMessage as NodeIncomingMessage } from "node:http"
import { TLSSocket } from "node:tls"
import { type BodyReadFailure, NativeHttp, type Service } from "../http/NativeHttp.ts"
import { clientCertificateOf } from "../server/Principal.ts"
import { http } from "./internal/NodeHttpModule.ts"

const { IncomingMessage, ServerResponse } = http

/** What an ended request does with a later "error": nothing (its body was read; the response reports its own). */
const ignoreError = (): void => {}

/**
 * The body of a Node request as UTF-8 text, at most `maxBytes` of it. Past the limit reading stops and the rest is
 * drained, not destroyed, so the answer (413) still reaches the client (the platform closes the connection after it
 * when too much is left).
 */
const readIncoming = (source: NodeIncomingMessage, maxBytes: number): Effect.Effect<string, BodyReadFailure> =>
  Effect.callback<string, BodyReadFailure>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const detach = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        detach()
        source.resume()
        resume(Effect.fail("TooLarge"))
      } else chunks.push(chunk)
    }
    // Once the body is read the request is done with, but it lives on with a stream: its listeners go, so that
    // they do not keep the chunks and this reader for as long as the stream is open; `ignoreError` stays in place
    // of `onError` (an "error" without a listener would be thrown).
    const onEnd = () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
      detach()
      source.on("error", ignoreError)
      resume(Effect.succeed(body.toString("utf8")))
    }
    const onError = () => {
      detach()
      resume(Effect.fail("Unreadable"))
    }
    // A client that goes away mid-body: "close" without "end".
    const onClose = () => {
      if (source.complete) return
      onError()
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    source.on("close", onClose)
    return Effect.sync(detach)
  })

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
