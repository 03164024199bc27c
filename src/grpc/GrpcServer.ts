/**
 * The gRPC binding (spec 10): the eleven operations of `lf.a2a.v1.A2AService`, unary and server-streaming, on a
 * port of their own (@grpc/grpc-js), served by the same RequestHandler as the HTTP bindings. Each call
 * authenticates from its metadata (the Auth service, as headers), reads `a2a-version` (1.0 is served; none means
 * 0.3, spec 3.6.2, so it is refused with VersionNotSupported as the official SDK's server does) and `a2a-extensions`
 * (spec 10.2), decodes its request to ProtoJSON and validates it with the generated Schemas, and answers errors
 * with the table's gRPC status and a google.rpc.Status carrying ErrorInfo (and BadRequest) details (spec 10.6).
 * A call the client cancels interrupts its fiber, so a stream ends as an SSE stream does when its client leaves.
 * Its CallContext names the binding `GRPC`, so its spans and metrics say so (Observability), and a call refused
 * before its operation ran is counted as the HTTP bindings count theirs. With the A2A 1.1 draft on (A2A11) it
 * serves `a2a-version` 1.1 too, and its messages carry the draft's generation fields (see Draft11Proto).
 *
 * The server is a scoped resource: the layer binds the port, and closing its scope ends the open calls and stops
 * the server. With `tls` it serves gRPC over TLS, as the spec requires of production deployments (spec 7.1);
 * without, plaintext (for a TLS-terminating proxy in front, or development).
 *
 * @example
 * ```ts
 * import { GrpcServer } from "effect-a2a/grpc"
 * import { Effect } from "effect"
 *
 * // beside the HTTP server, with the same RequestHandler, Auth and AgentCardConfig
 * const grpc = GrpcServer.layer({ port: 50051 })
 * const port = Effect.map(Effect.service(GrpcServer.GrpcServer), (server) => server.port)
 * ```
 *
 * @since 0.1.0
 */
import * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as A2AError from "../protocol/A2AError.ts"
import * as Version from "../protocol/Version.ts"
import { A2A11 } from "../server/A2A11.ts"
import { AgentCardConfig } from "../server/AgentCardConfig.ts"
import { Auth } from "../server/Auth.ts"
import * as CallContext from "../server/CallContext.ts"
import type * as MethodTable from "../server/MethodTable.ts"
import { v11Methods, v1Methods } from "../server/MethodTable.ts"
import * as Observability from "../server/Observability.ts"
import { clientCertificateOf, type Principal } from "../server/Principal.ts"
import { RequestHandler } from "../server/RequestHandler.ts"
import type * as ServerTls from "../server/ServerTls.ts"
import * as ProtoJsonBinary from "./internal/ProtoJsonBinary.ts"
import * as RpcStatus from "./internal/RpcStatus.ts"
import * as Wire from "./internal/Wire.ts"

/**
 * Where and how the gRPC server listens.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The port to listen on; 0 picks a free one (see `GrpcServer.port`). */
  readonly port: number
  /** The address to listen on. Default: "0.0.0.0". */
  readonly host?: string | undefined
  /** How long a stop waits for calls to finish before it closes them. Default: 5 seconds. */
  readonly shutdownTimeout?: Duration.Input | undefined
  /** The largest request message accepted, in bytes. Default: 4 MiB (gRPC's). */
  readonly maxMessageBytes?: number | undefined
  /** Serve over TLS with this certificate and key. Default: plaintext. */
  readonly tls?: TlsOptions | undefined
}

/**
 * gRPC over TLS: the same options as the HTTPS server's (ServerTls); "request" asks for no client certificate here.
 *
 * @since 0.1.0
 * @category models
 */
export type TlsOptions = ServerTls.TlsOptions

const credentialsOf = (tls: TlsOptions | undefined): grpc.ServerCredentials =>
  tls === undefined
    ? grpc.ServerCredentials.createInsecure()
    : grpc.ServerCredentials.createSsl(
      tls.ca !== undefined ? Buffer.from(tls.ca) : null,
      [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(Redacted.value(tls.key)) }],
      tls.clientCertificates === "require"
    )

/**
 * The running server: where it listens.
 *
 * @since 0.1.0
 * @category services
 */
