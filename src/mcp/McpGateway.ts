/**
 * The MCP gateway: A2A agents served as MCP tools on Effect's `McpServer`, over stdio or streamable HTTP.
 *
 * - One tool per agent, described from its card (name, description, skills), taking `AgentCall.Input`. The cards
 *   are re-read on an interval and whenever the `a2a://agents` resource is read; an agent whose card cannot be
 *   read is reported (logged, and listed in that resource as down, or as card-invalid when it answered with a card
 *   that does not parse) while the others are served, and its tool appears once its card can be read.
 * - A call runs the A2A task (`AgentCall`): each status and artifact update is forwarded as an MCP progress
 *   notification when the client asked for progress; MCP cancellation interrupts the call, which cancels the A2A
 *   task. INPUT_REQUIRED and AUTH_REQUIRED are tool results that say so, with the task id to continue; a failed
 *   task, an A2A error or an unreachable agent is a tool error (`isError`) with the message.
 * - Each card is readable as an MCP resource at its own URL; `a2a://agents` lists every agent and its state.
 * - Credentials (GatewaySettings) go to the agents only: tool results and resources never carry them.
 *
 * @example
 * ```ts
 * import { McpGateway } from "effect-a2a/mcp"
 * import { NodeRuntime, NodeServices } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * // an MCP server on stdin/stdout, one tool per agent
 * McpGateway.layerStdio({ agents: [{ url: "http://127.0.0.1:8080" }] }).pipe(
 *   Layer.provide([NodeServices.layer, FetchHttpClient.layer]),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as McpProtocol from "effect/ai/McpProtocol"
import * as McpSchema from "effect/ai/McpSchema"
import * as McpServer from "effect/ai/McpServer"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as A2AClient from "../client/A2AClient.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as AgentCall from "./AgentCall.ts"
import * as AgentCatalog from "./AgentCatalog.ts"
import * as AgentTools from "./AgentTools.ts"

/**
 * Options of the gateway: the agents it serves, how often their cards are re-read, and the catalog's options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends AgentCatalog.Options {
  /** The agents to serve (GatewaySettings reads them from a settings file). */
  readonly agents: ReadonlyArray<AgentCatalog.AgentSettings>
  /** How often the cards are re-read. Default 60 seconds. */
  readonly refreshInterval?: Duration.Input | undefined
  /** Longest a tool call may run; then its A2A task is canceled and the call is a tool error. Default 10 minutes. */
  readonly callTimeout?: Duration.Input | undefined
}

/**
 * The MCP server's name and version, as told to clients.
 *
 * @since 0.1.0
 * @category constants
 */
export const SERVER_INFO = { name: "effect-a2a", version: "0.1.0" } as const

/**
 * The MCP protocol versions served, newest first (the official SDK clients speak these).
 *
 * @since 0.1.0
 * @category constants
 */
export const protocols = [
  McpProtocol.v2025_11_25,
  McpProtocol.v2025_06_18,
  McpProtocol.v2025_03_26,
  McpProtocol.v2024_11_05
] as const

/**
 * The resource listing every agent and its state.
 *
 * @since 0.1.0
 * @category constants
 */
export const CATALOG_URI = "a2a://agents"

const WELL_KNOWN = "/.well-known/agent-card.json"

/**
 * The card's own URL: the resource it is served as.
 *
 * @since 0.1.0
 * @category utils
 */
export const cardUri = (url: string): string => url.endsWith(".json") ? url : `${url.replace(/\/+$/, "")}${WELL_KNOWN}`

/** The input's JSON Schema with its root inline: MCP wants an object schema at the top, not a `$ref`. */
const inputSchema: McpSchema.ToolJson = (() => {
  const document = Schema.toJsonSchemaDocument(AgentCall.Input)
  const ref = document.schema.$ref
  const name = typeof ref === "string" && ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined
  const { [name ?? ""]: root, ...rest } = document.definitions
  const schema = root ?? document.schema
  return { ...schema, type: "object", ...(Object.keys(rest).length > 0 ? { $defs: rest } : {}) }
})()
const decodeInput = Schema.decodeUnknownEffect(AgentCall.Input)
const encodeOutcome = Schema.encodeSync(AgentCall.Outcome)

