/**
 * Server-Sent Events for the streaming operations (spec 9.4.2, 11.7): framing, keep-alive comments, and the
 * decision whether a stream becomes an SSE response at all.
 *
 * That decision matters to clients: an operation that fails before its first event (task not found,
 * streaming unsupported, bad version...) is answered as a plain error response, which every client maps to
 * a typed error; once the first event is out the response is committed to `text/event-stream` and later
 * failures travel as events.
 */
import { Cause, Duration, Effect, Exit, Fiber, Option, Pull, type Scope, Stream } from "effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { A2AError } from "../../protocol/A2AError.ts"
import { fromCause } from "./HttpErrors.ts"

const encoder = new TextEncoder()

/** One event whose `data` is a single line (serialized JSON never contains a raw newline). */
export const frame = (data: string, event?: string): Uint8Array =>
  encoder.encode(event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`)

const ping = encoder.encode(": ping\n\n")

/**
 * Interleaves `: ping` comments every `interval` so idle connections survive proxies and clients notice
 * dead peers; ends when `events` ends. A zero interval disables keep-alive.
 */
export const withKeepAlive = <E, R>(
  events: Stream.Stream<Uint8Array, E, R>,
  interval: Duration.Duration
): Stream.Stream<Uint8Array, E, R> =>
  Duration.isZero(interval)
    ? events
    : Stream.merge(
      events,
      Stream.tick(interval).pipe(Stream.drop(1), Stream.map(() => ping)),
      { haltStrategy: "left" }
    )

/** A stream that has either failed before producing anything, or is ready to be sent. */
export type Started<A, E> =
  | { readonly _tag: "Failed"; readonly cause: Cause.Cause<E> }
  | { readonly _tag: "Ready"; readonly stream: Stream.Stream<A, E> }

/**
 * Starts pulling `stream` in the current scope and waits up to `window` for its first element. A failure in
 * that window is returned as `Failed`; otherwise the whole stream (first element included, nothing pulled
 * twice) is `Ready`. A stream that is slow to produce its first element is not held back: after `window`
 * it is sent as is, its first element following when it comes.
 */
export const start = <A, E>(
  stream: Stream.Stream<A, E>,
  window: Duration.Duration
): Effect.Effect<Started<A, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pull = yield* Stream.toPull(stream)
    const first = yield* Effect.forkScoped(pull)
    const early = yield* Fiber.await(first).pipe(Effect.timeoutOption(window))
    if (Option.isSome(early) && Exit.isFailure(early.value) && !Pull.isDoneCause(early.value.cause)) {
      return { _tag: "Failed", cause: early.value.cause as Cause.Cause<E> } as const
    }
    let pending: typeof first | undefined = first
    const resumed = Effect.suspend(() => {
      if (pending === undefined) return pull
      const f = pending
      pending = undefined
      return Fiber.join(f)
    })
    return { _tag: "Ready", stream: Stream.fromPull(Effect.succeed(resumed)) } as const
  })

export const HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-cache",
  // Tells nginx-style proxies not to buffer the event stream.
  "x-accel-buffering": "no"
}

/**
 * The `text/event-stream` response for a started stream: each element framed by `encode`; a failure is
 * framed by `encodeError` as the last event and ends the stream cleanly. An interruption (the client went
 * away) is left alone: there is nobody to tell.
 */
export const respond = <A>(
  stream: Stream.Stream<A, A2AError>,
  options: {
    readonly encode: (event: A) => Uint8Array
    readonly encodeError: (error: A2AError) => Uint8Array
    readonly keepAlive: Duration.Duration
    /** Ends the stream early (cleanly) when it completes: the server is shutting down. */
    readonly until?: Effect.Effect<void> | undefined
    readonly headers?: Record<string, string> | undefined
  }
): HttpServerResponse.HttpServerResponse => {
  const events = stream.pipe(
    options.until === undefined ? (s) => s : Stream.interruptWhen(options.until),
    Stream.map(options.encode),
    Stream.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Stream.failCause(cause)
        : Stream.fromEffect(Effect.map(fromCause(cause), options.encodeError))
    )
  )
  return HttpServerResponse.stream(withKeepAlive(events, options.keepAlive), {
    contentType: "text/event-stream",
    headers: { ...HEADERS, ...options.headers }
  })
}
