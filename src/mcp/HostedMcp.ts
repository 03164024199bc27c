/**
 * One server, both protocols: the hosted agent also served as an MCP tool at `/mcp` (streamable HTTP) on the A2A
 * server's own port, behind the same Auth. An MCP request is authenticated from its HTTP headers exactly as an A2A
 * request is (a failure is the same 401 with its `WWW-Authenticate` challenge), and the tool calls the local
 * RequestHandler directly (LocalTransport) as that principal: no loopback HTTP, the same task ownership as over
 * A2A. The tool is named and described from the agent's card and behaves as a gateway tool (McpGateway):
 * progress notifications, cancellation, input-required / auth-required results with the task id.
 *
 * @example
 * ```ts
 * import { NodeA2AServer } from "effect-a2a/node"
 *
 * // the A2A bindings and the MCP endpoint at /mcp, on one port
 * const server = NodeA2AServer.serve({ port: 8080, mcp: true })
 * ```
 *
 * @since 0.1.0
 */
import * as McpServer from "effect/ai/McpServer"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as HttpErrors from "../http/internal/HttpErrors.ts"
import { AgentCardConfig } from "../server/AgentCardConfig.ts"
import { Auth, type AuthRequest } from "../server/Auth.ts"
import * as CallContext from "../server/CallContext.ts"
import { RequestHandler } from "../server/RequestHandler.ts"
import * as LocalTransport from "./internal/LocalTransport.ts"
import * as McpGateway from "./McpGateway.ts"
import * as ToolSet from "./ToolSet.ts"

/**
 * Options of the hosted MCP endpoint: its path and the bound on a tool call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Where the MCP endpoint is. Default "/mcp". */
  readonly path?: `/${string}` | undefined
  /** Longest a tool call may run; then its task is canceled and the call is a tool error. Default 10 minutes. */
  readonly callTimeout?: Duration.Input | undefined
}

/**
 * Where the MCP endpoint is served by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PATH = "/mcp"

/**
 * What Auth reads of an MCP request: its headers and query parameters (an API key may travel in either). A client
 * certificate is not read: an Auth that needs one (mTLS) refuses the MCP endpoint.
 */
const authRequest = (request: HttpServerRequest.HttpServerRequest): AuthRequest => {
  const query: Record<string, string> = {}
  const search = request.url.indexOf("?")
  if (search !== -1) {
    for (const [key, value] of new URLSearchParams(request.url.slice(search + 1))) query[key] ??= value
  }
  return { headers: request.headers, query }
}

/** Every request to the endpoint is authenticated first, as the A2A bindings do: a failure is their 401. */
const authenticated = HttpRouter.middleware(Effect.gen(function*() {
  const auth = yield* Auth
  return (app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* auth.authenticate(authRequest(request)).pipe(
        Effect.matchEffect({
          onFailure: (error) => Effect.succeed(HttpErrors.restError(error)),
          onSuccess: () => app
        })
      )
    })
}))

/** The hosted agent's tool on the McpServer in context. */
const register = (options: Options) =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const handlers = yield* RequestHandler
    const cards = yield* AgentCardConfig
    const auth = yield* Auth
    const card = cards.publicCard([])
    const toolName = ToolSet.toolName(card.name, "agent")
    const callTimeout = Duration.fromInputUnsafe(options.callTimeout ?? Duration.minutes(10))
    yield* server.addTool({
      tool: McpGateway.toolOf(toolName, card),
      annotations: Context.empty(),
      handle: (payload) =>
        Effect.gen(function*() {
          const input = yield* McpGateway.decodeArguments(toolName, payload)
          const request = yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest)
          const credentials: AuthRequest = Option.match(request, {
            onNone: () => ({ headers: {} }),
            onSome: authRequest
          })
          // The route let the request in; its principal scopes the task as over A2A.
          const principal = yield* auth.authenticate(credentials).pipe(Effect.option)
          if (Option.isNone(principal)) return McpGateway.toolError("Unauthenticated")
          const headers = credentials.headers
          const client = LocalTransport.client(
            card,
            handlers,
            CallContext.make({ principal: principal.value, headers, binding: "MCP" })
          )
          return yield* McpGateway.callAgent(client, toolName, input, callTimeout)
        }).pipe(Effect.provideService(McpServer.McpServer, server))
    })
  })

/**
 * The MCP endpoint of the hosted agent, on the HttpRouter in context (beside A2AHttp.routes).
 *
 * @since 0.1.0
 * @category routes
 */
export const routes = (options: Options = {}) =>
  McpServer.layerHttp({
    ...McpGateway.SERVER_INFO,
    path: options.path ?? DEFAULT_PATH,
    protocols: McpGateway.protocols,
    allowSessionTermination: true,
    registrations: Layer.effectDiscard(register(options))
  }).pipe(Layer.provide(authenticated.layer))
