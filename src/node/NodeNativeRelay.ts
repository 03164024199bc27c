/**
 * Node's side of the gateway's `NativeRelay` seam, with public APIs only: a relayed call's body read straight from
 * the `IncomingMessage`, the call sent on undici's dispatcher (the pool of the gateway's HttpClient, from
 * `NodeHttpClient.Dispatcher`) without the HttpClient's request and response conversions, and the agent's answer
 * written straight to the caller's `ServerResponse`, an event stream piped chunk by chunk (the relay's masking the
 * only work per chunk). `effect-a2a gateway` installs it; without it the relay takes Effect's generic HTTP path.
 *
 * @example
 * ```ts
 * import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
 * import { Layer } from "effect"
 * import { Gateway } from "effect-a2a/gateway"
 * import { NodeNativeRelay } from "effect-a2a/node"
 *
 * // one undici pool for the gateway's HttpClient and its relay
 * const clients = NodeHttpClient.layerUndiciNoDispatcher.pipe(Layer.provideMerge(NodeHttpClient.layerDispatcher))
 * const routes = Gateway.routes().pipe(Layer.provide(NodeNativeRelay.layer), Layer.provide(clients))
 * ```
 *
 * @since 0.2.0
 */
// By subpath: the package barrel loads every platform module (Redis, undici, ws...) into the process.
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { IncomingHttpHeaders } from "node:http"
import type { Readable } from "node:stream"
import type { DirectResponse } from "../http/NativeHttp.ts"
import * as NativeRelay from "../http/NativeRelay.ts"
import * as IncomingBody from "./internal/IncomingBody.ts"
import { http } from "./internal/NodeHttpModule.ts"
import * as NodeNativeHttp from "./NodeNativeHttp.ts"

const { IncomingMessage, ServerResponse } = http

/** What undici's dispatcher is here: the members the relay uses. */
type Dispatcher = NodeHttpClient.Dispatcher["Service"]

const asBytes = (body: Buffer): Uint8Array => body

/** The one value of a header the relay reads (a repeated one is joined, as Node joins them). */
const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/** `http://host:port` and `/path?query` of an absolute URL, without building a URL object per call. */
const split = (url: string): readonly [origin: string, path: string] => {
  const slash = url.indexOf("/", url.indexOf("//") + 2)
  return slash === -1 ? [url, "/"] : [url.slice(0, slash), url.slice(slash)]
}

/** For a stream's "error" once nobody reads it (an "error" without a listener would be thrown). */
const ignore = (): void => {}

const messageOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/** Pipes the agent's event stream to the caller, pausing it while the caller's socket is full. */
const pipeOf = (body: Readable) => (to: DirectResponse, transform: NativeRelay.Transform) =>
  Effect.callback<string | undefined>((resume) => {
    const waitable = to instanceof ServerResponse ? to : undefined
    const onDrain = () => body.resume()
    const onData = (chunk: Buffer) => {
      const out = transform.chunk(chunk)
      if (out.length === 0 || to.destroyed) return
      if (to.write(out) === false && waitable !== undefined) {
        body.pause()
        waitable.once("drain", onDrain)
      }
    }
    const detach = () => {
      body.off("data", onData)
      body.off("end", onEnd)
      body.off("error", onError)
      waitable?.off("drain", onDrain)
    }
    const flush = () => {
      const last = transform.end()
      if (last.length > 0 && !to.destroyed) to.write(last)
    }
    const onEnd = () => {
      detach()
      flush()
      resume(Effect.succeed(undefined))
    }
    const onError = (error: Error) => {
      detach()
      flush()
      resume(Effect.succeed(`the stream was cut: ${error.message}`))
    }
    body.on("data", onData)
    body.on("end", onEnd)
    body.on("error", onError)
    return Effect.sync(() => {
      detach()
      body.destroy()
    })
  })

/**
 * The relay's calls on `dispatcher`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (dispatcher: Dispatcher): NativeRelay.Service => ({
  readBody: (request, maxBytes) => {
    const source = request.source
    // as NodeNativeHttp: the platform's reader answers `Expect: 100-continue`, or goes on with a body begun
    return source instanceof IncomingMessage && request.headers["expect"] === undefined && !source.readableDidRead
      ? IncomingBody.read(source, maxBytes, asBytes)
      : undefined
  },
  response: NodeNativeHttp.service.directResponse,
  send: (call) =>
    Effect.callback<NativeRelay.Answer, NativeRelay.Failure>((resume) => {
      const [origin, path] = split(call.url)
      const abort = new AbortController()
      let settled = false
      let body: Readable | undefined
      const settle = (outcome: Effect.Effect<NativeRelay.Answer, NativeRelay.Failure>) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(outcome)
      }
      const timedOut = () => {
        settle(Effect.fail({ _tag: "Timeout", message: `no answer within ${call.timeoutMillis} ms` }))
        abort.abort()
        body?.destroy()
      }
      let timer = setTimeout(timedOut, call.timeoutMillis)
      dispatcher.request({
        origin,
        path,
        method: call.method,
        headers: call.headers,
        body: call.body === undefined ? null : call.body,
        signal: abort.signal,
        // as the HttpClient's undici client: the relay bounds the wait itself
        headersTimeout: 60 * 60 * 1000,
        bodyTimeout: 0
      }, (error, data) => {
        if (settled) {
          // timed out or interrupted: an answer that comes anyway is dropped (with an error, `data` has no body)
          if (error === null) data.body.on("error", ignore).destroy()
          return
        }
        if (error !== null) return settle(Effect.fail({ _tag: "Unreachable", message: messageOf(error) }))
        body = data.body
        const contentType = headerOf(data.headers, "content-type")
        const headers = { "content-type": contentType, "a2a-extensions": headerOf(data.headers, "a2a-extensions") }
        if (contentType !== undefined && contentType.toLowerCase().startsWith("text/event-stream")) {
          const stream = data.body.on("error", ignore)
          return settle(Effect.succeed({
            _tag: "Stream",
            status: data.statusCode,
            headers,
            pipe: pipeOf(stream),
            discard: () => stream.destroy()
          }))
        }
        // the rest of the body, bounded again
        clearTimeout(timer)
        timer = setTimeout(timedOut, call.timeoutMillis)
        const chunks: Array<Buffer> = []
        let size = 0
        data.body.on("data", (chunk: Buffer) => {
          chunks.push(chunk)
          size += chunk.length
        })
        data.body.on("end", () =>
          settle(Effect.succeed({
            _tag: "Body",
            status: data.statusCode,
            headers,
            body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
          })))
        data.body.on("error", (cause: Error) => settle(Effect.fail({ _tag: "ConnectionLost", message: cause.message })))
      })
      return Effect.sync(() => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        abort.abort()
        body?.destroy()
      })
    })
})

/**
 * Provides Node's native relay to the gateway's routes, on the undici dispatcher in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<never, never, NodeHttpClient.Dispatcher> = Layer.effect(
  NativeRelay.NativeRelay,
  Effect.map(Effect.service(NodeHttpClient.Dispatcher), make)
)
