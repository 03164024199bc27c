/**
 * The official @a2a-js/sdk agent (SdkAgent) served over gRPC by the SDK's own gRPC service (@grpc/grpc-js), on
 * 127.0.0.1 and an ephemeral port, beside its JSON-RPC interface. Its card, served over HTTP, lists gRPC first.
 */
import { AgentCard } from "@a2a-js/sdk"
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from "@a2a-js/sdk/server/grpc"
import * as grpc from "@grpc/grpc-js"
import { Context, Effect, Layer, type Scope } from "effect"
import * as SdkAgent from "../SdkAgent.ts"

export interface SdkGrpcServer {
  /** Base URL of the HTTP side (the card is at /.well-known/agent-card.json). */
  readonly url: string
  /** The gRPC interface's URL as the card lists it: `127.0.0.1:<port>`. */
  readonly grpcUrl: string
  readonly jsonRpcUrl: string
}

const bindGrpc = Effect.acquireRelease(
  Effect.callback<{ readonly server: grpc.Server; readonly port: number }>((resume) => {
    const server = new grpc.Server()
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
      resume(error === null ? Effect.succeed({ server, port }) : Effect.die(error))
    })
  }),
  ({ server }) => Effect.sync(() => server.forceShutdown())
)

/** Starts both for the scope. */
export const start: Effect.Effect<SdkGrpcServer, never, Scope.Scope> = Effect.gen(function*() {
  const { port, server } = yield* bindGrpc
  const grpcUrl = `127.0.0.1:${port}`
  return yield* SdkAgent.listen((app, url) => {
    const card = AgentCard.fromJSON({
      name: "SDK gRPC Interop Agent",
      description: "An agent built with @a2a-js/sdk, served over gRPC",
      version: "1.2.3",
      supportedInterfaces: [
        { url: grpcUrl, protocolBinding: "GRPC", protocolVersion: "1.0" },
        { url: `${url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }
      ],
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes text", tags: ["echo"] }]
    })
    const handler = new DefaultRequestHandler(
      card,
      new InMemoryTaskStore(),
      SdkAgent.executor({ completedMessage: "done" }),
      undefined,
      new InMemoryPushNotificationStore()
    )
    server.addService(
      A2AService,
      grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication })
    )
    app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: async () => card }))
    app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
    return { url, grpcUrl, jsonRpcUrl: `${url}/a2a/jsonrpc` }
  })
})

export class SdkGrpcPeer extends Context.Service<SdkGrpcPeer, SdkGrpcServer>()("test/interop/client/SdkGrpcPeer") {
  static readonly layer = Layer.effect(SdkGrpcPeer, start)
}
