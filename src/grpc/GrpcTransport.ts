/**
 * The client side of the gRPC binding (spec 10): a Transport for A2AClient that calls `lf.a2a.v1.A2AService`
 * with @grpc/grpc-js. Requests are encoded with the generated Schemas to ProtoJSON and written as protobuf from the
 * descriptor; answers are read back the same way, so the client sees the same values, the same typed errors
 * (from the status and its google.rpc.Status ErrorInfo detail) and the same Streams as over JSON-RPC or HTTP+JSON.
 *
 * The client picks gRPC when the agent's card lists a `GRPC` interface before the others (or when it is asked to,
 * with `bindings: ["GRPC"]`) once the factory is in play: provide `GrpcTransport.layer` (the client then knows
 * gRPC besides its default transports), or pass `factory` among `transports`. The channels it opens are closed
 * with the layer's (or the factory's) scope.
 *
 * An interface URL is a gRPC target: `host:port` as the official SDKs list it, or a URL whose scheme says
 * plaintext (`grpc://`, `http://`) or TLS (`grpcs://`, `https://`).
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { GrpcTransport } from "effect-a2a/grpc"
 * import { Effect } from "effect"
 *
 * // a client that also speaks gRPC, chosen when the card lists it first
 * const client = A2AClient.resolve("http://localhost:8080").pipe(Effect.provide(GrpcTransport.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { BindingTransports } from "../client/A2AClient.ts"
import { type A2AClientError, A2AResponseError, A2ATransportError } from "../client/A2AClientError.ts"
import type { Call, Transport, TransportFactory, TransportMethods } from "../client/Transport.ts"
import * as A2AError from "../protocol/A2AError.ts"
import * as Operations from "../protocol/Operations.ts"
import * as ProtoJsonBinary from "./internal/ProtoJsonBinary.ts"
import * as RpcStatus from "./internal/RpcStatus.ts"
import * as Wire from "./internal/Wire.ts"

/**
 * The protocol binding this transport serves, as an agent card's interfaces name it.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_BINDING = "GRPC"

/**
 * A gRPC target and whether it is reached over TLS, from an interface URL.
 *
 * @since 0.1.0
 * @category utils
 */
export const targetOf = (url: string): { readonly target: string; readonly tls: boolean } | undefined => {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
  if (scheme === undefined) return url.trim() === "" ? undefined : { target: url.trim(), tls: false }
  if (!["grpc", "grpcs", "http", "https"].includes(scheme)) return undefined
  try {
    const parsed = new URL(url)
    const tls = scheme === "grpcs" || scheme === "https"
    const port = parsed.port !== "" ? parsed.port : tls ? "443" : "80"
    return { target: `${parsed.hostname}:${port}`, tls }
  } catch {
    return undefined
  }
}

const toBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
const identity = (bytes: Buffer): Buffer => bytes

/** The A2A error of a failed call: the typed one its status names, or a transport error when the call never ran. */
const errorOf = (error: grpc.ServiceError | grpc.StatusObject, method: Wire.Method, url: string, started: boolean) => {
  const raw = error.metadata?.get(RpcStatus.DETAILS_KEY)[0]
  const status = raw instanceof Buffer ? RpcStatus.decode(raw) : undefined
  const hasReason = status?.details.some((d) => d["@type"] === A2AError.ERROR_INFO_TYPE) ?? false
  const transport = (reason: "Unreachable" | "Timeout" | "ConnectionLost") =>
    new A2ATransportError({ reason, method: method.operation.name, url, message: `${method.path}: ${error.details}` })
  if (!hasReason) {
    if (error.code === grpc.status.UNAVAILABLE) return transport(started ? "ConnectionLost" : "Unreachable")
    if (error.code === grpc.status.DEADLINE_EXCEEDED) return transport("Timeout")
    if (error.code === grpc.status.CANCELLED) return transport("ConnectionLost")
  }
  return A2AError.fromGrpcStatus(RpcStatus.nameOf(error.code), error.details ?? "", status?.details ?? [])
}

