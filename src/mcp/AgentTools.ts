/**
 * Remote A2A agents as Effect AI tools: from an agent's URL, card or client, a `Tool` with its handler, named and
 * described from the card (one tool per agent, or one per skill), in a `ToolSet` (a toolkit and its handlers) for
 * `LanguageModel.generateText` or an LLM agent. The model fills in the message (`AgentCall.Input`);
 * the tool sends it (streaming when the agent can) and returns the outcome: the final text, data and files, or
 * what the agent asks and the task id to answer with. A failed task, an A2A error, an unreachable agent or a
 * timeout is a tool failure the model reads (`AgentToolError`); a timeout or an abandoned call cancels the task.
 *
 * The client's options apply: credentials, card verification (the CardVerifier in context, `verifyCard`),
 * timeouts, bindings. `toolkit` makes one toolkit of several agents; `ToolSet.merge` adds other bound toolkits
 * (e.g. the tools of MCP servers, `McpTools`).
 *
 * @example
 * ```ts
 * import { AgentTools, ToolSet } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const agents = yield* AgentTools.toolkit([
 *     "http://127.0.0.1:8080",
 *     { url: "https://weather.example.com", credentials: { bearer: "s3cret" }, timeout: "1 minute" }
 *   ])
 *   const toolkit = ToolSet.bind(agents)
 *   const response = yield* LanguageModel.generateText({ prompt: "Plan my trip to Paris", toolkit })
 *   return response.text
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Tool from "effect/ai/Tool"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Schema from "effect/Schema"
import * as A2AClient from "../client/A2AClient.ts"
import type { A2AClientError, A2AResolveError } from "../client/A2AClientError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as AgentCall from "./AgentCall.ts"
import * as ToolSet from "./ToolSet.ts"

/**
 * Why a tool call of an agent failed, said so that a model can act on it: the task failed, was rejected or
 * canceled; the agent answered with an A2A error (`code` is its name, e.g. TaskNotFound); it could not be reached
 * or sent something that is not A2A; or the call ran out of time (the task was then canceled).
 *
 * @since 0.1.0
 * @category errors
 */
export class AgentToolError extends Schema.TaggedError<AgentToolError>()("AgentToolError", {
  /** The agent's name, from its card. */
  agent: Schema.String,
  reason: Schema.Literals([
    "TaskFailed",
    "TaskRejected",
    "TaskCanceled",
    "A2AError",
    "Unreachable",
    "BadResponse",
    "Timeout"
  ]),
  /** The A2A error's name, for reason A2AError. */
  code: Schema.optionalKey(Schema.String),
  taskId: Schema.optionalKey(Schema.String),
  contextId: Schema.optionalKey(Schema.String),
  message: Schema.String
}) {}

/**
 * What a successful tool call returns to the model: the answer, or what the agent needs to go on.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Result = Schema.Union([AgentCall.Completed, AgentCall.InputRequired, AgentCall.AuthRequired])
/**
 * The type of a decoded `Result`.
 *
 * @since 0.1.0
 * @category models
 */
export type Result = typeof Result.Type

/**
 * The tool of an agent (or of one of its skills).
 *
 * @since 0.1.0
 * @category models
 */
export type AgentTool = Tool.Tool<string, {
  readonly parameters: typeof AgentCall.Input
  readonly success: typeof Result
  readonly failure: typeof AgentToolError
  readonly failureMode: "return"
}>

/**
 * How an agent becomes tools: one per agent or one per skill, and the call's options.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolOptions {
  /** One tool per skill of the card instead of one for the agent. Default false. */
  readonly perSkill?: boolean | undefined
  /**
   * The tool's name (per agent), or the prefix of the skills' tool names (per skill). Default: the card's name.
   * Names are made valid tool names (letters, digits, `_` and `-`, at most 64).
   */
  readonly name?: string | undefined
  /** The tool's description (per agent). Default: from the card, its description and skills. */
  readonly description?: string | undefined
  /** Bound on a whole call; when it passes the remote task is canceled and the tool fails with Timeout. */
  readonly callTimeout?: Duration.Input | undefined
  /** Options of each call: streaming, accepted output modes, metadata, per-event callback. */
  readonly call?: AgentCall.Options | undefined
}

