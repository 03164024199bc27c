/**
 * The gateway's registry served over MCP: one tool per registered A2A agent (named as the agent is at the gateway,
 * described from its card, taking `AgentCall.Input`, as `effect-a2a mcp` serves a fixed list), on Effect's
 * `McpServer`, as streamable HTTP at `/mcp` on the gateway's own server (`Gateway.routes` mounts it) or over stdio
 * (`effect-a2a gateway --stdio`).
 *
 * - The tools follow the registry: an agent registered or removed on this node, or on another node of a PostgreSQL
 *   registry (heard by LISTEN/NOTIFY), is added or withdrawn at once, and connected clients get
 *   `notifications/tools/list_changed` (over stdio always; over streamable HTTP, Effect's transport answers GET
 *   with 405 and has no standalone stream, so the clients with a request open get it on that request's stream, and
 *   the others see the change on their next `tools/list`). A change made by another node on a store that announces
 *   nothing (SQLite) is picked up when a client next lists the tools (an agent removed there is gone from that
 *   list; one added there is announced by `list_changed`), and otherwise within the refresh interval.
 * - A call is forwarded as `effect-a2a mcp` forwards it: the A2A task's updates are MCP progress notifications when
 *   the client asked for progress, MCP cancellation cancels the A2A task, a task needing input or authorization is
 *   a result that says so, with the task id to continue; failures are tool errors, the agent's secrets masked.
 * - Access over HTTP: callers are authenticated with the gateway's Auth; an agent with an `allow` list is listed to,
 *   and callable by, only the principals it names (for anyone else its tool does not exist), and calls need an
 *   authenticated caller. Over stdio the caller is whoever started the process, on the registry's store and with
 *   its keys: the local operator, who sees every agent.
 * - REST passthrough agents are served at the front door only: they are not A2A agents to call as tools.
 *
 * @example
 * ```ts
 * import { GatewayRegistry, GatewayStore, RegistryMcp } from "effect-a2a/gateway"
 * import { Auth } from "effect-a2a/server"
 * import { NodeRuntime, NodeServices } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * // every agent of the registry as an MCP tool, on stdin/stdout (the local operator: no caller to authenticate)
 * RegistryMcp.layerStdio().pipe(
 *   Layer.provide(GatewayRegistry.layer().pipe(Layer.provide(GatewayStore.layerMemory))),
 *   Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
 *   Layer.provide([NodeServices.layer, FetchHttpClient.layer]),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as McpSchema from "effect/ai/McpSchema"
import * as McpServer from "effect/ai/McpServer"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as McpGateway from "../mcp/McpGateway.ts"
import { Auth, type Principal } from "../server/Auth.ts"
import { mayCall } from "./FrontDoor.ts"
import * as GatewayCredentials from "./GatewayCredentials.ts"
import { type Agent, GatewayRegistry } from "./GatewayRegistry.ts"

/**
 * Options of the registry's MCP server.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Longest a tool call may run; then its A2A task is canceled and the call is a tool error. Default 10 minutes. */
  readonly callTimeout?: Duration.Input | undefined
  /** How often the registry is read again for changes made by other nodes. Default 10 seconds. */
  readonly refreshInterval?: Duration.Input | undefined
  /**
   * Every caller sees and may call every agent (stdio: the caller started the process). Default false: callers are
   * authenticated with the Auth in context and each agent's `allow` list applies.
   */
  readonly trusted?: boolean | undefined
}

/**
 * The name of a tool that is never listed nor callable: listing the tools checks it first, which reads the registry
 * again, so that changes made by other nodes are seen even when this node serves no tool yet.
 *
 * @since 0.2.0
 * @category constants
 */
export const SYNC_TOOL = "effect-a2a-gateway-sync"

/** What is served for an agent: enough to tell whether its registration changed, and who may call it. */
interface Served {
  readonly allow: ReadonlyArray<string> | undefined
  readonly signature: string
}

const signatureOf = (agent: Agent) => JSON.stringify([agent.registeredAt, agent.allow, agent.card])

const unauthenticated = new McpSchema.InvalidRequest({
  message: "Authentication required: send the gateway's credentials (e.g. Authorization: Bearer ...)"
})

