/**
 * Node's side of the gateway's `NativeRelay` seam, with public APIs only: a relayed call's body read straight from
 * the `IncomingMessage`, the call sent on undici's dispatcher (the pool of the gateway's HttpClient, from
 * `NodeHttpClient.Dispatcher`) through its `dispatch` handler API, without the HttpClient's conversions and without
 * a response stream or promise per call, and the agent's answer written straight to the caller's `ServerResponse`,
 * an event stream piped chunk by chunk (the relay's masking the only work per chunk; undici paused while the caller's
 * socket is full; the caller leaving aborts the agent's call). `effect-a2a gateway` installs it; without it the relay takes Effect's generic HTTP path.
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

const messageOf = (error: unknown) => error instanceof Error ? error.message : String(error)

type Handler = Parameters<Dispatcher["dispatch"]>[1]
type Controller = Parameters<NonNullable<Handler["onRequestStart"]>>[0]

/** Where an event stream's chunks go once the relay pipes it (NativeRelay.Answer's `pipe`). */
interface Sink {
  readonly data: (chunk: Buffer) => void
  readonly end: () => void
  readonly error: (error: Error) => void
}

/**
 * One call on undici's dispatch API: its handler sees the answer's head and chunks as they are parsed, with no
 * response stream or promise in between. An event stream is paused until it is piped (its first chunks kept),
 * then paused again while the caller's socket is full.
 */
const exchange = (dispatcher: Dispatcher, call: NativeRelay.Call) =>
  Effect.callback<NativeRelay.Answer, NativeRelay.Failure>((resume) => {
    const [origin, path] = split(call.url)
    let controller: Controller | undefined
    let abortedWith: Error | undefined
    /** The answer (or failure) has been given. */
    let settled = false
    /** The agent's answer has ended, one way or the other. */
    let finished = false
    let streaming = false
    let sink: Sink | undefined
    const early: Array<Buffer> = []
    let earlyEnd: { readonly error: Error | undefined } | undefined
    /** The head of an answer that is not an event stream, its body being read. */
    let answerHead:
      | { readonly status: number; readonly headers: Readonly<Record<string, string | undefined>> }
      | undefined
    const chunks: Array<Buffer> = []
    let size = 0
    // once: an aborted call (or one that ended) is not aborted again
    const abort = (error: Error) => {
      if (finished || abortedWith !== undefined) return
      abortedWith = error
      controller?.abort(error)
    }
    const settle = (outcome: Effect.Effect<NativeRelay.Answer, NativeRelay.Failure>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(outcome)
    }
    const timedOut = () => {
      settle(Effect.fail({ _tag: "Timeout", message: `no answer within ${call.timeoutMillis} ms` }))
      abort(new Error("The agent did not answer in time"))
    }
    let timer = setTimeout(timedOut, call.timeoutMillis)

    const pipe = (to: DirectResponse, transform: NativeRelay.Transform) =>
      Effect.callback<string | undefined>((done) => {
        const waitable = to instanceof ServerResponse ? to : undefined
        const onDrain = () => controller?.resume()
        const flush = () => {
          const last = transform.end()
          if (last.length > 0 && !to.destroyed) to.write(last)
        }
        const close = (cut: string | undefined) => {
          sink = undefined
          waitable?.off("drain", onDrain)
          flush()
          done(Effect.succeed(cut))
        }
        const next: Sink = {
          data: (chunk) => {
            const out = transform.chunk(chunk)
            if (out.length === 0 || to.destroyed) return
            if (to.write(out) === false && waitable !== undefined) {
              controller?.pause()
              waitable.once("drain", onDrain)
            }
          },
          end: () => close(undefined),
          error: (error) => close(`the stream was cut: ${error.message}`)
        }
        for (const chunk of early.splice(0)) next.data(chunk)
        if (earlyEnd !== undefined) {
          if (earlyEnd.error === undefined) next.end()
          else next.error(earlyEnd.error)
        } else {
          sink = next
          controller?.resume()
        }
        return Effect.sync(() => {
          sink = undefined
          waitable?.off("drain", onDrain)
          abort(new Error("The caller left"))
        })
      })

    const handler: Handler = {
      onRequestStart: (c) => {
        controller = c
        if (abortedWith !== undefined) c.abort(abortedWith)
      },
      onResponseStart: (c, statusCode, incoming) => {
        if (statusCode < 200 || settled) return
        const contentType = headerOf(incoming, "content-type")
        const headers = { "content-type": contentType, "a2a-extensions": headerOf(incoming, "a2a-extensions") }
        if (contentType !== undefined && contentType.toLowerCase().startsWith("text/event-stream")) {
          streaming = true
          c.pause()
          return settle(Effect.succeed({
            _tag: "Stream",
            status: statusCode,
            headers,
            pipe,
            discard: () => abort(new Error("The answer was dropped"))
          }))
        }
        // the rest of the body, bounded again
        clearTimeout(timer)
        timer = setTimeout(timedOut, call.timeoutMillis)
        answerHead = { status: statusCode, headers }
      },
      onResponseData: (_, chunk) => {
        if (streaming) {
          if (sink !== undefined) sink.data(chunk)
          else early.push(chunk)
          return
        }
        chunks.push(chunk)
        size += chunk.length
      },
      onResponseEnd: () => {
        finished = true
        if (streaming) {
          if (sink !== undefined) sink.end()
          else earlyEnd = { error: undefined }
          return
        }
        if (answerHead === undefined) return
        settle(Effect.succeed({
          _tag: "Body",
          ...answerHead,
          body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
        }))
      },
      onResponseError: (_, error) => {
        finished = true
        if (streaming) {
          if (sink !== undefined) sink.error(error)
          else earlyEnd = { error }
          return
        }
        settle(Effect.fail({
          _tag: answerHead === undefined ? "Unreachable" : "ConnectionLost",
          message: messageOf(error)
        }))
      }
    }
    try {
      dispatcher.dispatch({
        origin,
        path,
        method: call.method,
        headers: call.headers,
        body: call.body === undefined ? null : call.body,
        // as the HttpClient's undici client: the relay bounds the wait itself
        headersTimeout: 60 * 60 * 1000,
        bodyTimeout: 0
      }, handler)
    } catch (error) {
      finished = true
      settle(Effect.fail({ _tag: "Unreachable", message: messageOf(error) }))
    }
    return Effect.sync(() => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      abort(new Error("The call was interrupted"))
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
  send: (call) => exchange(dispatcher, call)
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