/**
 * An agent for `toolkit`: its URL (resolved with the options), a client, or a URL or card with options.
 *
 * @since 0.1.0
 * @category models
 */
export type Agent =
  | string
  | A2AClient.A2AClientShape
  | (A2AClient.ResolveOptions & ToolOptions & { readonly url: string })
  | (A2AClient.Options & ToolOptions & { readonly card: v1.AgentCard })
  | (ToolOptions & { readonly client: A2AClient.A2AClientShape })

/**
 * A tool's description from an agent's card: what it does, its skills, how to answer a question it asks.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeAgent = (card: v1.AgentCard): string => {
  const skills = card.skills.map((skill) => `- ${skill.name}: ${skill.description}${examples(skill)}`)
  return [
    `Sends a message to the A2A agent "${card.name}" and returns its answer. ${card.description}`,
    skills.length > 0 ? `Skills:\n${skills.join("\n")}` : "",
    "If the agent asks for more input, answer with the same taskId."
  ].filter((line) => line !== "").join("\n")
}

const describeSkill = (card: v1.AgentCard, skill: v1.AgentSkill): string =>
  `Sends a message to the A2A agent "${card.name}" for its skill "${skill.name}": ${skill.description}${
    examples(skill)
  }\nIf the agent asks for more input, answer with the same taskId.`

const examples = (skill: v1.AgentSkill): string =>
  skill.examples !== undefined && skill.examples.length > 0
    ? ` (e.g. ${skill.examples.map((e) => JSON.stringify(e)).join(", ")})`
    : ""

/** A tool call's error for the model. */
const toToolError = (agent: string, error: A2AClientError): AgentToolError => {
  switch (error._tag) {
    case "A2ATransportError":
      return new AgentToolError({
        agent,
        reason: error.reason === "Timeout" ? "Timeout" : "Unreachable",
        message: `The agent "${agent}" could not be reached: ${error.message}`
      })
    case "A2AResponseError":
      return new AgentToolError({
        agent,
        reason: "BadResponse",
        message: `The agent "${agent}" sent a response that is not A2A: ${error.message}`
      })
    default:
      return new AgentToolError({
        agent,
        reason: "A2AError",
        code: error._tag,
        message: `The agent "${agent}" answered with the error ${error._tag}: ${error.message}`
      })
  }
}

const failedReason = { failed: "TaskFailed", rejected: "TaskRejected", canceled: "TaskCanceled" } as const

/**
 * The handler of an agent's tool: one AgentCall, its outcome as the tool's result or failure.
 *
 * @since 0.1.0
 * @category tools
 */
export const handler = (client: A2AClient.A2AClientShape, options: ToolOptions = {}) => {
  const agent = client.card.name
  const timeout = options.callTimeout !== undefined ? Duration.fromInputUnsafe(options.callTimeout) : undefined
  return (input: AgentCall.Input): Effect.Effect<Result, AgentToolError> => {
    const called = AgentCall.call(client, input, options.call).pipe(
      Effect.mapError((error) => toToolError(agent, error)),
      Effect.flatMap((outcome): Effect.Effect<Result, AgentToolError> =>
        outcome._tag !== "Failed" ? Effect.succeed(outcome) : Effect.fail(
          new AgentToolError({
            agent,
            reason: failedReason[outcome.state],
            ...(outcome.taskId !== undefined ? { taskId: outcome.taskId } : {}),
            ...(outcome.contextId !== undefined ? { contextId: outcome.contextId } : {}),
            message: `The agent "${agent}" ${
              outcome.state === "failed" ? "failed" : outcome.state
            } the task: ${outcome.message}`
          })
        )
      )
    )
    return timeout === undefined ? called : Effect.timeoutOrElse(called, {
      duration: timeout,
      orElse: () =>
        Effect.fail(
          new AgentToolError({
            agent,
            reason: "Timeout",
            message: `The agent "${agent}" did not answer within ${Duration.format(timeout)}; its task was canceled.`
          })
        )
    })
  }
}

