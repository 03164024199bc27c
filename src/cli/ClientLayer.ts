/**
 * The client transports a client command runs with: 1.0, 0.3 and 0.1 over HTTP always, gRPC when `--binding GRPC` asked
 * for it. The gRPC transport is loaded only then: grpc-js is an optional peer, and the other commands start
 * without it.
 */
import * as CliError from "effect/cli/CliError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as A2A01 from "../v0_1/A2A01.ts"

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

/**
 * The client transports a command needs: 1.0, 0.3 and 0.1 over HTTP always, gRPC when it was asked for.
 *
 * @since 0.1.0
 * @category utils
 */
export const forBinding = (binding: Option.Option<string>): Layer.Layer<never, CliError.CliError> =>
  Option.contains(binding, "GRPC") ? Layer.merge(A2A01.client, grpcClient) : A2A01.client