const metadataOf = (call: Call): grpc.Metadata => {
  const metadata = new grpc.Metadata()
  for (const [key, value] of Object.entries(call.headers)) {
    // HTTP-only headers mean nothing to gRPC (and some are reserved by HTTP/2)
    if (key === "content-type" || key === "accept" || key === "user-agent" || key === "host") continue
    metadata.set(key, value)
  }
  return metadata
}

/**
 * A transport over one gRPC client (one channel to the target).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly url: string
  readonly client: grpc.Client
  readonly protocolVersion?: string | undefined
}): Transport => {
  const { client, url } = options
  const converter = ProtoJsonBinary.make()

  const method = (op: Operations.Any) => {
    // the A2A 1.1 draft's descriptor: a server that keeps generations sends them (whatever version was asked),
    // a 1.0 server sends none, and a request without the draft's fields is the same bytes as 1.0's
    const wire = Wire.draft11ByName.get(op.name)!
    const encodeRequest = Schema.encodeUnknownEffect(op.request as Schema.Codec<unknown, unknown>)
    const decodeAnswer = op.response === Operations.Empty
      ? () => Effect.void
      : Schema.decodeUnknownEffect(op.response as Schema.Codec<unknown, unknown>)
    const request = (params: unknown) =>
      encodeRequest(params).pipe(
        Effect.mapError((e) => new A2AError.InvalidParams({ message: `Invalid ${op.name} params: ${e.message}` })),
        Effect.flatMap((json) => {
          const out = Wire.fromProtoJson(wire.input, json, converter)
          return out.ok
            ? Effect.succeed(toBuffer(out.bytes))
            : Effect.fail(
              new A2ATransportError({ reason: "EncodeFailed", method: op.name, url, message: out.error.message })
            )
        })
      )
    const answer = (bytes: Buffer): Effect.Effect<unknown, A2AResponseError> => {
      const json = Wire.toProtoJson(wire.output, bytes, converter)
      const mismatch = (message: string) =>
        new A2AResponseError({ reason: "SchemaMismatch", method: op.name, url, status: 0, message })
      if (!json.ok) return Effect.fail(mismatch(json.error.message))
      return decodeAnswer(json.value).pipe(
        Effect.mapError((e) => mismatch(`Invalid ${wire.output.typeName} from ${url}: ${e.message}`))
      )
    }

    if (wire.streaming) {
      return (params: unknown, call: Call): Stream.Stream<unknown, A2AClientError> =>
        Stream.unwrap(
          Effect.map(request(params), (bytes) =>
            Stream.callback<Buffer, A2AClientError>((queue) =>
              Effect.acquireRelease(
                Effect.sync(() => {
                  let started = false
                  const stream = client.makeServerStreamRequest(
                    wire.path,
                    identity,
                    identity,
                    bytes,
                    metadataOf(call)
                  )
                  stream.on("metadata", () => started = true)
                  stream.on("data", (chunk: Buffer) => {
                    started = true
                    Queue.offerUnsafe(queue, chunk)
                  })
                  stream.on("error", (error: grpc.ServiceError) => {
                    Queue.failCauseUnsafe(queue, Cause.fail(errorOf(error, wire, url, started)))
                  })
                  stream.on("end", () => Queue.endUnsafe(queue))
                  return stream
                }),
                (stream) => Effect.sync(() => stream.cancel())
              )
            ).pipe(Stream.mapEffect(answer)))
        )
    }
    return (params: unknown, call: Call): Effect.Effect<unknown, A2AClientError> =>
      Effect.flatMap(request(params), (bytes) =>
        Effect.callback<Buffer, A2AClientError>((resume) => {
          const callOptions: grpc.CallOptions = call.timeout === undefined
            ? {}
            : { deadline: Date.now() + Duration.toMillis(call.timeout) }
          const pending = client.makeUnaryRequest(
            wire.path,
            identity,
            identity,
            bytes,
            metadataOf(call),
            callOptions,
            (error, value) => {
              if (error !== null) resume(Effect.fail(errorOf(error, wire, url, true)))
              else if (value === undefined) {
                resume(Effect.fail(
                  new A2AResponseError({ reason: "SchemaMismatch", method: op.name, url, status: 0, message: "empty" })
                ))
              } else resume(Effect.succeed(value))
            }
          )
          return Effect.sync(() => pending.cancel())
        }).pipe(Effect.flatMap(answer)))
  }

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: options.protocolVersion ?? "1.0",
    url,
    // Each key gets the method of its own operation, so the record has the table's shape.
    ...(Object.fromEntries(Operations.all.map((op) => [op.key, method(op)])) as unknown as TransportMethods)
  }
}

/**
 * How the client's TLS channels (`grpcs://`, `https://` interfaces) authenticate: the CAs the server's certificate
 * must chain to (default Node's trusted roots, or the file `GRPC_DEFAULT_SSL_ROOTS_FILE_PATH` names), and a client
 * certificate for servers that require one (mutual TLS).
 *
 * @since 0.1.0
 * @category models
 */
