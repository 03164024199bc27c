/**
 * `--binding`, one definition for every command that talks to an agent (`send`, `get`, `cancel`, `subscribe`,
 * `tasks`): the protocol binding to use, whatever else the card offers. The transports it takes are in
 * ClientLayer, which only the commands' own modules load (the CLI parses this flag without loading the client).
 */
import * as Flag from "effect/cli/Flag"
import * as Option from "effect/Option"

/** The bindings a client command can be told to use, as cards name them. */
export const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const

export type Binding = (typeof BINDINGS)[number]

export const flag: Flag.Flag<Option.Option<Binding>> = Flag.Literals("binding", BINDINGS).pipe(
  Flag.withDescription("Use only this protocol binding"),
  Flag.optional
)

/** The A2AClient.resolve options that select the binding, when one was asked for. */
export const resolveOptions = (binding: Option.Option<string>): { readonly bindings?: ReadonlyArray<string> } =>
  Option.isSome(binding) ? { bindings: [binding.value] } : {}