/**
 * The MCP tool of an agent: named `name`, described from its card, taking `AgentCall.Input`.
 *
 * @since 0.1.0
 * @category utils
 */
export const toolOf = (name: string, card: v1.AgentCard): McpSchema.Tool =>
  new McpSchema.Tool({
    name,
    title: card.name,
    description: AgentTools.describeAgent(card),
    inputSchema,
    annotations: { title: card.name, readOnlyHint: false, openWorldHint: true }
  })

const text = (value: string): McpSchema.ContentBlock => ({ type: "text", text: value })

/**
 * A tool error: the call failed, and `message` says why.
 *
 * @since 0.1.0
 * @category utils
 */
export const toolError = (message: string): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({ isError: true, content: [text(message)] })

const idsLine = (taskId: string, contextId: string | undefined) =>
  `taskId "${taskId}"${contextId !== undefined ? ` and contextId "${contextId}"` : ""}`

/**
 * An A2A outcome as an MCP tool result: text for the model, the outcome itself as structured content.
 *
 * @since 0.1.0
 * @category utils
 */
export const resultOf = (toolName: string, outcome: AgentCall.Outcome): McpSchema.CallToolResult => {
  const structuredContent = encodeOutcome(outcome)
  const extras = (data: ReadonlyArray<unknown>, files: ReadonlyArray<AgentCall.FileOutput>) => [
    ...data.map((value) => text(JSON.stringify(value))),
    ...files.map((file) =>
      text(`[file ${file.name ?? file.url ?? "(inline)"}${file.url !== undefined ? ` at ${file.url}` : ""}]`)
    )
  ]
  switch (outcome._tag) {
    case "Completed": {
      const content = [...(outcome.text !== "" ? [text(outcome.text)] : []), ...extras(outcome.data, outcome.files)]
      return new McpSchema.CallToolResult({
        content: content.length > 0 ? content : [text("The agent completed the task without output.")],
        structuredContent
      })
    }
    case "InputRequired":
      return new McpSchema.CallToolResult({
        content: [
          text(
            `The agent needs more input (task state input-required): ${outcome.question}\n` +
              `To answer, call ${toolName} again with ${idsLine(outcome.taskId, outcome.contextId)}.`
          ),
          ...extras(outcome.data, outcome.files)
        ],
        structuredContent
      })
    case "AuthRequired":
      return new McpSchema.CallToolResult({
        content: [
          text(
            `The agent needs authorization (task state auth-required): ${outcome.message}\n` +
              `Once authorized, call ${toolName} again with ${idsLine(outcome.taskId, outcome.contextId)}.`
          )
        ],
        structuredContent
      })
    case "Failed":
      return new McpSchema.CallToolResult({
        isError: true,
        content: [text(`The agent's task ended ${outcome.state}: ${outcome.message}`)],
        structuredContent
      })
  }
}

/**
 * One event of the A2A task, as a progress notification's message. `names` keeps the artifacts' names by id:
 * appended chunks usually carry the id only.
 *
 * @since 0.1.0
 * @category utils
 */
export const progressMessage = (event: v1.StreamResponse, names: Map<string, string>): string => {
  const partsText = (parts: ReadonlyArray<v1.Part>) =>
    parts.flatMap((part) => "text" in part ? [part.text] : []).join("")
  const state = (s: v1.TaskState) => s.replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-")
  if ("task" in event) return `task ${event.task.id}: ${state(event.task.status.state)}`
  if ("statusUpdate" in event) {
    const { status } = event.statusUpdate
    const said = status.message !== undefined ? partsText(status.message.parts) : ""
    return `${state(status.state)}${said !== "" ? `: ${said}` : ""}`
  }
  if ("artifactUpdate" in event) {
    const { artifact } = event.artifactUpdate
    if (artifact.name !== undefined) names.set(artifact.artifactId, artifact.name)
    return `artifact ${names.get(artifact.artifactId) ?? artifact.artifactId}: ${partsText(artifact.parts)}`
  }
  return `message: ${partsText(event.message.parts)}`
}

