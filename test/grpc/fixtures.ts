/**
 * Our gRPC server on 127.0.0.1 (port 0) over the demo agent's in-memory core, for the gRPC tests.
 */
import * as grpc from "@grpc/grpc-js"
import { Context, Duration, Effect, Layer, Logger, type Scope } from "effect"
import * as GrpcServer from "../../src/grpc/GrpcServer.ts"
import * as ProtoJsonBinary from "../../src/grpc/internal/ProtoJsonBinary.ts"
import * as RpcStatus from "../../src/grpc/internal/RpcStatus.ts"
import * as Wire from "../../src/grpc/internal/Wire.ts"
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

// --- a bare @grpc/grpc-js client: bytes in, status and google.rpc.Status out ---

const identity = (b: Buffer) => b

/** What a raw gRPC call answered: its status code and message, its google.rpc.Status, its bytes. */
export interface Answer {
  readonly code: number
  readonly details: string
  readonly status: RpcStatus.Status | undefined
  readonly value: Buffer | undefined
  readonly metadata: grpc.Metadata | undefined
}

/** One unary call with raw bytes and metadata; the status, its decoded google.rpc.Status and the answer. */
export const unary = (
  target: string,
  name: string,
  bytes: Uint8Array,
  metadata: Record<string, string> = { "a2a-version": "1.0" }
) =>
  Effect.acquireUseRelease(
    Effect.sync(() => new grpc.Client(target, grpc.credentials.createInsecure())),
    (client) =>
      Effect.callback<Answer>((resume) => {
        const md = new grpc.Metadata()
        for (const [k, v] of Object.entries(metadata)) md.set(k, v)
        let received: grpc.Metadata | undefined
        const call = client.makeUnaryRequest(
          `/lf.a2a.v1.A2AService/${name}`,
          identity,
          identity,
          Buffer.from(bytes),
          md,
          (error, value) => {
            const raw = error?.metadata.get(RpcStatus.DETAILS_KEY)[0]
            resume(Effect.succeed({
              code: error?.code ?? 0,
              details: error?.details ?? "",
              status: raw instanceof Buffer ? RpcStatus.decode(raw) : undefined,
              value,
              metadata: received
            }))
          }
        )
        call.on("metadata", (m) => received = m)
      }),
    (client) => Effect.sync(() => client.close())
  )

/** A request's bytes from its ProtoJSON form. */
export const encode = (name: string, json: unknown) => {
  const out = Wire.fromProtoJson(Wire.byName.get(name as "GetTask")!.input, json, ProtoJsonBinary.make())
  if (!out.ok) throw new Error(out.error.message)
  return out.bytes
}

/** The ErrorInfo reason of a failed call. */
export const reasonOf = (answer: Answer) =>
  answer.status?.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")?.["reason"]
