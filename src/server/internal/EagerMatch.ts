/**
 * `Effect.matchEffect` that continues at once when the effect is already a success (an `Exit`, as
 * `Effect.succeed` is): on the request path (an Auth answering with `Effect.succeed`, a request resolved without
 * reading anything) a step then costs a function call instead of a turn of the fiber's run loop. Anything else,
 * a failed Exit included, goes through `Effect.matchEffect` unchanged. (Effect has the eager form for a Cause,
 * `matchCauseEffectEager`, not this one for the typed failure the bindings answer.)
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/**
 * Effect.matchEffect that runs its handler at once when the effect has already completed, without a fiber step.
 *
 * @since 0.1.0
 * @category utils
 */
export const matchEffectEager = <A, E, R, A2, E2, R2, A3, E3, R3>(
  self: Effect.Effect<A, E, R>,
  options: {
    readonly onFailure: (e: E) => Effect.Effect<A2, E2, R2>
    readonly onSuccess: (a: A) => Effect.Effect<A3, E3, R3>
  }
): Effect.Effect<A2 | A3, E2 | E3, R2 | R3 | R> => {
  if (Exit.isExit(self)) {
    const exit = self as Exit.Exit<A, E>
    if (Exit.isSuccess(exit)) return options.onSuccess(exit.value)
  }
  return Effect.matchEffect(self, options)
}