export interface TlsOptions {
  /** CA certificates, PEM. */
  readonly ca?: string | undefined
  /** The client's certificate chain, PEM (with `key`). */
  readonly cert?: string | undefined
  /** The client's private key, PEM (with `cert`). */
  readonly key?: Redacted.Redacted<string> | undefined
}

const tlsCredentials = (tls: TlsOptions): grpc.ChannelCredentials =>
  grpc.credentials.createSsl(
    tls.ca !== undefined ? Buffer.from(tls.ca) : null,
    tls.key !== undefined ? Buffer.from(Redacted.value(tls.key)) : null,
    tls.cert !== undefined ? Buffer.from(tls.cert) : null
  )

/**
 * A factory whose gRPC clients (one per interface it is asked for) are closed when the scope closes. An interface
 * URL that is no gRPC target gives a transport whose calls fail with InvalidUrl.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFactory: Effect.Effect<TransportFactory, never, Scope.Scope> = Effect.suspend(() =>
  makeFactoryWith({})
)

/**
 * `makeFactory`, with TLS settings for its TLS channels.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFactoryWith = (
  options: { readonly tls?: TlsOptions | undefined }
): Effect.Effect<TransportFactory, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Built once: a key without its certificate (or the reverse) is a mistake in the program, not in a call.
    const secure = yield* Effect.try({
      try: () => tlsCredentials(options.tls ?? {}),
      catch: (cause) => new Error(`GrpcTransport TLS settings: ${cause instanceof Error ? cause.message : cause}`)
    }).pipe(Effect.orDie)
    const clients = new Map<string, grpc.Client>()
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const client of clients.values()) client.close()
        clients.clear()
      })
    )
    const clientFor = (target: { readonly target: string; readonly tls: boolean }) => {
      const key = `${target.tls ? "tls" : "plain"} ${target.target}`
      let client = clients.get(key)
      if (client === undefined) {
        const credentials = target.tls ? secure : grpc.credentials.createInsecure()
        client = new grpc.Client(target.target, credentials)
        clients.set(key, client)
      }
      return client
    }
    return {
      protocolBinding: PROTOCOL_BINDING,
      protocolVersion: "1.0",
      target: (interfaceUrl) => targetOf(interfaceUrl) === undefined ? undefined : interfaceUrl,
      make: ({ interface: iface }) => {
        const target = targetOf(iface.url)
        if (target === undefined) return invalid(iface.url)
        return make({ url: iface.url, client: clientFor(target) })
      }
    }
  })

const invalid = (url: string): Transport => {
  const fail = (op: Operations.Any) => {
    const error = new A2ATransportError({
      reason: "InvalidUrl",
      method: op.name,
      url,
      message: `${url} is not a gRPC target (host:port, grpc://, grpcs://)`
    })
    return op.streaming ? () => Stream.fail(error) : () => Effect.fail(error)
  }
  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: "1.0",
    url,
    ...(Object.fromEntries(Operations.all.map((op) => [op.key, fail(op)])) as unknown as TransportMethods)
  }
}

/**
 * The client knows gRPC besides its default transports while this layer lives (its channels close with it).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = Layer.effect(
  BindingTransports,
  Effect.map(makeFactory, (factory) => [factory])
)

/**
 * `layer`, with TLS settings for its TLS channels (a private CA, a client certificate).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: { readonly tls?: TlsOptions | undefined }): Layer.Layer<never> =>
  Layer.effect(BindingTransports, Effect.map(makeFactoryWith(options), (factory) => [factory]))
