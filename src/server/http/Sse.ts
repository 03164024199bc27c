/**
 * Server-Sent Events for the streaming operations (spec 9.4.2, 11.7): framing, keep-alive comments, the end of
 * open streams at shutdown, and the decision whether a stream becomes an SSE response at all.
 *
 * That decision matters to clients: an operation that fails before its first event (task not found,
 * streaming unsupported, bad version...) is answered as a plain error response, which every client maps to
 * a typed error; once the first event is out the response is committed to `text/event-stream` and later
 * failures travel as events.
 *
 * An open stream costs one queue of frames, which the response body reads; the operation's events are framed
 * and queued as they are produced (see `open`). Keep-alive pings and the shutdown signal reach every open stream through
 * one Hub per set of routes (one timer in all, not one per connection): thousands of idle subscribers stay cheap.
 */
import { Cause, Deferred, Duration, Effect, Exit, Option, Queue, type Scope, Stream } from "effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { A2AError } from "../../protocol/A2AError.ts"
import * as PushStream from "../PushStream.ts"
import { fromCause } from "./HttpErrors.ts"

const encoder = new TextEncoder()

/** One event whose `data` is a single line (serialized JSON never contains a raw newline). */
export const frame = (data: string, event?: string): Uint8Array =>
  encoder.encode(event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`)

const ping = encoder.encode(": ping\n\n")

export const HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-cache",
  // Tells nginx-style proxies not to buffer the event stream.
  "x-accel-buffering": "no"
}

/** The frames an open stream sends, in order; ending it ends the response. */
type Outbox = Queue.Queue<Uint8Array, Cause.Done>

/** What the open streams of one set of routes share. */
export interface Hub {
  /** Adds an open stream for as long as the scope lasts: it gets the pings, and ends at shutdown. */
  readonly register: (outbox: Outbox) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * A Hub living as long as the current scope: every `keepAlive` (zero: never) each open stream gets a `: ping`
 * comment, so idle connections survive proxies and clients notice dead peers; when `shutdown` completes, every
 * open stream ends cleanly (clients may resubscribe elsewhere) and later ones end as soon as they open.
 */
export const makeHub = (options: {
  readonly keepAlive: Duration.Duration
  readonly shutdown: Effect.Effect<void>
}): Effect.Effect<Hub, never, Scope.Scope> =>
  Effect.gen(function*() {
    const open = new Set<Outbox>()
    let closed = false
    if (!Duration.isZero(options.keepAlive)) {
      yield* Effect.sleep(options.keepAlive).pipe(
        Effect.andThen(Effect.sync(() => {
          for (const outbox of open) Queue.offerUnsafe(outbox, ping)
        })),
        Effect.forever,
        Effect.forkScoped
      )
    }
    yield* options.shutdown.pipe(
      Effect.andThen(Effect.sync(() => {
        closed = true
        for (const outbox of open) Queue.endUnsafe(outbox)
        open.clear()
      })),
      Effect.forkScoped
    )
    return {
      register: (outbox) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            if (closed) Queue.endUnsafe(outbox)
            else open.add(outbox)
          }),
          () => Effect.sync(() => open.delete(outbox))
        )
    }
  })

/** A stream that has failed before producing anything, or the response that sends it. */
export type Opened =
  | { readonly _tag: "Failed"; readonly cause: Cause.Cause<A2AError> }
  | { readonly _tag: "Ready"; readonly response: HttpServerResponse.HttpServerResponse }

/**
 * Starts `stream` in the current scope (the request's: a client that leaves ends it) and waits up to `window`
 * for its first element. A failure in that window is `Failed`; otherwise the `text/event-stream` response is
 * `Ready`, each element framed by `encode`. A stream slow to produce its first element is not held back: after
 * `window` the response is sent as is, its events following when they come. A later failure is framed by
 * `encodeError` as the last event and ends the stream cleanly; an interruption (the client went away) is left
 * alone: there is nobody to tell.
 *
 * Events are framed as they are produced and queued for the response body, which the request's fiber writes.
 * A PushStream (the operations' streams) delivers them itself, so an open stream holds no other fiber.
 */
export const open = <A>(
  hub: Hub,
  stream: Stream.Stream<A, A2AError>,
  options: {
    readonly window: Duration.Duration
    readonly encode: (event: A) => Uint8Array
    readonly encodeError: (error: A2AError) => Uint8Array
    readonly headers?: Record<string, string> | undefined
  }
): Effect.Effect<Opened, never, Scope.Scope> =>
  Effect.gen(function*() {
    const outbox: Outbox = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    // Settled by whichever comes first: the first element or the end (None), or an early failure (Some).
    const early = Deferred.makeUnsafe<Option.Option<Cause.Cause<A2AError>>>()
    // Once committed, failures are sent as events. Both sides decide synchronously, so they never disagree.
    let committed = false
    let done = false
    // A failure after the commit, sent by the body as its last event.
    let failure: Cause.Cause<A2AError> | undefined
    const commit = () => {
      committed = true
      Deferred.doneUnsafe(early, Exit.succeed(Option.none()))
    }
    const end = () => {
      if (done) return
      done = true
      Queue.endUnsafe(outbox)
      if (!committed) commit()
    }
    const fail = (cause: Cause.Cause<A2AError>) => {
      if (done) return
      if (Cause.hasInterruptsOnly(cause)) return end()
      done = true
      if (!committed) return void Deferred.doneUnsafe(early, Exit.succeed(Option.some(cause)))
      failure = cause
      Queue.endUnsafe(outbox)
    }
    yield* PushStream.run(stream, {
      offer: (event) => {
        if (done) return
        let bytes: Uint8Array
        try {
          bytes = options.encode(event)
        } catch (defect) {
          return fail(Cause.die(defect))
        }
        // Queued before committing: settling the Deferred may run the waiting side at once.
        Queue.offerUnsafe(outbox, bytes)
        if (!committed) commit()
      },
      fail,
      end
    })
    if (!Deferred.isDoneUnsafe(early)) {
      yield* Effect.timeoutOption(Deferred.await(early), options.window)
      // Window over with nothing settled: the response is sent as is. Decided synchronously, as the sink decides.
      if (!committed && !Deferred.isDoneUnsafe(early)) commit()
    }
    const settled = yield* Deferred.await(early)
    if (Option.isSome(settled)) return { _tag: "Failed", cause: settled.value } as const
    yield* hub.register(outbox)
    // The body's pull: the queued frames, then the failure's event if there is one, then the end.
    const pull = Effect.catchCause(Queue.takeAll(outbox), (cause) => {
      const failed = failure
      if (failed === undefined) return Effect.failCause(cause)
      failure = undefined
      return Effect.map(fromCause(failed), (error) => [options.encodeError(error)] as const)
    })
    return {
      _tag: "Ready",
      response: HttpServerResponse.stream(Stream.fromPull(Effect.succeed(pull)), {
        contentType: "text/event-stream",
        headers: { ...HEADERS, ...options.headers }
      })
    } as const
  })
