// The gateway in one program: an echo agent and a gateway (its registry in memory) on free ports of 127.0.0.1. The
// agent is registered through the admin API, found in the catalog by its skill tag, and called through the front door.
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer, Redacted, Schema } from "effect"
import { A2AClient, Messages } from "effect-a2a/client"
import { Gateway } from "effect-a2a/gateway"
import { A2AHttp } from "effect-a2a/http"
import { A2AServer, AgentExecutor, Auth } from "effect-a2a/server"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpClientResponse, HttpRouter, HttpServer } from "effect/http"
import { createServer } from "node:http"

const ADMIN_TOKEN = "admin-s3cret"

// Serves routes on a free port of 127.0.0.1 until the program ends; its base URL.
const listen = <E, R>(routes: Layer.Layer<never, E, R>) =>
  HttpRouter.serve(routes, { disableListenLog: true, disableLogger: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
    Layer.build,
    Effect.flatMap((services) => Effect.provideContext(HttpServer.addressFormattedWith(Effect.succeed), services))
  )

const echoAgent = A2AHttp.routes().pipe(
  Layer.provide(A2AServer.layer({
    card: {
      name: "Echo agent",
      description: "Repeats what you say",
      version: "1.0.0",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
    },
    executor: AgentExecutor.replyWithText((text) => `You said: ${text}`)
  }))
)

// The gateway: admin API behind its token, callers not authenticated (Auth.none), registry in memory.
const gateway = Gateway.routes({ adminToken: Redacted.make(ADMIN_TOKEN) }).pipe(
  Layer.provide(Gateway.layerMemory),
  Layer.provide(Layer.succeed(Auth.Auth, Auth.none))
)

const Registered = Schema.Struct({ name: Schema.String, url: Schema.String, kind: Schema.String })
const Catalog = Schema.Struct({ agents: Schema.Array(Schema.Struct({ name: Schema.String, url: Schema.String })) })

const program = Effect.gen(function*() {
  const agentUrl = yield* listen(echoAgent)
  const gatewayUrl = yield* listen(gateway)
  const http = yield* HttpClient.HttpClient

  // POST /admin/agents: the gateway fetches the card and names the agent after it
  const registered = yield* HttpClientRequest.post(`${gatewayUrl}/admin/agents`).pipe(
    HttpClientRequest.bearerToken(ADMIN_TOKEN),
    HttpClientRequest.bodyJsonUnsafe({ url: agentUrl }),
    http.execute,
    Effect.flatMap(HttpClientResponse.filterStatusOk),
    Effect.flatMap(HttpClientResponse.schemaBodyJson(Registered))
  )
  yield* Console.log(`registered ${registered.name} (${registered.kind})`)

  // GET /agents?skill=demo: the catalog, the agents this caller may see with a skill tagged "demo"
  const catalog = yield* http.get(`${gatewayUrl}/agents?skill=demo`).pipe(
    Effect.flatMap(HttpClientResponse.schemaBodyJson(Catalog))
  )
  yield* Console.log(`catalog: ${catalog.agents.map((agent) => agent.name).join(", ")}`)

  // the front door: the agent at /agents/{name}, spoken to as any A2A agent
  const client = yield* A2AClient.resolve(`${gatewayUrl}/agents/${registered.name}`)
  const reply = yield* client.sendMessage({ message: Messages.userText("hello") })
  yield* Console.log("message" in reply ? Messages.textOf(reply.message.parts) : `task ${reply.task.id}`)
})

program.pipe(
  Effect.scoped,
  Effect.provide(FetchHttpClient.layer),
  NodeRuntime.runMain
)
