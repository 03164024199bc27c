/**
 * A server's TLS: its certificate and key, and whose client certificates it checks. One shape for every transport
 * that serves TLS (HTTPS in `effect-a2a/node`, gRPC in `effect-a2a/grpc`), so a deployment that serves both passes
 * the same value to each; `NodeA2AServer.serve` hands its `tls` to the gRPC server it starts.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import type { ServerTls } from "effect-a2a/server"
 *
 * declare const cert: string, key: string, ca: string
 * const tls: ServerTls.TlsOptions = { cert, key: Redacted.make(key), ca, clientCertificates: "require" }
 * const server = NodeA2AServer.serve({ port: 8443, grpcPort: 8444, tls })
 * ```
 *
 * @since 0.1.0
 */
import type * as Redacted from "effect/Redacted"

/**
 * Client certificates: "none" asks for none; "request" asks, and a client may still connect without one (a
 * certificate that does not verify is refused); "require" refuses a connection without a valid one. grpc-js cannot
 * ask for a certificate without requiring it, so a gRPC server takes "request" as "none".
 *
 * @since 0.1.0
 * @category models
 */
export type ClientCertificates = "none" | "request" | "require"

/**
 * The server's certificate and key (PEM), and whose client certificates it checks.
 *
 * @since 0.1.0
 * @category models
 */
export interface TlsOptions {
  /** The certificate chain, PEM. */
  readonly cert: string
  /** The private key, PEM. */
  readonly key: Redacted.Redacted<string>
  /** CA certificates (PEM) that client certificates must chain to; default Node's trusted roots. */
  readonly ca?: string | undefined
  /** Default "none"; see ClientCertificates. */
  readonly clientCertificates?: ClientCertificates | undefined
}
