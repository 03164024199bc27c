/**
 * `--binding`, one definition for every command that talks to an agent (`send`, `get`, `cancel`, `subscribe`,
 * `tasks`): the protocol binding to use, whatever else the card offers, and the client transports that takes. The
 * gRPC transport is loaded only when `GRPC` is asked for: grpc-js is an optional peer, and the commands start
 * without it.
 */
import * as CliError from "effect/cli/CliError"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as A2A03 from "../v0_3/A2A03.ts"

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

/** The gRPC transport, from a module loaded only now. */
const grpcClient: Layer.Layer<never, CliError.CliError> = Layer.unwrap(
  Effect.tryPromise({
    try: () => import("../grpc/GrpcTransport.ts"),
    catch: () =>
      new CliError.UserError({
        cause: new Error(
          "--binding GRPC needs @grpc/grpc-js and @bufbuild/protobuf: npm install them beside effect-a2a"
        )
      })
  }).pipe(Effect.map((module) => module.layer))
)

/** The client transports a command needs: 1.0 and 0.3 over HTTP always, gRPC when it was asked for. */
export const clientLayer = (binding: Option.Option<string>): Layer.Layer<never, CliError.CliError> =>
  Option.contains(binding, "GRPC") ? Layer.merge(A2A03.client, grpcClient) : A2A03.client
