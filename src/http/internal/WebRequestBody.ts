/**
 * The body of a fetch-style request (a web `Request`, which `HttpRouter.toWebHandler` and the Deno, Bun and
 * Workers servers hand the routes) read straight from its `ReadableStream`, with public web APIs only.
 *
 * Why not the platform's reader: for a small JSON body it costs more than the rest of the body's handling. It
 * memoises its result with a fiber of its own and passes an AbortSignal through a promise. This reads the stream's chunks and nothing else,
 * with the platform reader's rules: at most `maxBytes`, and no more than a declared Content-Length; the text is
 * decoded as UTF-8 the way the platform's reader decodes it (a leading BOM dropped).
 */
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { BodyReadFailure } from "../NativeHttp.ts"

const decoder = new TextDecoder()

const DIGITS = /^\d+$/

const decode = (chunks: ReadonlyArray<Uint8Array>, size: number): string => {
  if (chunks.length === 1) return decoder.decode(chunks[0])
  const whole = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    whole.set(chunk, offset)
    offset += chunk.byteLength
  }
  return decoder.decode(whole)
}

type Chunk = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>

const read = (
  body: ReadableStream<Uint8Array>,
  limit: number,
  maxBytes: number
): Effect.Effect<string, BodyReadFailure> =>
  Effect.callback<string, BodyReadFailure>((resume) => {
    const reader = body.getReader()
    const chunks: Array<Uint8Array> = []
    let size = 0
    let settled = false
    // Cancellation is not awaited: a source's cleanup may never settle.
    const cancel = () => {
      reader.cancel().catch(() => {})
    }
    const onChunk = (chunk: Chunk): void => {
      if (settled) return
      if (chunk.done) {
        settled = true
        reader.releaseLock()
        resume(Effect.succeed(decode(chunks, size)))
        return
      }
      // A stream of something else than bytes (a Request built on a stream of strings) is no body to read.
      if (!(chunk.value instanceof Uint8Array)) {
        settled = true
        cancel()
        resume(Effect.fail("Unreadable"))
        return
      }
      size += chunk.value.byteLength
      if (size > limit) {
        settled = true
        cancel()
        // Past a declared Content-Length but within the limit: a body that lies about its length.
        resume(Effect.fail(size > maxBytes ? "TooLarge" : "Unreadable"))
        return
      }
      chunks.push(chunk.value)
      reader.read().then(onChunk, onError)
    }
    const onError = (): void => {
      if (settled) return
      settled = true
      resume(Effect.fail("Unreadable"))
    }
    reader.read().then(onChunk, onError)
    return Effect.sync(() => {
      if (settled) return
      settled = true
      cancel()
    })
  })

/**
 * The body of `request` as UTF-8 text, at most `maxBytes` of it; undefined when it is not a web `Request` whose
 * body is still unread (the platform's reader then serves it).
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<string, BodyReadFailure> | undefined => {
  const source = request.source
  if (typeof Request === "undefined" || !(source instanceof Request) || source.bodyUsed) return undefined
  const body = source.body
  if (body === null) return Effect.succeed("")
  // A stream something else holds a reader of is the platform's to refuse.
  if (body.locked) return undefined
  const header = source.headers.get("content-length")
  const declared = header !== null && DIGITS.test(header) ? Number(header) : undefined
  return read(body, declared === undefined ? maxBytes : Math.min(declared, maxBytes), maxBytes)
}