/**
 * A tool call's arguments as AgentCall's input; wrong ones are InvalidParams (a tool error the model can fix).
 *
 * @since 0.1.0
 * @category conversions
 */
export const decodeArguments = (
  toolName: string,
  payload: unknown
): Effect.Effect<AgentCall.Input, McpSchema.InvalidParams> =>
  decodeInput(payload).pipe(
    Effect.mapError((error) =>
      new McpSchema.InvalidParams({ message: `Invalid arguments for ${toolName}: ${error.message}` })
    )
  )

/**
 * One tool call of the agent behind `client`, inside an MCP request: the A2A task's events are progress
 * notifications when the request asked for progress, its outcome the tool result; an A2A error, a transport
 * failure or a call longer than `callTimeout` (whose task is then canceled) a tool error.
 *
 * @since 0.1.0
 * @category utils
 */
export const callAgent = (
  client: A2AClient.A2AClientShape,
  toolName: string,
  input: AgentCall.Input,
  callTimeout: Duration.Duration
): Effect.Effect<McpSchema.CallToolResult, never, McpServer.McpServer | McpSchema.McpRequestContext> =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const context = yield* McpSchema.McpRequestContext
    const progressToken = context.requestMetadata?.progressToken as McpSchema.ProgressToken | undefined
    let progress = 0
    const names = new Map<string, string>()
    const onEvent = progressToken === undefined ?
      undefined :
      (event: v1.StreamResponse) =>
        server.notifications["notifications/progress"]({
          progressToken,
          progress: ++progress,
          message: progressMessage(event, names)
        }).pipe(Effect.ignore)
    return yield* AgentCall.call(client, input, { onEvent }).pipe(
      Effect.timeoutOption(callTimeout),
      Effect.map((outcome) =>
        outcome._tag === "Some"
          ? resultOf(toolName, outcome.value)
          : toolError(
            `The agent ${toolName} did not finish within ${Duration.format(callTimeout)}; its task was canceled`
          )
      ),
      Effect.catch((error) => Effect.succeed(toolError(`The agent ${toolName} failed: ${error.message}`)))
    )
  })

const catalogText = (agents: ReadonlyArray<AgentCatalog.Agent>): string =>
  JSON.stringify(
    agents.map((agent) =>
      agent._tag === "Up"
        ? { url: agent.url, state: "up", tool: agent.toolName, name: agent.card.name }
        : {
          url: agent.url,
          state: agent.cardInvalid ? "card-invalid" : "down",
          tool: agent.toolName,
          reason: agent.reason
        }
    ),
    null,
    2
  )

/**
 * Registers the agents' tools and resources on the `McpServer` in context, and keeps them up to date (a refresh
 * on an interval) for as long as the scope lives.
 *
 * @since 0.1.0
 * @category utils
 */
