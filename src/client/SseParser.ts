/**
 * Server-Sent Events for the client, on Effect's own parser (`effect/encoding/Sse`, the WHATWG "event stream
 * interpretation"): incremental and pull-based, so the parser only sees the chunks the consumer pulls and a slow
 * consumer slows the socket down. What this module adds is the A2A client's view: `retry` is kept on the events
 * (the transport does not reconnect by itself), and an event that outgrows the limit is a typed failure.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { SseParser } from "effect-a2a/client"
 *
 * const events = SseParser.events(Stream.make("data: {\"a\":1}\n\n"))
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as EffectSse from "effect/encoding/Sse"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/**
 * One dispatched event. `id` is the last event id seen so far (it persists across events, as in the spec).
 *
 * @since 0.1.0
 * @category models
 */
export interface SseEvent {
  readonly event: string
  readonly data: string
  readonly id: string | undefined
  /** The last reconnection time the server asked for, in milliseconds. */
  readonly retry: number | undefined
}

/**
 * An event grew past the limit without being dispatched (a peer that never ends its event).
 *
 * @since 0.1.0
 * @category errors
 */
export class SseEventTooLarge extends Schema.TaggedError<SseEventTooLarge>()("SseEventTooLarge", {
  limit: Schema.Number,
  message: Schema.String
}) {}

/**
 * Default limit on one event's size, in characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024

/**
 * An incremental SSE parser: feed it text in chunks of any size (a CR/LF pair may be split across chunks), it
 * returns the events completed so far, or fails once the event in progress outgrows `maxEventSize`. An event
 * still open when the input ends is discarded, as the spec requires.
 *
 * @since 0.1.0
 * @category models
 */
export interface SseParser {
  /** Takes the next chunk of text; the events it completed, or the error when one grew past the bound. */
  readonly feed: (chunk: string) => Result.Result<ReadonlyArray<SseEvent>, SseEventTooLarge>
}

/**
 * A parser of a Server-Sent Events byte stream, with a bound on one event's size.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeParser = (options: { readonly maxEventSize?: number | undefined } = {}): SseParser => {
  const limit = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE
  let retry: number | undefined = undefined
  let out: Array<SseEvent> = []
  const parser = EffectSse.makeParser((event) => {
    if (event._tag === "Retry") retry = Duration.toMillis(event.duration)
    else out.push({ event: event.event, data: event.data, id: event.id, retry })
  }, { maxEventSize: limit })
  return {
    feed: (chunk) => {
      const error = parser.feed(chunk)
      const events = out
      out = []
      return error === undefined
        ? Result.succeed(events)
        : Result.fail(new SseEventTooLarge({ limit, message: `A server-sent event exceeded ${limit} characters` }))
    }
  }
}

/**
 * Parses a text stream into SSE events, with a fresh parser per run of the stream. Fails with SseEventTooLarge
 * when one event outgrows `maxEventSize` characters, instead of buffering without bound.
 *
 * @since 0.1.0
 * @category utils
 */
export const events = <E, R>(
  self: Stream.Stream<string, E, R>,
  options: { readonly maxEventSize?: number | undefined } = {}
): Stream.Stream<SseEvent, E | SseEventTooLarge, R> =>
  Stream.suspend(() => {
    const parser = makeParser(options)
    return self.pipe(
      Stream.mapEffect((chunk) => Effect.fromResult(parser.feed(chunk))),
      Stream.flattenIterable
    )
  })

/**
 * Parses a byte stream (e.g. an HTTP response body) into SSE events.
 *
 * @since 0.1.0
 * @category utils
 */
export const decode = <E, R>(
  self: Stream.Stream<Uint8Array, E, R>,
  options: { readonly maxEventSize?: number | undefined } = {}
): Stream.Stream<SseEvent, E | SseEventTooLarge, R> => events(Stream.decodeText(self), options)
