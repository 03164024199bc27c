/**
 * `--binding`, one definition for every command that talks to an agent (`send`, `get`, `cancel`, `subscribe`,
 * `tasks`): the protocol binding to use, whatever else the card offers. The transports it takes are in
 * ClientLayer, which only the commands' own modules load (the CLI parses this flag without loading the client).
 */
import * as Flag from "effect/cli/Flag"
import * as Option from "effect/Option"

/**
 * The bindings a client command can be told to use, as cards name them.
 *
 * @since 0.1.0
 * @category constants
 */
export const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const

/**
 * A protocol binding the `--binding` flag names.
 *
 * @since 0.1.0
 * @category models
 */
export type Binding = (typeof BINDINGS)[number]

/**
 * The `--binding` flag: use only this protocol binding.
 *
 * @since 0.1.0
 * @category flags
 */
export const flag: Flag.Flag<Option.Option<Binding>> = Flag.Literals("binding", BINDINGS).pipe(
  Flag.withDescription("Use only this protocol binding"),
  Flag.optional
)

/**
 * The A2AClient.resolve options that select the binding, when one was asked for.
 *
 * @since 0.1.0
 * @category utils
 */
export const resolveOptions = (binding: Option.Option<string>): { readonly bindings?: ReadonlyArray<string> } =>
  Option.isSome(binding) ? { bindings: [binding.value] } : {}
