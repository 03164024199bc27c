/**
 * What an agent's stream carries, and the push-style producer a stream may carry beside it (`withPushRun`).
 */
import type * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as v1 from "../generated/v1.ts"

/** One agent event, in its wire wrapper: `{ message }`, `{ task }`, `{ statusUpdate }` or `{ artifactUpdate }`. */
export type AgentEvent = v1.StreamResponse

/** Pushes one event to the server; see `withPushRun`. */
export type Emit = (event: AgentEvent) => Effect.Effect<void>

const PushRun = Symbol.for("effect-a2a/server/AgentExecutor/PushRun")

interface HasPushRun<E> {
  readonly [PushRun]: (emit: Emit) => Effect.Effect<void, E>
}

/**
 * Marks an event stream with an equivalent push-style producer: `run(emit)` emits the same events, in the
 * same order, by calling `emit`, and fails as the stream would. The server then runs `run` in the
 * execution's own fiber instead of pulling the stream (no producer fiber, queue or channel per execution);
 * `emit` interrupts the producer once the turn is over, as the end of the stream's reading would. A stream
 * derived from a marked one (map, concat...) is not marked, so it is always read as a stream. `stream` itself is
 * left as it was: the marked stream is a new one over the same channel.
 */
export const withPushRun = <E>(
  stream: Stream.Stream<AgentEvent, E>,
  run: (emit: Emit) => Effect.Effect<void, E>
): Stream.Stream<AgentEvent, E> => Object.assign(Stream.fromChannel(Stream.toChannel(stream)), { [PushRun]: run })

/** The push-style producer a stream was marked with, if any. */
export const pushRunOf = <E>(
  stream: Stream.Stream<AgentEvent, E>
): ((emit: Emit) => Effect.Effect<void, E>) | undefined =>
  PushRun in stream ? (stream as Stream.Stream<AgentEvent, E> & HasPushRun<E>)[PushRun] : undefined
