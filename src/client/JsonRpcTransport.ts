/**
 * The JSON-RPC 2.0 binding (spec 9) at A2A 1.0: the operations of protocol/Operations over JsonRpcExchange (one
 * POST per call to the interface URL, streams as SSE), params encoded and results decoded with their Schemas.
 *
 * @example
 * ```ts
 * import { A2AClient, JsonRpcTransport } from "effect-a2a/client"
 *
 * // only JSON-RPC, whatever else the card offers
 * const client = A2AClient.resolve("https://agent.example.com", { transports: [JsonRpcTransport.factory] })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as v1 from "../protocol/generated/v1.ts"
import * as Operations from "../protocol/Operations.ts"
import type { A2AClientError } from "./A2AClientError.ts"
import * as Http from "./internal/HttpExchange.ts"
import * as JsonRpcExchange from "./internal/JsonRpcExchange.ts"
import type { Call, Transport, TransportFactory, TransportMethods } from "./Transport.ts"

/**
 * The protocol binding this transport speaks, as agent card interfaces name it.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_BINDING = "JSONRPC"

/**
 * A JSON-RPC transport to the interface at this URL.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly url: string
  readonly httpClient: HttpClient.HttpClient
  readonly protocolVersion?: string | undefined
}): Transport => {
  const rpc = JsonRpcExchange.make(options)
  const decodeEvent = Http.decode(v1.StreamResponse, "a StreamResponse event")

  /** One operation of the table, its params encoded and its result decoded with the operation's Schemas. */
  const method = (op: Operations.Any) => {
    const encode = Http.encode(op.request as Schema.Codec<unknown, unknown>, `${op.name} params`)
    if (op.streaming) {
      return (params: unknown, call: Call): Stream.Stream<v1.StreamResponse, A2AClientError> =>
        encode(params).pipe(
          Effect.map((encoded) => rpc.stream(op.name, encoded, call, decodeEvent)),
          Stream.unwrap
        )
    }
    // google.protobuf.Empty: any result (`{}`, null) is fine.
    const decode = op.response === Operations.Empty
      ? () => Effect.void
      : Http.decode(op.response as Schema.Codec<unknown, unknown>, `a ${op.name} result`)
    return (params: unknown, call: Call): Effect.Effect<unknown, A2AClientError> =>
      Effect.flatMap(encode(params), (encoded) => rpc.request(op.name, encoded, call, decode))
  }

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: options.protocolVersion ?? "1.0",
    url: options.url,
    // Each key gets the method of its own operation, so the record has the table's shape.
    ...(Object.fromEntries(Operations.all.map((op) => [op.key, method(op)])) as unknown as TransportMethods)
  }
}

/**
 * The transport factory of the JSON-RPC binding at A2A 1.0.
 *
 * @since 0.1.0
 * @category constructors
 */
export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: "1.0",
  make: ({ httpClient, url }) => make({ url, httpClient })
}
