/**
 * Server-Sent Events parsing (WHATWG HTML "event stream interpretation"), incremental and pull-based: the
 * parser only sees the text chunks the consumer pulls, so a slow consumer slows the socket down.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/** One dispatched event. `id` is the last event id seen so far (it persists across events, as in the spec). */
export interface SseEvent {
  readonly event: string
  readonly data: string
  readonly id: string | undefined
  readonly retry: number | undefined
}

/**
 * An incremental SSE parser: feed it text in chunks of any size (a CR/LF pair may be split across chunks),
 * it returns the events completed so far. An event still open when the input ends is discarded, as the spec
 * requires.
 */
export interface SseParser {
  readonly feed: (chunk: string) => ReadonlyArray<SseEvent>
  /** Characters held for the event in progress (its data so far and the unfinished line). */
  readonly pending: () => number
}

/** An event grew past the limit without being dispatched (a peer that never ends its event). */
export class SseEventTooLarge extends Schema.TaggedError<SseEventTooLarge>()("SseEventTooLarge", {
  limit: Schema.Number,
  message: Schema.String
}) {}

/** Default limit on one event's size, in characters. */
export const DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024

export const makeParser = (): SseParser => {
  let buffer = ""
  let first = true
  // A chunk ended in CR: if the next one starts with LF, that LF belongs to the same line break.
  let skipLeadingLf = false
  let data: Array<string> = []
  let dataSize = 0
  let hasData = false
  let eventType = ""
  let lastEventId: string | undefined = undefined
  let retry: number | undefined = undefined

  const line = (text: string, out: Array<SseEvent>) => {
    if (text === "") {
      if (hasData) {
        out.push({ event: eventType === "" ? "message" : eventType, data: data.join("\n"), id: lastEventId, retry })
      }
      data = []
      dataSize = 0
      hasData = false
      eventType = ""
      return
    }
    if (text.charCodeAt(0) === 58 /* ":" */) return // comment / keep-alive
    const colon = text.indexOf(":")
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? "" : text.slice(colon + 1)
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1)
    switch (field) {
      case "data":
        data.push(value)
        dataSize += value.length + 1
        hasData = true
        break
      case "event":
        eventType = value
        break
      case "id":
        if (!value.includes("\u0000")) lastEventId = value
        break
      case "retry":
        if (/^[0-9]+$/.test(value)) retry = Number(value)
        break
    }
  }

  return {
    feed(chunk) {
      const out: Array<SseEvent> = []
      let text = chunk
      if (first && text.length > 0) {
        first = false
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      }
      if (skipLeadingLf && text.length > 0) {
        skipLeadingLf = false
        if (text.charCodeAt(0) === 10) text = text.slice(1)
      }
      buffer += text
      let start = 0
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i)
        if (c !== 10 && c !== 13) continue
        line(buffer.slice(start, i), out)
        if (c === 13) {
          if (i + 1 < buffer.length) {
            if (buffer.charCodeAt(i + 1) === 10) i++
          } else {
            skipLeadingLf = true
          }
        }
        start = i + 1
      }
      buffer = buffer.slice(start)
      return out
    },
    pending: () => buffer.length + dataSize
  }
}

/**
 * Parses a text stream into SSE events, with a fresh parser per run of the stream. Fails with
 * SseEventTooLarge when one event outgrows `maxEventSize` characters, instead of buffering without bound.
 */
export const events = <E, R>(
  self: Stream.Stream<string, E, R>,
  options: { readonly maxEventSize?: number | undefined } = {}
): Stream.Stream<SseEvent, E | SseEventTooLarge, R> =>
  Stream.suspend(() => {
    const parser = makeParser()
    const limit = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE
    return self.pipe(
      Stream.mapEffect((chunk) => {
        const out = parser.feed(chunk)
        return parser.pending() > limit
          ? Effect.fail(
            new SseEventTooLarge({ limit, message: `A server-sent event exceeded ${limit} characters` })
          )
          : Effect.succeed(out)
      }),
      Stream.flattenIterable
    )
  })

/** Parses a byte stream (e.g. an HTTP response body) into SSE events. */
export const decode = <E, R>(
  self: Stream.Stream<Uint8Array, E, R>,
  options: { readonly maxEventSize?: number | undefined } = {}
): Stream.Stream<SseEvent, E | SseEventTooLarge, R> => events(Stream.decodeText(self), options)
