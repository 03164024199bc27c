/**
 * The A2A 1.1 draft, behind a switch: task generations, the long-poll GetTask and conditional sends, as the
 * specification's `dev-1.1` branch defines them (PR #1810). Off by default, and then nothing changes: no task or
 * event carries a `generation`, `currentGeneration` and `ifGenerationMatch` are ignored as a 1.0 server ignores
 * unknown fields, and neither the card nor the `A2A-Version` negotiation names 1.1.
 *
 * On (`layer`, or `A2A_PROTOCOL_DRAFT=1.1` with `layerConfig`), the server keeps a generation with every task it
 * creates from then on (1 at creation, one more for every event of the task), answers a GetTask with
 * `currentGeneration` once the task has moved past it (or when `maxWait` ends), refuses a SendMessage whose
 * `ifGenerationMatch` is not the task's generation, and serves `A2A-Version: 1.1` besides 1.0. The draft may still
 * change: use it to try the draft, not to depend on it.
 *
 * @example
 * ```ts
 * import { A2A11 } from "effect-a2a/server"
 *
 * // a layer to provide to the server: generations, long polls of up to 20 seconds
 * const draft = A2A11.layer({ maxWait: "20 seconds" })
 * ```
 *
 * @since 0.2.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * The protocol version the draft is served as.
 *
 * @since 0.2.0
 * @category constants
 */
export const VERSION = "1.1"

/**
 * How long a long-poll GetTask is held at most when `maxWait` is not given.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_MAX_WAIT: Duration.Duration = Duration.seconds(30)

/**
 * The longest `maxWait` accepted: a held request must end well before proxies and clients give up on it.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_MAX_WAIT: Duration.Duration = Duration.minutes(10)

/**
 * The draft's settings: whether it is served, and how long a long poll is held at most.
 *
 * @since 0.2.0
 * @category models
 */
export interface Settings {
  readonly enabled: boolean
  /** The longest a GetTask with `currentGeneration` is held before it answers with the task as it is. */
  readonly maxWait: Duration.Duration
}

/**
 * The draft's settings in the server's context; off unless a layer turns it on.
 *
 * @since 0.2.0
 * @category services
 */
export const A2A11 = Context.Reference<Settings>("effect-a2a/server/A2A11", {
  defaultValue: () => ({ enabled: false, maxWait: DEFAULT_MAX_WAIT })
})

/**
 * What `layer` takes.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The longest a long-poll GetTask is held (default 30 seconds, at most 10 minutes). */
  readonly maxWait?: Duration.Input | undefined
}

const clampWait = (input: Duration.Input | undefined): Duration.Duration => {
  const wait = input === undefined ? DEFAULT_MAX_WAIT : Duration.fromInputUnsafe(input)
  return Duration.min(Duration.max(wait, Duration.zero), MAX_MAX_WAIT)
}

/**
 * Turns the draft on for the server it is provided to.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<never> =>
  Layer.succeed(A2A11, { enabled: true, maxWait: clampWait(options.maxWait) })

/**
 * The layer of a server option: `true` or options turn the draft on, `false` leaves it off, and `undefined` reads
 * the configuration (`layerConfig`) when `fromConfig` is set, else leaves it off.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerOption = (
  option: boolean | Options | undefined,
  fromConfig = false
): Layer.Layer<never, Config.ConfigError> =>
  option === undefined
    ? (fromConfig ? layerConfig : Layer.empty)
    : option === false
    ? Layer.empty
    : layer(option === true ? {} : option)

/**
 * The settings from configuration: `A2A_PROTOCOL_DRAFT` (`1.1` turns the draft on; unset leaves it off) and
 * `A2A_LONG_POLL_MAX_WAIT` (a duration, default 30 seconds). Not `A2A_PROTOCOL_VERSIONS`, which only picks what
 * the HTTP bindings negotiate (it may leave 1.1 out of what a server with the draft on negotiates).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerConfig: Layer.Layer<never, Config.ConfigError> = Layer.unwrap(
  Effect.map(
    Config.all({
      version: Config.option(Config.Literals([VERSION], "A2A_PROTOCOL_DRAFT")),
      maxWait: Config.option(Config.Duration("A2A_LONG_POLL_MAX_WAIT"))
    }),
    ({ maxWait, version }) =>
      Option.getOrUndefined(version) === VERSION
        ? layer({ maxWait: Option.getOrUndefined(maxWait) })
        : Layer.empty
  )
)

/**
 * Whether the draft is on in this context.
 *
 * @since 0.2.0
 * @category guards
 */
export const isEnabled: Effect.Effect<boolean> = Effect.gen(function*() {
  return (yield* A2A11).enabled
})
