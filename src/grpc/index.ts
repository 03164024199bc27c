/**
 * effect-a2a/grpc: the gRPC binding of A2A 1.0 (`lf.a2a.v1.A2AService`, spec 10), server and client. The only
 * entry point that loads @grpc/grpc-js and @bufbuild/protobuf (optional peers): install them to use it.
 *
 * @example
 * ```ts
 * import { GrpcServer } from "effect-a2a/grpc"
 *
 * // serve the operations over gRPC on port 50051, beside the HTTP bindings, from the same RequestHandler
 * const grpc = GrpcServer.layer({ port: 50051 })
 * ```
 *
 * @since 0.1.0
 */
export * as GrpcServer from "./GrpcServer.ts"
export * as GrpcTransport from "./GrpcTransport.ts"
