/**
 * A Node request's body read in one pass from its `IncomingMessage`, at most `maxBytes` of it: the native reader
 * behind NodeNativeHttp (the body as text) and NodeNativeRelay (the body as bytes).
 */
import * as Effect from "effect/Effect"
import type { IncomingMessage } from "node:http"
import type { BodyReadFailure } from "../../http/NativeHttp.ts"

/** What an ended request does with a later "error": nothing (its body was read; the response reports its own). */
const ignoreError = (): void => {}

/**
 * The body, converted by `convert` once whole. Past the limit reading stops and the rest is drained, not destroyed,
 * so the answer (413) still reaches the client (the platform closes the connection after it when too much is left).
 */
export const read = <A>(
  source: IncomingMessage,
  maxBytes: number,
  convert: (body: Buffer) => A
): Effect.Effect<A, BodyReadFailure> =>
  Effect.callback<A, BodyReadFailure>((resume) => {
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
      resume(Effect.succeed(convert(body)))
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