export const register = (
  options: Options
): Effect.Effect<void, never, McpServer.McpServer | HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const catalog = yield* AgentCatalog.make(options.agents, options)
    const callTimeout = Duration.fromInputUnsafe(options.callTimeout ?? Duration.minutes(10))
    // What was registered, by URL: the card it was registered with (to re-register only what changed).
    const registered = new Map<string, v1.AgentCard>()
    // What was reported down, by URL: the reason (to log a change, not every refresh).
    const reported = new Map<string, string>()

    const call = (url: string, toolName: string) => (payload: unknown) =>
      Effect.gen(function*() {
        const input = yield* decodeArguments(toolName, payload)
        const known = (yield* catalog.agents).find((agent) => agent.url === url)!
        // A down agent is tried again now: it may be back.
        const agent = known._tag === "Up"
          ? known
          : yield* catalog.refreshAgent(url).pipe(Effect.tap((agent) => sync([agent])))
        if (agent._tag === "Down") {
          return toolError(
            agent.cardInvalid
              ? `The agent ${toolName} cannot be called, its card is invalid: ${agent.reason}`
              : `The agent ${toolName} is unreachable: ${agent.reason}`
          )
        }
        return yield* callAgent(agent.client, toolName, input, callTimeout)
      }).pipe(Effect.provideService(McpServer.McpServer, server))

    const cardResource = (agent: AgentCatalog.Up) =>
      server.addResource({
        resource: new McpSchema.Resource({
          uri: cardUri(agent.url),
          name: `${agent.toolName} agent card`,
          title: `${agent.card.name}: A2A agent card`,
          description: `The A2A agent card of ${agent.card.name} (tool ${agent.toolName})`,
          mimeType: "application/json"
        }),
        annotations: Context.empty(),
        handle: Effect.gen(function*() {
          const current = (yield* catalog.agents).find((a) => a.url === agent.url)
          const card = current?._tag === "Up" ? current.card : registered.get(agent.url)!
          return McpSchema.ReadResourceResult.make({
            contents: [{ uri: cardUri(agent.url), mimeType: "application/json", text: JSON.stringify(card, null, 2) }]
          })
        })
      })

    // Registers what is new or changed, and reports agents that went down or came back.
    function sync(agents: ReadonlyArray<AgentCatalog.Agent>): Effect.Effect<void> {
      return Effect.forEach(agents, (agent) =>
        Effect.gen(function*() {
          if (agent._tag === "Down") {
            if (reported.get(agent.url) !== agent.reason) {
              reported.set(agent.url, agent.reason)
              yield* Effect.logWarning(
                agent.cardInvalid
                  ? `A2A agent ${agent.url} answers, with an invalid card: ${agent.reason}`
                  : `A2A agent ${agent.url} is down: ${agent.reason}`
              )
            }
            return
          }
          if (reported.delete(agent.url)) yield* Effect.logInfo(`A2A agent ${agent.url} is up again`)
          const previous = registered.get(agent.url)
          if (previous !== undefined && JSON.stringify(previous) === JSON.stringify(agent.card)) return
          registered.set(agent.url, agent.card)
          yield* server.addTool({
            tool: toolOf(agent.toolName, agent.card),
            annotations: Context.empty(),
            handle: call(agent.url, agent.toolName)
          })
          if (previous === undefined) yield* cardResource(agent)
        }), { discard: true })
    }

    yield* server.addResource({
      resource: new McpSchema.Resource({
        uri: CATALOG_URI,
        name: "A2A agents",
        description: "Every A2A agent this gateway serves: its URL, tool name, and whether it is up (re-read now)",
        mimeType: "application/json"
      }),
      annotations: Context.empty(),
      handle: catalog.refresh.pipe(
        Effect.tap(sync),
        Effect.map((agents) =>
          McpSchema.ReadResourceResult.make({
            contents: [{ uri: CATALOG_URI, mimeType: "application/json", text: catalogText(agents) }]
          })
        )
      )
    })
    yield* catalog.refresh.pipe(Effect.flatMap(sync))
    const interval = Duration.fromInputUnsafe(options.refreshInterval ?? Duration.seconds(60))
    yield* catalog.refresh.pipe(
      Effect.flatMap(sync),
      Effect.repeat(Schedule.spaced(interval)),
      Effect.delay(interval),
      Effect.forkScoped
    )
  })

/**
 * The gateway's registrations, for an `McpServer` transport layer of your own.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<never, never, McpServer.McpServer | HttpClient.HttpClient> =>
  Layer.effectDiscard(register(options))

/**
 * The gateway over stdin / stdout: what an MCP client spawning `effect-a2a mcp` talks to.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (options: Options) =>
  McpServer.layerStdio({ ...SERVER_INFO, protocols, registrations: layer(options) })

/**
 * The gateway as a streamable HTTP endpoint at `path` (default `/mcp`) on the HttpRouter in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (options: Options & { readonly path?: HttpRouter.PathInput | undefined }) =>
  McpServer.layerHttp({
    ...SERVER_INFO,
    path: options.path ?? "/mcp",
    protocols,
    allowSessionTermination: true,
    registrations: layer(options)
  })