export class GrpcServer extends Context.Service<GrpcServer, {
  readonly host: string
  readonly port: number
}>()("effect-a2a/grpc/GrpcServer") {}

/**
 * The gRPC server could not start (the port is taken, the address is not one of this machine's).
 *
 * @since 0.1.0
 * @category errors
 */
export class GrpcServerError extends Schema.TaggedError<GrpcServerError>()("GrpcServerError", {
  message: Schema.String,
  /** The address and port it could not listen on, and Node's error code when there is one (EADDRINUSE…). */
  address: Schema.String,
  port: Schema.Number,
  code: Schema.optionalKey(Schema.String)
}) {}

/** Node's error code in grpc-js's bind error (it only keeps the messages). */
const codeOf = (message: string): { readonly code?: string } => {
  const code = /\b(E[A-Z]{3,})\b/.exec(message)?.[1]
  return code === undefined ? {} : { code }
}

/** Metadata as the lower-cased headers the Auth and the CallContext read (binary `-bin` entries left out). */
const headersOf = (metadata: grpc.Metadata): Record<string, string> => {
  const headers: Record<string, string> = {}
  const map = metadata.getMap()
  for (const key in map) {
    const value = map[key]
    if (typeof value === "string") headers[key] = value
  }
  return headers
}

/** The status a failed call ends with: the table's code, the message, the google.rpc.Status in the trailer. */
const statusOf = (error: A2AError.A2AError): Partial<grpc.StatusObject> => {
  const metadata = new grpc.Metadata()
  metadata.set(RpcStatus.DETAILS_KEY, Buffer.from(RpcStatus.encode(error)))
  const code = RpcStatus.codes[A2AError.errorTable[error._tag].grpcStatus as RpcStatus.CodeName] ??
    RpcStatus.codes.UNKNOWN
  return { code, details: error.message, metadata }
}

/** A failure's A2A error; a defect is an InternalError without its details (they stay in the server's log). */
const errorOf = (cause: Cause.Cause<A2AError.A2AError>): A2AError.A2AError => {
  const failure = Cause.findErrorOption(cause)
  return failure._tag === "Some" ? failure.value : new A2AError.InternalError({ message: "Internal error" })
}

/** A call that died (a bug, here or in the agent) is logged with its cause; the client only hears "Internal error". */
const logDefect = <A>(method: Wire.Method, exit: Exit.Exit<A, A2AError.A2AError>) =>
  Exit.isFailure(exit) && Cause.hasDies(exit.cause)
    ? Effect.logError(`gRPC ${method.operation.name} failed`, exit.cause)
    : Effect.void

/**
 * Ends a call with its outcome (run once, uninterruptibly, whatever the outcome): `succeed` with its value, `fail`
 * with the status of its error (a defect logged first), or UNAVAILABLE when the server's stop interrupted it and
 * the client is still there.
 */
const ending = <A>(
  method: Wire.Method,
  call: { readonly cancelled: boolean },
  succeed: (value: A) => void,
  fail: (status: Partial<grpc.StatusObject>) => void
) =>
(exit: Exit.Exit<A, A2AError.A2AError>): Effect.Effect<void> => {
  if (Exit.isSuccess(exit)) return Effect.sync(() => succeed(exit.value))
  if (Cause.hasInterruptsOnly(exit.cause)) {
    return Effect.sync(() => {
      if (!call.cancelled) fail({ code: grpc.status.UNAVAILABLE, details: "The server is stopping" })
    })
  }
  return Effect.andThen(logDefect(method, exit), Effect.sync(() => fail(statusOf(errorOf(exit.cause)))))
}

/** A call ready to run: its context, its operation, the response metadata to send first (if any). */
interface Prepared<Run> {
  readonly ctx: CallContext.CallContext
  readonly operation: Run
  readonly responseMetadata: grpc.Metadata | undefined
}

/** The binding as the card names it: what CallContext.binding says, so spans and metrics carry it. */
const BINDING = "GRPC"

const toBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * Serves A2AService until the scope closes. Needs the RequestHandler, the Auth and the AgentCardConfig the HTTP
 * bindings use (the last names the extensions the agent supports).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  options: Options
): Effect.fn.Return<GrpcServer["Service"], GrpcServerError, RequestHandler | Auth | AgentCardConfig | Scope.Scope> {
  const handler = yield* RequestHandler
  const auth = yield* Auth
  const card = yield* AgentCardConfig
  const refused = yield* Observability.refusals
  const supportedExtensions = new Set((card.capabilities.extensions ?? []).flatMap((e) => e.uri ?? []))
  const host = options.host ?? "0.0.0.0"
  const maxMessageBytes = options.maxMessageBytes ?? 4 * 1024 * 1024
  const converter = ProtoJsonBinary.make()
  // With the A2A 1.1 draft on, the messages carry its generation fields and `a2a-version: 1.1` is served too;
  // off, the descriptor and the versions are 1.0's alone, so the wire stays exactly 1.0's.
  const draft = (yield* A2A11).enabled
  const wireMethods = draft ? Wire.draft11Methods : Wire.methods
  const served = draft ? [v1Methods.version, v11Methods.version] : [v1Methods.version]

  const server = new grpc.Server({
    "grpc.max_receive_message_length": maxMessageBytes,
    // channelz (grpc-js's call statistics, read only through its admin service, which this server never adds)
    // costs every call a tracker and clock reads
    "grpc.enable_channelz": 0
  })

  /** The served version a call names (as over HTTP, none asks for 0.3, spec 3.6.2, which is not served here). */
  const versionOf = (raw: string | undefined) =>
    // the header every client of this service sends, without the general parse
    raw === v1Methods.version ? Result.succeed(v1Methods.version) : Version.negotiate(raw, served)

  /**
   * What runs before the operation, once the caller is authenticated: the version, the CallContext, the request
   * decoded (ProtoJSON) and validated by the operation's Schema. Plain code, no effect: the call's fiber runs it
   * as one step.
   */
  const prepareCall = <Run>(
    method: Wire.Method,
    prepare: (input: unknown) => Result.Result<Run, A2AError.A2AError>,
    request: Buffer,
    headers: Record<string, string>,
    principal: Principal
  ): Result.Result<Prepared<Run>, A2AError.A2AError> => {
    const version = versionOf(headers[Version.HEADER])
    if (Result.isFailure(version)) return Result.fail(version.failure)
    const ctx = CallContext.make({
      principal,
      binding: BINDING,
      requestedVersion: version.success,
      extensions: CallContext.parseExtensions(headers["a2a-extensions"]),
      headers
    })
    const input = Wire.toProtoJson(method.input, request, converter)
    if (!input.ok) return Result.fail(input.error)
    const operation = prepare(input.value)
    if (Result.isFailure(operation)) return Result.fail(operation.failure)
    return Result.succeed({ ctx, operation: operation.success, responseMetadata: responseMetadataOf(ctx) })
  }

  /** The extensions of the call this agent supports, echoed in the response metadata (spec 10.2). */
  const responseMetadataOf = (ctx: CallContext.CallContext): grpc.Metadata | undefined => {
    if (ctx.extensions.length === 0) return undefined
    const active = ctx.extensions.filter((uri) => supportedExtensions.has(uri))
    if (active.length === 0) return undefined
    const metadata = new grpc.Metadata()
    metadata.set("a2a-extensions", active.join(","))
    return metadata
  }

  /** Authenticate, then prepare: the call's context and operation, or the error to answer (counted as refused). */
  const setup = <Run>(
    method: Wire.Method,
    prepare: (input: unknown) => Result.Result<Run, A2AError.A2AError>,
    call: {
      readonly metadata: grpc.Metadata
      readonly request: Buffer
      readonly getAuthContext: grpc.ServerUnaryCall<Buffer, Buffer>["getAuthContext"]
    }
  ): Effect.Effect<Prepared<Run>, A2AError.A2AError> => {
    const headers = headersOf(call.metadata)
    // A peer certificate is there only when the TLS layer required and verified one (see TlsOptions).
    const peer = auth.readsClientCertificate === true ? call.getAuthContext().sslPeerCertificate : undefined
    const clientCertificate = peer === undefined ? undefined : clientCertificateOf(peer)
    const request = clientCertificate === undefined ? { headers } : { headers, clientCertificate }
    // suspended: an Auth of the user's that throws is a defect of this call, not of the server
    return Effect.suspend(() => auth.authenticate(request)).pipe(
      Effect.flatMap((principal) => Effect.fromResult(prepareCall(method, prepare, call.request, headers, principal))),
      Effect.tapError((error) => Effect.sync(() => refused(BINDING, error)))
    )
  }

  // The calls' fibers; created after the server's finalizer, so a stop first ends the calls, then the server.
  const stopTimeout = Duration.fromInputUnsafe(options.shutdownTimeout ?? Duration.seconds(5))
  yield* Effect.addFinalizer(() =>
    Effect.callback<void>((resume) => {
      server.tryShutdown(() => resume(Effect.void))
    }).pipe(
      Effect.timeoutOrElse({ duration: stopTimeout, orElse: () => Effect.sync(() => server.forceShutdown()) })
    )
  )
  const run = yield* FiberSet.makeRuntime<never, void, never>()

  const unary =
    (method: Wire.Method, op: MethodTable.Unary): grpc.handleUnaryCall<Buffer, Buffer> => (call, callback) => {
      const answer = ending<Buffer>(method, call, (value) => callback(null, value), (status) => callback(status))
      const fiber = run(
        setup(method, op.prepare, call).pipe(
          Effect.flatMap(({ ctx, operation, responseMetadata }) =>
            Effect.flatMap(operation(handler, ctx), (result) => {
              if (responseMetadata !== undefined) call.sendMetadata(responseMetadata)
              const out = Wire.fromProtoJson(method.output, result, converter)
              return out.ok ? Effect.succeed(toBuffer(out.bytes)) : Effect.fail(out.error)
            })
          ),
          Effect.onExit(answer),
          // the outcome is the call's answer: nothing is left for the FiberSet to record
          Effect.exit,
          Effect.asVoid
        )
      )
      call.on("cancelled", () => fiber.interruptUnsafe())
    }

  const streaming =
    (method: Wire.Method, op: MethodTable.Streaming): grpc.handleServerStreamingCall<Buffer, Buffer> => (call) => {
      const drained = Effect.callback<void>((resume) => {
        call.once("drain", () => resume(Effect.void))
      })
      const write = (event: unknown) => {
        const out = Wire.fromProtoJson(method.output, event, converter)
        if (!out.ok) return Effect.fail(out.error)
        return call.write(toBuffer(out.bytes)) ? Effect.void : drained
      }
      const answer = ending<void>(method, call, () => call.end(), (status) => {
        if (!call.cancelled) call.emit("error", status)
      })
      const fiber = run(
        setup(method, op.prepare, call).pipe(
          Effect.flatMap(({ ctx, operation, responseMetadata }) => {
            const events = operation(handler, ctx)
            if (responseMetadata !== undefined) call.sendMetadata(responseMetadata)
            return Stream.runForEach(events, write)
          }),
          Effect.onExit(answer),
          Effect.exit,
          Effect.asVoid
        )
      )
      call.on("cancelled", () => fiber.interruptUnsafe())
    }

  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {}
  const implementation: grpc.UntypedServiceImplementation = {}
  for (const method of wireMethods) {
    const name = method.operation.name
    definition[name] = {
      path: method.path,
      requestStream: false,
      responseStream: method.streaming,
      // the bytes go through as they are: decoding happens in the call, where a bad message is a typed error
      requestSerialize: (value: Buffer) => value,
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (value: Buffer) => value,
      responseDeserialize: (bytes: Buffer) => bytes,
      originalName: method.operation.key
    }
    const op = v1Methods.byName(name)
    implementation[name] = op._tag === "Streaming" ? streaming(method, op) : unary(method, op)
  }
  server.addService(definition, implementation)

  // A certificate or key TLS cannot use fails the bind, as an address in use does (GrpcServerError).
  const port = yield* Effect.callback<number, GrpcServerError>((resume) => {
    server.bindAsync(`${host}:${options.port}`, credentialsOf(options.tls), (error, port) => {
      resume(
        error === null
          ? Effect.succeed(port)
          : Effect.fail(
            new GrpcServerError({
              message: `gRPC server could not listen on ${host}:${options.port}: ${error.message}`,
              address: host,
              port: options.port,
              ...codeOf(error.message)
            })
          )
      )
    })
  })
  return { host, port }
})

/**
 * The gRPC server as a layer: bound when built, stopped when its scope closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<GrpcServer, GrpcServerError, RequestHandler | Auth | AgentCardConfig> =>
  Layer.effect(GrpcServer, make(options))
