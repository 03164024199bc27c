/**
 * Server-Sent Events for the streaming operations (spec 9.4.2, 11.7): framing, keep-alive comments, the end of
 * open streams at shutdown, and the decision whether a stream becomes an SSE response at all.
 *
 * That decision matters to clients: an operation that fails before its first event (task not found,
 * streaming unsupported, bad version...) is answered as a plain error response, which every client maps to
 * a typed error; once the first event is out the response is committed to `text/event-stream` and later
 * failures travel as events.
 *
 * An open stream costs a small object holding its frames until the response body takes them, and no fiber but the
 * request's (see `open`). Keep-alive pings and the shutdown signal reach every open stream through
 * one Hub per set of routes (one timer in all, not one per connection): thousands of idle subscribers stay cheap.
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { A2AError } from "../../protocol/A2AError.ts"
import * as LiveSet from "../../server/internal/LiveSet.ts"
import * as PushStream from "../../server/internal/PushStream.ts"
import type { DirectResponse, Service as NativeHttp } from "../NativeHttp.ts"
import { fromCause } from "./HttpErrors.ts"

const encoder = new TextEncoder()

/** One event whose `data` is a single line (serialized JSON never contains a raw newline). */
export const frame = (data: string, event?: string): Uint8Array =>
  encoder.encode(event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`)

const ping = encoder.encode(": ping\n\n")

/**
 * Frames each event as a `data:` line of its JSON. Module-level encoders matter: an open stream holds its
 * encoders, and a closure made inside a request handler would hold that handler's variables too.
 */
export const jsonEvent = (event: unknown): Uint8Array => frame(JSON.stringify(event))

export const HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-cache",
  // Tells nginx-style proxies not to buffer the event stream.
  "x-accel-buffering": "no"
}

/** What the Hub needs of an open stream. */
interface Listener {
  /** Queues a `: ping` comment. */
  readonly ping: () => void
  /** Ends the stream cleanly after what is queued. */
  readonly end: () => void
}

/** What the open streams of one set of routes share. */
export interface Hub {
  /** Adds an open stream for as long as the scope lasts: it gets the pings, and ends at shutdown. */
  readonly register: (stream: Listener) => Effect.Effect<void, never, Scope.Scope>
  /**
   * The native response of a request, when streams are written straight to it (HttpBindingOptions.directStreams,
   * and a runtime that offers it: see NativeHttp).
   */
  readonly direct: NativeHttp["directResponse"] | undefined
}

/**
 * A Hub living as long as the current scope: every `keepAlive` (zero: never) each open stream gets a `: ping`
 * comment, so idle connections survive proxies and clients notice dead peers; when `shutdown` completes, every
 * open stream ends cleanly (clients may resubscribe elsewhere) and later ones end as soon as they open.
 */
export const makeHub = (options: {
  readonly keepAlive: Duration.Duration
  readonly shutdown: Effect.Effect<void>
  readonly direct?: NativeHttp["directResponse"] | undefined
}): Effect.Effect<Hub, never, Scope.Scope> =>
  Effect.gen(function*() {
    const open = LiveSet.make<Listener>()
    let closed = false
    if (!Duration.isZero(options.keepAlive)) {
      yield* Effect.sleep(options.keepAlive).pipe(
        Effect.andThen(Effect.sync(() => {
          LiveSet.forEach(open, (stream) => stream.ping())
        })),
        Effect.forever,
        Effect.forkScoped
      )
    }
    yield* options.shutdown.pipe(
      Effect.andThen(Effect.sync(() => {
        closed = true
        for (const stream of LiveSet.takeAll(open)) stream.end()
      })),
      Effect.forkScoped
    )
    // One finalizer per stream, holding nothing but the stream: thousands of them stay cheap.
    const unregister = (entry: LiveSet.Entry<Listener>) => () => Effect.sync(() => LiveSet.remove(open, entry))
    return {
      direct: options.direct,
      register: (stream) =>
        Effect.flatMap(Effect.scope, (scope) => {
          if (closed) {
            stream.end()
            return Effect.void
          }
          return Scope.addFinalizerExit(scope, unregister(LiveSet.add(open, stream)))
        })
    }
  })

/** A stream that has failed before producing anything, or the response that sends it. */
export type Opened =
  | { readonly _tag: "Failed"; readonly cause: Cause.Cause<A2AError> }
  | { readonly _tag: "Ready"; readonly response: HttpServerResponse.HttpServerResponse }

type Frames = Arr.NonEmptyReadonlyArray<Uint8Array>

/**
 * One open stream: the sink its operation delivers into, framing each event at once, and the frames waiting for
 * the response body, which takes them all at each pull. A plain object with a few fields, since an idle stream
 * holds it for as long as it is open.
 */
class Outlet<A> implements PushStream.Sink<A>, Listener {
  private frames: Array<Uint8Array> = []
  /** The body's pull, when it waits for frames. */
  private waiting: ((effect: Effect.Effect<Frames, Cause.Done>) => void) | undefined = undefined
  /** Once committed, failures are sent as events. The sink and `open` decide synchronously, so never disagree. */
  private committed = false
  private done = false
  /** A failure after the commit, which the body sends as its last event. */
  private failure: Cause.Cause<A2AError> | undefined = undefined
  /** Settled by the first event or the end (None), or by an early failure (Some). */
  readonly early = Deferred.makeUnsafe<Option.Option<Cause.Cause<A2AError>>>()
  /** When frames go straight to a native response (see `sendTo`), that response, and who waits for the end. */
  private target: DirectResponse | undefined = undefined
  private ended: (() => void) | undefined = undefined

  private readonly encode: (event: A) => Uint8Array
  private readonly encodeError: (error: A2AError) => Uint8Array

  constructor(encode: (event: A) => Uint8Array, encodeError: (error: A2AError) => Uint8Array) {
    this.encode = encode
    this.encodeError = encodeError
  }

  offer(event: A): void {
    if (this.done) return
    let bytes: Uint8Array
    try {
      bytes = this.encode(event)
    } catch (defect) {
      return this.fail(Cause.die(defect))
    }
    this.push(bytes)
    this.commit()
  }

  fail(cause: Cause.Cause<A2AError>): void {
    if (this.done) return
    if (Cause.hasInterruptsOnly(cause)) return this.end()
    this.done = true
    if (!this.committed) {
      Deferred.doneUnsafe(this.early, Exit.succeed(Option.some(cause)))
      return
    }
    this.failure = cause
    this.wake()
  }

  end(): void {
    if (this.done) return
    this.done = true
    this.wake()
    this.commit()
  }

  ping(): void {
    if (!this.done) this.push(ping)
  }

  /** Sends the response as it is, if nothing has decided yet. */
  commit(): void {
    if (this.committed || Deferred.isDoneUnsafe(this.early)) return
    this.committed = true
    Deferred.doneUnsafe(this.early, Exit.succeed(Option.none()))
  }

  private push(bytes: Uint8Array): void {
    const target = this.target
    if (target !== undefined) {
      if (!target.destroyed) target.write(bytes)
      return
    }
    this.frames.push(bytes)
    this.wake()
  }

  // The waiting pull is resumed with the pull itself, which takes the frames: a pull interrupted meanwhile takes
  // nothing, so nothing is lost. Writing straight to a response, only the end is awaited.
  private wake(): void {
    if (this.target !== undefined) {
      const ended = this.ended
      if (ended === undefined || !this.done) return
      this.ended = undefined
      return ended()
    }
    const waiting = this.waiting
    if (waiting === undefined) return
    this.waiting = undefined
    waiting(this.pull)
  }

  /**
   * Writes the frames straight to `response` from now on, the queued ones first, and waits for the end: the
   * failure to send as the last event, if there is one.
   */
  sendTo(response: DirectResponse): Effect.Effect<Option.Option<Cause.Cause<A2AError>>> {
    return Effect.callback((resume) => {
      this.target = response
      const frames = this.frames
      this.frames = []
      // With nothing to send yet, the headers go now: the client learns at once that its stream is open.
      if (frames.length === 0) response.flushHeaders()
      else response.write(frames.length === 1 ? frames[0]! : concat(frames))
      const finished = () => {
        const failure = this.failure
        this.failure = undefined
        resume(Effect.succeed(Option.fromUndefinedOr(failure)))
      }
      if (this.done) return finished()
      this.ended = finished
      return Effect.sync(() => {
        this.ended = undefined
      })
    })
  }

  private pullEffect: Effect.Effect<Frames, Cause.Done> | undefined = undefined

  /**
   * The body's pull: the queued frames, then the failure's event if there is one, then the end. Made when first
   * asked for: a stream written straight to Node's response never is.
   */
  get pull(): Effect.Effect<Frames, Cause.Done> {
    return this.pullEffect ??= this.makePull()
  }

  private makePull(): Effect.Effect<Frames, Cause.Done> {
    return Effect.callback((resume) => {
      if (this.frames.length > 0) {
        const frames = this.frames as unknown as Frames
        this.frames = []
        return resume(Effect.succeed(frames))
      }
      if (!this.done) {
        this.waiting = resume
        return
      }
      const failure = this.failure
      if (failure === undefined) return resume(Cause.done())
      this.failure = undefined
      resume(Effect.map(fromCause(failure), (error): Frames => [this.encodeError(error)]))
    })
  }
}

/**
 * Starts `stream` in the current scope (the request's: a client that leaves ends it) and waits up to `window`
 * for its first element. A failure in that window is `Failed`; otherwise the `text/event-stream` response is
 * `Ready`, each element framed by `encode`. A stream slow to produce its first element is not held back: after
 * `window` the response is sent as is, its events following when they come. A later failure is framed by
 * `encodeError` as the last event and ends the stream cleanly; an interruption (the client went away) is left
 * alone: there is nobody to tell.
 *
 * Events are framed as they are produced and wait for the response body, which the request's fiber writes. A
 * PushStream (the operations' streams) delivers them itself, so an open stream holds no other fiber.
 */
export const open = <A>(
  hub: Hub,
  stream: Stream.Stream<A, A2AError>,
  options: OpenOptions<A>
): Effect.Effect<Opened, never, Scope.Scope> => openWith(hub, stream, options, failedOpening, readyOpening)

export interface OpenOptions<A> {
  readonly window: Duration.Duration
  readonly encode: (event: A) => Uint8Array
  readonly encodeError: (error: A2AError) => Uint8Array
  readonly headers?: Record<string, string> | undefined
}

const failedOpening = (cause: Cause.Cause<A2AError>): Effect.Effect<Opened> => Effect.succeed({ _tag: "Failed", cause })

const readyOpening = (response: HttpServerResponse.HttpServerResponse): Opened => ({ _tag: "Ready", response })

/**
 * `open`, answered: the event-stream response, or the error response `failed` makes of an early failure.
 */
export const openResponse = <A>(
  hub: Hub,
  stream: Stream.Stream<A, A2AError>,
  options: OpenOptions<A>,
  failed: (error: A2AError) => HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope> =>
  openWith(hub, stream, options, (cause) => Effect.map(fromCause(cause), failed), identity)

/**
 * `open` with its two outcomes mapped. While the stream is open, no pending step of this effect refers to the
 * operation's stream or to the options: an idle stream holds only its outlet (Effect keeps the source of every
 * pending flatMap, so the long wait is the last step, and everything it needs is passed to it).
 */
const openWith = <A, R>(
  hub: Hub,
  stream: Stream.Stream<A, A2AError>,
  options: OpenOptions<A>,
  onFailed: (cause: Cause.Cause<A2AError>) => Effect.Effect<R>,
  onReady: (response: HttpServerResponse.HttpServerResponse) => R
): Effect.Effect<R, never, Scope.Scope> =>
  Effect.suspend(() => {
    const outlet = new Outlet(options.encode, options.encodeError)
    const headers = { ...HEADERS, ...options.headers }
    return Effect.flatMap(
      Effect.andThen(PushStream.run(stream, outlet), settle(outlet, options.window)),
      (failure) =>
        Option.isSome(failure)
          ? onFailed(failure.value)
          : Effect.andThen(hub.register(outlet), respond(hub.direct, outlet, headers, options.encodeError, onReady))
    )
  })

/** A handler's answer: a response, or the effect that opens its event stream (`openResponse`). */
export type Answer =
  | HttpServerResponse.HttpServerResponse
  | Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope>

/**
 * Runs a handler that answers with an `Answer`, opening its stream only after the handler has returned: an open
 * stream then holds none of the handler's frames (a generator keeps all its variables while suspended).
 */
export const answering = <E, R>(
  handler: Effect.Effect<Answer, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | Scope.Scope> => Effect.flatMap(handler, answerOf)

/**
 * An `Answer` as the effect that answers: a handler whose last step returns it needs no `answering` around it (the
 * step is done, so the stream it opens holds none of the handler's frames either).
 */
export const answerOf = (answer: Answer): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope> =>
  HttpServerResponse.isHttpServerResponse(answer) ? Effect.succeed(answer) : answer

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  let size = 0
  for (const chunk of chunks) size += chunk.length
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

// Handed back to the platform once the stream has been written and ended: it writes nothing for an ended
// response, and middleware sees what was sent.
const sent = (headers: Record<string, string>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({ status: 200, headers: { "content-type": "text/event-stream", ...headers } })

/**
 * Writes the stream straight to the native response, for as long as it lasts (the request's fiber waits, so a
 * client that leaves still interrupts it and releases the stream), then ends the response.
 */
const writeDirect = <A, R>(
  outlet: Outlet<A>,
  response: DirectResponse,
  headers: Record<string, string>,
  encodeError: (error: A2AError) => Uint8Array,
  onReady: (response: HttpServerResponse.HttpServerResponse) => R
): Effect.Effect<R> =>
  Effect.suspend(() => {
    response.writeHead(200, { "content-type": "text/event-stream", ...headers })
    return Effect.flatMap(outlet.sendTo(response), (failure) =>
      Effect.map(
        Option.isSome(failure) ? Effect.map(fromCause(failure.value), encodeError) : Effect.undefined,
        (last) => {
          if (!response.destroyed) {
            if (last !== undefined) response.end(last)
            else response.end()
          }
          return onReady(sent(headers))
        }
      ))
  })

/**
 * Waits for the first event, the end or an early failure, for at most `window`. The window is one timer that
 * commits the outlet (which settles it), not a race: `timeoutOption` would fork two fibers per stream opened, garbage
 * that an idle server keeps in its young generation until the next collection.
 */
const settle = <A>(
  outlet: Outlet<A>,
  window: Duration.Duration
): Effect.Effect<Option.Option<Cause.Cause<A2AError>>> =>
  Effect.suspend(() => {
    // Decided when the operation's stream has started: its first event is often there already.
    if (Deferred.isDoneUnsafe(outlet.early) || !Duration.isFinite(window)) return Deferred.await(outlet.early)
    // Window over with nothing settled: the response is sent as is. A platform timer, so the TestClock does not
    // move it.
    const timer = setTimeout(() => outlet.commit(), Duration.toMillis(window))
    return Effect.onExit(Deferred.await(outlet.early), () => Effect.sync(() => clearTimeout(timer)))
  })

/**
 * The response of an open stream: written straight to the request's native response when the hub has one, else
 * a streamed body the platform writes. Built apart from `open`, so that it holds the outlet
 * and not the operation's stream.
 */
const respond = <A, R>(
  direct: NativeHttp["directResponse"] | undefined,
  outlet: Outlet<A>,
  headers: Record<string, string>,
  encodeError: (error: A2AError) => Uint8Array,
  onReady: (response: HttpServerResponse.HttpServerResponse) => R
): Effect.Effect<R> => {
  const streamed = () =>
    onReady(HttpServerResponse.stream(Stream.fromPull(Effect.succeed(outlet.pull)), {
      contentType: "text/event-stream",
      headers
    }))
  if (direct === undefined) return Effect.sync(streamed)
  return Effect.flatMap(Effect.serviceOption(HttpServerRequest.HttpServerRequest), (request) => {
    const response = Option.isSome(request) ? direct(request.value) : undefined
    return response === undefined ? Effect.sync(streamed) : writeDirect(outlet, response, headers, encodeError, onReady)
  })
}
