/**
 * Ends open event streams when the server starts shutting down. Without it a graceful shutdown waits for
 * every SSE response, which for a long task means the whole shutdown timeout; with it, streams end at once
 * (clients see the stream close and may resubscribe elsewhere) while ordinary requests still finish.
 * `A2AHttp.serve` provides it; routes mounted on a user's own server run without it.
 *
 * @example
 * ```ts
 * import { ServerShutdown } from "effect-a2a/http"
 * import { Deferred, Effect } from "effect"
 *
 * // open event streams end when this completes (NodeA2AServer.serve does it when its layer is released)
 * const beginShutdown = Effect.gen(function*() {
 *   const done = yield* ServerShutdown.ServerShutdown
 *   yield* Deferred.succeed(done, undefined)
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * The signal that the server is stopping: open event streams end when it is raised.
 *
 * @since 0.1.0
 * @category services
 */
export class ServerShutdown extends Context.Service<ServerShutdown, Deferred.Deferred<void>>()(
  "effect-a2a/server/http/ServerShutdown"
) {}

/**
 * The signal, not yet raised.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ServerShutdown> = Layer.effect(ServerShutdown, Deferred.make<void>())

/**
 * Raises the signal when this layer is released. Build it after the server (so it is released first):
 * streams end before the server waits for in-flight requests.
 *
 * @since 0.1.0
 * @category layers
 */
export const raiseOnRelease: Layer.Layer<never, never, ServerShutdown> = Layer.effectDiscard(
  Effect.flatMap(ServerShutdown, (signal) => Effect.addFinalizer(() => Deferred.succeed(signal, undefined)))
)
