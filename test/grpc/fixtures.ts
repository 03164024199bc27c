/**
 * Our gRPC server on 127.0.0.1 (port 0) over the demo agent's in-memory core, for the gRPC tests.
 */
import { Context, Duration, Effect, Layer, Logger, type Scope } from "effect"
import * as GrpcServer from "../../src/grpc/GrpcServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import type { CardTemplate } from "../../src/server/AgentCardConfig.ts"
import type * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"

export interface Started {
  /** `127.0.0.1:<port>`: a gRPC target */
  readonly target: string
  readonly port: number
}

export interface StartOptions {
  readonly auth?: Auth.Auth["Service"] | undefined
  readonly card?: CardTemplate | undefined
  readonly extendedCard?: CardTemplate | undefined
  /** Wraps the RequestHandler (to watch what the binding does with it). */
  readonly wrap?: ((handler: RequestHandler["Service"]) => RequestHandler["Service"]) | undefined
}

export const startDemo = (options: StartOptions = {}): Effect.Effect<Started, never, Scope.Scope> =>
  Effect.gen(function*() {
    const core = A2AServer.layer({
      card: options.card ?? DemoAgent.card,
      extendedCard: options.extendedCard,
      executor: DemoAgent.make({ stepDelay: Duration.millis(2), slowSteps: 100_000 }),
      auth: options.auth
    })
    const wrap = options.wrap ?? ((handler) => handler)
    const handler = Layer.effect(RequestHandler, Effect.map(RequestHandler, wrap))
    const layer = GrpcServer.layer({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(handler),
      Layer.provide(core),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const server = Context.get(context, GrpcServer.GrpcServer)
    return { target: `127.0.0.1:${server.port}`, port: server.port }
  })

/** A card naming only our gRPC interface at `target` (streaming on), for a client made straight from it. */
export const grpcCard = (target: string) => ({
  name: "ours",
  description: "",
  version: "1",
  supportedInterfaces: [{ url: target, protocolBinding: "GRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true },
  defaultInputModes: [],
  defaultOutputModes: [],
  skills: []
})
