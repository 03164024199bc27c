/**
 * Tools found at run time (remote A2A agents, the tools of MCP servers) with their handlers: a `Toolkit` and the
 * context holding its handlers, so the same set serves `LanguageModel.generateText` (`bind`) and an LLM agent
 * (`LlmAgent`'s `toolkit`, with `layer` provided). Sets merge into one, so a model can use the tools of several
 * agents and MCP servers in one turn.
 *
 * @example
 * ```ts
 * import { AgentTools, McpTools, ToolSet } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const answer = Effect.gen(function*() {
 *   const agents = yield* AgentTools.toolkit(["http://127.0.0.1:8080"])
 *   const memory = yield* McpTools.fromServer({ command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] })
 *   const tools = yield* ToolSet.merge(agents, memory)
 *   const response = yield* LanguageModel.generateText({ prompt: "Plan my week", toolkit: ToolSet.bind(tools) })
 *   return response.text
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

type AnyTools = Record<string, Tool.Any>

/**
 * The handlers of a set's tools, as a context (keyed by tool, as Effect's toolkits find them).
 *
 * @since 0.1.0
 * @category models
 */
export type Handlers = Tool.HandlersFor<AnyTools>

/**
 * A toolkit and its handlers.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolSet {
  readonly toolkit: Toolkit.Toolkit<AnyTools>
  readonly handlers: Context.Context<Handlers>
}

/**
 * The handler of one tool: its parameters, as decoded by the tool's parameters schema, in.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler = Toolkit.HandlersFrom<AnyTools>[string]

/**
 * Two tools of one set with the same name.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateToolName extends Schema.TaggedError<DuplicateToolName>()("DuplicateToolName", {
  name: Schema.String,
  message: Schema.String
}) {}

const MAX_NAME = 64

/**
 * A valid tool name (`[a-zA-Z0-9_-]{1,64}`) from free text: runs of other characters become `_`.
 *
 * @since 0.1.0
 * @category utils
 */
export const toolName = (text: string, fallback = "tool"): string => {
  const name = text.trim().replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, MAX_NAME)
  return name === "" ? fallback : name
}

/**
 * `prefix__suffix` as a valid tool name, the prefix shortened so the suffix stays whole.
 *
 * @since 0.1.0
 * @category utils
 */
export const qualified = (prefix: string, suffix: string): string => {
  const tail = toolName(suffix).slice(0, MAX_NAME - 3)
  return `${toolName(prefix).slice(0, MAX_NAME - 2 - tail.length)}__${tail}`
}

const duplicate = (name: string) =>
  new DuplicateToolName({
    name,
    message: `Two tools are named "${name}": give their agents or servers distinct names or prefixes`
  })

/**
 * Each tool with its handler. Fails on a name given twice.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  entries: ReadonlyArray<{ readonly tool: Tool.Any; readonly handler: Handler }>
): Effect.Effect<ToolSet, DuplicateToolName> =>
  Effect.gen(function*() {
    const handlers: { [name: string]: Handler } = {}
    for (const { handler, tool } of entries) {
      if (Object.hasOwn(handlers, tool.name)) return yield* duplicate(tool.name)
      handlers[tool.name] = handler
    }
    const toolkit: Toolkit.Toolkit<AnyTools> = Toolkit.make(...entries.map((entry) => entry.tool))
    return { toolkit, handlers: yield* toolkit.toHandlers(handlers) }
  })

/**
 * Sets as one. Fails on a name held by two of them.
 *
 * @since 0.1.0
 * @category utils
 */
export const merge = (...sets: ReadonlyArray<ToolSet>): Effect.Effect<ToolSet, DuplicateToolName> =>
  Effect.gen(function*() {
    const names = new Set<string>()
    for (const set of sets) {
      for (const name of Object.keys(set.toolkit.tools)) {
        if (names.has(name)) return yield* duplicate(name)
        names.add(name)
      }
    }
    return {
      toolkit: Toolkit.merge(...sets.map((set) => set.toolkit)) as Toolkit.Toolkit<AnyTools>,
      handlers: sets.reduce(
        (all, set) => Context.merge(all, set.handlers),
        Context.empty() as Context.Context<Handlers>
      )
    }
  })

/**
 * The toolkit with its handlers bound, as `LanguageModel.generateText({ toolkit })` takes it.
 *
 * @since 0.1.0
 * @category utils
 */
export const bind = (set: ToolSet): Effect.Effect<Toolkit.WithHandler<AnyTools>> =>
  Effect.provideContext(set.toolkit, set.handlers)

/**
 * The handlers as a layer, for where the toolkit is used (e.g. an LLM agent given `set.toolkit`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (set: ToolSet): Layer.Layer<Handlers> => Layer.succeedContext(set.handlers)