/**
 * The registrations of the registry's tools, on the `McpServer` in context, kept in step with the registry for as
 * long as the layer lives; callers are authenticated with the Auth in context (unless `trusted`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<never, never, McpServer.McpServer | GatewayRegistry | Auth> =>
  Layer.suspend(() => {
    const served = new Map<string, Served>()
    // every tool name ever registered here: one no longer served is withdrawn, anything else is not this layer's
    const registered = new Set<string>()
    const callTimeout = Duration.fromInputUnsafe(options.callTimeout ?? Duration.minutes(10))
    const interval = Duration.fromInputUnsafe(options.refreshInterval ?? Duration.seconds(10))

    const register = Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      const registry = yield* GatewayRegistry
      const permit = yield* Semaphore.make(1)

      const call = (name: string) => (payload: unknown) =>
        Effect.gen(function*() {
          const input = yield* McpGateway.decodeArguments(name, payload)
          const stored = yield* registry.lookup(name)
          if (Option.isNone(stored)) return McpGateway.toolError(`The agent ${name} is no longer registered`)
          const connected = yield* registry.connect(stored.value)
          const result = yield* McpGateway.callAgent(connected.client, name, input, callTimeout)
          return result.isError === true ? masked(result, connected.secrets) : result
        }).pipe(
          Effect.catchTag(
            "RegistryUnavailable",
            (error) => Effect.succeed(McpGateway.toolError(`The agent ${name} cannot be called: ${error.message}`))
          ),
          Effect.provideService(McpServer.McpServer, server)
        )

      // Serves what the registry holds now: new or changed agents (re)registered, removed ones withdrawn.
      const sync = permit.withPermit(Effect.gen(function*() {
        const agents = (yield* registry.list).filter((agent) => agent.kind === "a2a")
        const names = new Set(agents.map((agent) => agent.name))
        let withdrawn = false
        for (const name of [...served.keys()]) {
          if (!names.has(name)) {
            served.delete(name)
            withdrawn = true
          }
        }
        for (const agent of agents) {
          const signature = signatureOf(agent)
          if (served.get(agent.name)?.signature === signature) continue
          served.set(agent.name, { allow: agent.allow, signature })
          registered.add(agent.name)
          // addTool tells the connected clients the list changed
          yield* server.addTool({
            tool: McpGateway.toolOf(agent.name, agent.card),
            annotations: Context.empty(),
            handle: call(agent.name)
          })
        }
        // a withdrawn tool stays registered, hidden: McpServer has no removal, so the clients are told here
        if (withdrawn) yield* server.notifications["notifications/tools/list_changed"]({})
      })).pipe(
        Effect.catchTag(
          "RegistryUnavailable",
          (error) => Effect.logWarning(`Gateway MCP: the registry cannot be read: ${error.message}`)
        )
      )

      yield* server.addTool({
        tool: new McpSchema.Tool({ name: SYNC_TOOL, inputSchema: { type: "object" } }),
        annotations: Context.empty(),
        handle: () => Effect.succeed(McpGateway.toolError("not a tool"))
      })
      // subscribed before the first reading, so that no change falls between the two
      yield* registry.changes.pipe(Stream.runForEach(() => sync), Effect.forkScoped)
      yield* Effect.yieldNow
      yield* sync
      yield* sync.pipe(Effect.repeat(Schedule.spaced(interval)), Effect.delay(interval), Effect.forkScoped)
      return sync
    })

    return Layer.unwrap(Effect.gen(function*() {
      const auth = yield* Auth
      const principalOf = (headers: Readonly<Record<string, string>>) =>
        Effect.map(Effect.option(auth.authenticate({ headers, query: {} })), Option.getOrUndefined)
      const sync = yield* register
      const visibility = McpServer.visibility((request) =>
        Effect.gen(function*() {
          if (request.target === SYNC_TOOL) {
            // listing reads the registry again, first, through this hidden tool's check
            if (request.method === "tools/list") yield* sync
            return false
          }
          const agent = served.get(request.target)
          if (agent === undefined) return !registered.has(request.target)
          if (options.trusted === true) return true
          const principal: Principal | undefined = yield* principalOf(request.headers)
          if (request.method === "tools/call" && principal === undefined && mayCall(agent, principal)) {
            return yield* Effect.fail(unauthenticated)
          }
          return mayCall(agent, principal)
        }), { global: true })
      return visibility
    }))
  })

/** The tool error with the agent's secrets masked (an upstream error may echo what it was sent). */
const masked = (result: McpSchema.CallToolResult, secrets: ReadonlyArray<string>): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({
    ...result,
    content: result.content.map((block) =>
      block.type === "text" ? { ...block, text: GatewayCredentials.mask(block.text, secrets) } : block
    )
  })

/**
 * The registry's MCP server as a streamable HTTP endpoint at `path` (default `/mcp`) on the HttpRouter in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerHttp = (options: Options & { readonly path?: HttpRouter.PathInput | undefined } = {}) =>
  McpServer.layerHttp({
    ...McpGateway.SERVER_INFO,
    path: options.path ?? "/mcp",
    protocols: McpGateway.protocols,
    allowSessionTermination: true,
    registrations: layer(options)
  })

/**
 * The registry's MCP server over stdin / stdout, for the local operator (every agent visible): what an MCP client
 * spawning `effect-a2a gateway --stdio` talks to.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerStdio = (options: Omit<Options, "trusted"> = {}) =>
  McpServer.layerStdio({
    ...McpGateway.SERVER_INFO,
    protocols: McpGateway.protocols,
    registrations: layer({ ...options, trusted: true })
  })
