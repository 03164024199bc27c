/**
 * `effect-a2a serve --model PROVIDER:MODEL`: an LLM agent (effect-a2a/ai's LlmAgent) on the model the spec names
 * (effect-a2a/ai-providers' ModelSpec: `openai:`, `anthropic:`, `openai-compat:`, keys and base URL from the
 * environment), with the system prompt of `--instructions FILE`, and the card from `--card FILE` (a JSON agent card
 * without its interfaces) under the flags `--name`, `--description` and `--skill "ID: DESCRIPTION"`. Both modules
 * are loaded here, when `--model` is given: a `serve` without it loads neither, nor any provider package.
 * The key, the base URL and the provider package are checked before the server starts; what is missing is one line.
 * With `--mcp-server "CMD ARGS"` (or an http(s) URL) and `--delegate URL` (both repeatable) the model's tools are
 * those MCP servers' and those A2A agents' (effect-a2a/mcp's Orchestrator, loaded only then).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import type { Server as McpServer } from "../mcp/McpTools.ts"
import type { CardTemplate } from "../server/AgentCardConfig.ts"
import type * as AgentExecutor from "../server/AgentExecutor.ts"
import * as AgentModule from "./AgentModule.ts"
import * as ServeFailure from "./ServeFailure.ts"

/**
 * The flags make no agent (a file that cannot be read, a bad card, ...). The message is one line.
 *
 * @since 0.1.0
 * @category errors
 */
export class ModelAgentError extends Schema.TaggedError<ModelAgentError>()("ModelAgentError", {
  message: Schema.String
}) {}

/**
 * The flags of `serve --model`: the model, its instructions, the card, skills, MCP servers
 * and agents to delegate to.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelFlags {
  readonly model: string
  readonly instructions?: string | undefined
  readonly card?: string | undefined
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly skills?: ReadonlyArray<string> | undefined
  /** MCP servers whose tools the model gets: a command line (stdio) or an http(s) URL (streamable HTTP). */
  readonly mcpServers?: ReadonlyArray<string> | undefined
  /** A2A agents the model may delegate to, by URL: one tool each, named from its card. */
  readonly delegates?: ReadonlyArray<string> | undefined
}

const readText = (flag: string, file: string) =>
  Effect.try({
    try: () => readFileSync(file, "utf8"),
    catch: (error) =>
      new ModelAgentError({
        message: `${flag} ${file}: ${
          Predicate.hasProperty(error, "code") && error.code === "ENOENT"
            ? "no such file"
            : Predicate.isError(error)
            ? error.message
            : String(error)
        }`
      })
  })

type Skill = CardTemplate["skills"][number]

/** `--skill "weather: Forecasts for a city"` -> a skill with that id and name, and that description. */
const parseSkill = (text: string): Effect.Effect<Skill, ModelAgentError> => {
  const colon = text.indexOf(":")
  const id = (colon < 0 ? text : text.slice(0, colon)).trim()
  const description = colon < 0 ? "" : text.slice(colon + 1).trim()
  return id === "" || description === ""
    ? Effect.fail(new ModelAgentError({ message: `--skill ${JSON.stringify(text)} is not "ID: DESCRIPTION"` }))
    : Effect.succeed({ id, name: id, description, tags: [id] })
}

/** The card an LLM agent gets when nothing says otherwise: named after its model, text in and out. */
const defaultCard = (spec: string, model: string): CardTemplate => ({
  name: model,
  description: `An LLM agent (${spec}), served by effect-a2a`,
  version: "0.0.0",
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "chat", name: "chat", description: `Answers in conversation, as ${model}`, tags: ["chat"] }]
})

const parseJson = (file: string, text: string) =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) =>
      new ModelAgentError({ message: `--card ${file} is not JSON: ${Predicate.isError(error) ? error.message : ""}` })
  })

/** The card: the default, then the card file, then the flags; checked as an agent card. */
const cardOf = (flags: ModelFlags, model: string) =>
  Effect.gen(function*() {
    const fromFile = flags.card === undefined ? {} : yield* parseJson(flags.card, yield* readText("--card", flags.card))
    const skills = yield* Effect.forEach(flags.skills ?? [], parseSkill)
    const overrides = {
      ...(flags.name !== undefined ? { name: flags.name } : {}),
      ...(flags.description !== undefined ? { description: flags.description } : {}),
      ...(skills.length > 0 ? { skills } : {})
    }
    const given = Predicate.isObject(fromFile) && !Array.isArray(fromFile) ? { ...fromFile, ...overrides } : fromFile
    return yield* AgentModule.checkCard(flags.card ?? "--model", defaultCard(flags.model, model), given).pipe(
      Effect.mapError((error) => new ModelAgentError({ message: error.message }))
    )
  })

/**
 * The agent of `serve --model`: the model's layer is built (key, package) before the server starts.
 *
 * @since 0.1.0
 * @category utils
 */
export const load = (flags: ModelFlags) =>
  Effect.gen(function*() {
    const { ModelSpec, AiSdkLanguageModel } = yield* Effect.promise(() => import("../ai-providers/index.ts"))
    const { LlmAgent } = yield* Effect.promise(() => import("../ai/index.ts"))
    const { model, secrets } = yield* ModelSpec.languageModel(flags.model)
    const instructions = flags.instructions === undefined
      ? undefined
      : yield* readText("--instructions", flags.instructions)
    const card = yield* cardOf(flags, model.modelId)
    const languageModel = AiSdkLanguageModel.layer(model, { secrets })
    const mcpServers = flags.mcpServers ?? []
    const delegates = flags.delegates ?? []
    if (mcpServers.length === 0 && delegates.length === 0) {
      const executor: Layer.Layer<AgentExecutor.AgentExecutor> = LlmAgent.layer({ instructions }).pipe(
        Layer.provide(languageModel)
      )
      return { card, executor }
    }
    const { McpTools, Orchestrator } = yield* Effect.promise(() => import("../mcp/index.ts"))
    const servers = yield* Effect.forEach(mcpServers, (line): Effect.Effect<McpServer, ModelAgentError> =>
      /^https?:\/\//.test(line) ? Effect.succeed({ url: line }) : Effect.mapError(
        Effect.fromResult(McpTools.parseCommand(line)),
        (error) =>
          new ModelAgentError({ message: `--mcp-server ${JSON.stringify(line)}: ${error.message}` })
      ))
    // the agents' cards are read and the MCP servers started when the server starts; a failure is one line
    const tools = Orchestrator.toolSet({ agents: delegates, mcpServers: servers }).pipe(
      Effect.mapError((error) =>
        new ModelAgentError({ message: `The tools of --delegate / --mcp-server: ${ServeFailure.describeOther(error)}` })
      )
    )
    const executor: Layer.Layer<AgentExecutor.AgentExecutor, ModelAgentError> = Layer.unwrap(
      Effect.map(tools, (set) =>
        Orchestrator.withTools({ instructions }, set))
    ).pipe(Layer.provide([languageModel, FetchHttpClient.layer, NodeServices.layer]))
    return { card, executor }
  })
