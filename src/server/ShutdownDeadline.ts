/**
 * The instant a stopping server must have answered what is still in flight. A blocking SendMessage waits for its
 * task to end; when the server stops first, it answers at the deadline with the task as it is then (a valid answer:
 * the client learns the task and can follow it elsewhere) instead of being cut off without a reply. Raised by
 * the server runner (NodeA2AServer.serve does it `shutdownTimeout` after a shutdown begins); never raised by
 * default.
 *
 * @example
 * ```ts
 * import { ShutdownDeadline } from "effect-a2a/server"
 * import { Deferred, Effect } from "effect"
 *
 * // blocking sends still waiting answer now
 * const answerNow = Effect.flatMap(ShutdownDeadline.ShutdownDeadline, (deadline) => Deferred.succeed(deadline, undefined))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"

/**
 * The deadline of a stopping server (see the module doc): a Deferred its runner completes.
 *
 * @since 0.1.0
 * @category services
 */
export const ShutdownDeadline = Context.Reference<Deferred.Deferred<void>>("effect-a2a/server/ShutdownDeadline", {
  defaultValue: () => Deferred.makeUnsafe<void>()
})
