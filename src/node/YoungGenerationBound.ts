/**
 * Holds V8's young generation at a bound while the process runs, without a Node flag at start.
 *
 * Under sustained load V8 doubles its young generation whenever enough of what it allocated survives its
 * collections, up to 64 MiB per semi-space on 64-bit Node; a server always has requests in flight, so it gets there
 * and keeps it. `node --max-semi-space-size=8` (also accepted in NODE_OPTIONS) bounds it from the start, and is what
 * `effect-a2a serve` runs with; an application that embeds the server and cannot choose its Node flags gets the same
 * bound from this: after every collection it reads the young generation's size and, once it has reached the bound,
 * sets V8's growth factor to 1 (no further doubling), setting it back to V8's default while it is below (after a
 * collection that shrank it, e.g. IdleMemoryRelease's). V8 reads that factor at each growth; the observer hears of
 * a collection only after it, so a doubling or two may land past the bound before growth stops (a young generation
 * of two to four times the bound, against V8's maximum without it). The price is that of the flag: more, smaller
 * young-generation collections under load.
 *
 * Nothing is done when the process already runs with `--max-semi-space-size` (command line or NODE_OPTIONS): the
 * flag bounds the young generation itself. `NodeA2AServer.serve` applies it with `lowMemory: true`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { YoungGenerationBound } from "effect-a2a/node"
 *
 * // 8 MiB semi-spaces (16 MiB of young generation) for as long as the scope is open
 * const bounded = Effect.scoped(Effect.andThen(YoungGenerationBound.hold(), Effect.never))
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { PerformanceObserver } from "node:perf_hooks"
import * as V8 from "node:v8"

/**
 * The bound unless told otherwise, in MiB per semi-space (the young generation is twice this): the bound
 * `effect-a2a serve` starts Node with.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_SEMI_SPACE_MIB = 8

/** V8's own growth factor of the young generation (`--semi-space-growth-factor`). */
const V8_GROWTH_FACTOR = 2

/**
 * Whether this process runs with `--max-semi-space-size` already (on the command line or in NODE_OPTIONS).
 *
 * @since 0.2.0
 * @category guards
 */
export const flagGiven = (
  execArgv: ReadonlyArray<string> = process.execArgv,
  nodeOptions: string | undefined = process.env["NODE_OPTIONS"]
): boolean =>
  [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((arg) => /^--max[-_]semi[-_]space[-_]size(=|$)/.test(arg))

/** The young generation's size in bytes (both semi-spaces), as V8 reports it. */
const youngGenerationBytes = (): number => {
  for (const space of V8.getHeapSpaceStatistics()) {
    if (space.space_name === "new_space") return space.space_size
  }
  return 0
}

/**
 * Holds the young generation at `semiSpaceMiB` per semi-space for the scope's lifetime (see the module); V8's growth
 * factor is set back to its default when the scope closes. Does nothing when `flagGiven()`. Costs a look at V8's
 * space statistics after each collection.
 *
 * @since 0.2.0
 * @category utils
 */
export const hold = (
  options: { readonly semiSpaceMiB?: number | undefined } = {}
): Effect.Effect<void, never, Scope.Scope> =>
  flagGiven() ? Effect.void : Effect.gen(function*() {
    const bound = 2 * (options.semiSpaceMiB ?? DEFAULT_SEMI_SPACE_MIB) * 1048576
    let held = false
    const check = () => {
      const reached = youngGenerationBytes() >= bound
      if (reached === held) return
      held = reached
      V8.setFlagsFromString(`--semi-space-growth-factor=${reached ? 1 : V8_GROWTH_FACTOR}`)
    }
    const observer = new PerformanceObserver(check)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        observer.observe({ entryTypes: ["gc"] })
        check()
      }),
      () =>
        Effect.sync(() => {
          observer.disconnect()
          if (held) V8.setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`)
          held = false
        })
    )
  })