const makeTool = (name: string, description: string): AgentTool =>
  Tool.make(name, {
    description,
    parameters: AgentCall.Input,
    success: Result,
    failure: AgentToolError,
    failureMode: "return"
  }).annotate(Tool.OpenWorld, true)
    // optional fields: the strict JSON Schema mode of some providers would require them all
    .annotate(Tool.Strict, false)

/**
 * The tools of one agent (one, or one per skill), each with its name and description.
 *
 * @since 0.1.0
 * @category tools
 */
export const tools = (client: A2AClient.A2AClientShape, options: ToolOptions = {}): ReadonlyArray<AgentTool> => {
  const card = client.card
  if (options.perSkill !== true) {
    return [
      makeTool(ToolSet.toolName(options.name ?? card.name, "agent"), options.description ?? describeAgent(card))
    ]
  }
  return card.skills.map((skill) =>
    makeTool(ToolSet.qualified(options.name ?? card.name, skill.id), describeSkill(card, skill))
  )
}

/**
 * The tools of one agent (client) bound to their handler.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = (
  client: A2AClient.A2AClientShape,
  options: ToolOptions = {}
): Effect.Effect<ToolSet.ToolSet, ToolSet.DuplicateToolName> => bind([{ client, options }])

const bind = (
  agents: ReadonlyArray<{ readonly client: A2AClient.A2AClientShape; readonly options: ToolOptions }>
) =>
  ToolSet.make(agents.flatMap(({ client, options }) => {
    const handle = handler(client, options)
    // the toolkit decoded the parameters with the tool's schema, AgentCall.Input, before calling the handler
    const bound: ToolSet.Handler = (params) => handle(params as AgentCall.Input)
    return tools(client, options).map((tool) => ({ tool, handler: bound }))
  }))

/** Resolves an agent into a client with its tool options. */
const resolveAgent = (
  agent: Agent
): Effect.Effect<
  { readonly client: A2AClient.A2AClientShape; readonly options: ToolOptions },
  A2AResolveError,
  HttpClient.HttpClient
> => {
  if (typeof agent === "string") return Effect.map(A2AClient.resolve(agent), (client) => ({ client, options: {} }))
  // a client first: it has a `url` too
  if ("interface" in agent) return Effect.succeed({ client: agent, options: {} })
  if ("client" in agent) return Effect.succeed({ client: agent.client, options: agent })
  if ("url" in agent) return Effect.map(A2AClient.resolve(agent.url, agent), (client) => ({ client, options: agent }))
  return Effect.map(A2AClient.make(agent.card, agent), (client) => ({ client, options: agent }))
}

/**
 * The tools of an agent from its URL: the card is fetched (and verified) with the client options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromUrl = <E = never>(
  url: string,
  options: A2AClient.ResolveOptions<E> & ToolOptions = {}
): Effect.Effect<
  ToolSet.ToolSet,
  A2AResolveError | E | ToolSet.DuplicateToolName,
  HttpClient.HttpClient
> => Effect.flatMap(A2AClient.resolve(url, options), (client) => fromClient(client, options))

/**
 * One toolkit of the tools of several agents (their cards resolved one after the other, in order).
 *
 * @since 0.1.0
 * @category tools
 */
export const toolkit = (
  agents: ReadonlyArray<Agent>
): Effect.Effect<
  ToolSet.ToolSet,
  A2AResolveError | ToolSet.DuplicateToolName,
  HttpClient.HttpClient
> => Effect.flatMap(Effect.forEach(agents, resolveAgent), bind)
