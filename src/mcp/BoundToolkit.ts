/**
 * Toolkits with their handlers bound (`Toolkit.WithHandler`), as `LanguageModel.generateText({ toolkit })` takes
 * them: made from tools discovered at run time (remote agents, MCP servers), and merged into one, so a model can
 * use the tools of several agents and MCP servers in one turn.
 *
 * @example
 * ```ts
 * import { AgentTools, BoundToolkit, McpTools } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 *
 * const toolkit = Effect.gen(function*() {
 *   const agents = yield* AgentTools.toolkit(["http://127.0.0.1:8080"])
 *   const files = yield* McpTools.fromServer({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] })
 *   return yield* BoundToolkit.merge(agents, files)
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as AiError from "effect/ai/AiError"
import type * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** A toolkit with its handlers bound. */
export type BoundToolkit = Toolkit.WithHandler<Record<string, Tool.Any>>

/** The handler of one tool: its parameters, as decoded by the tool's parameters schema, in. */
export type Handler = Toolkit.HandlersFrom<Record<string, Tool.Any>>[string]

/** Two tools of one toolkit with the same name. */
export class DuplicateToolName extends Schema.TaggedError<DuplicateToolName>()("DuplicateToolName", {
  name: Schema.String,
  message: Schema.String
}) {}

const MAX_NAME = 64

/** A valid tool name (`[a-zA-Z0-9_-]{1,64}`) from free text: runs of other characters become `_`. */
export const toolName = (text: string, fallback = "tool"): string => {
  const name = text.trim().replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, MAX_NAME)
  return name === "" ? fallback : name
}

/** `prefix__suffix` as a valid tool name, the prefix shortened so the suffix stays whole. */
export const qualified = (prefix: string, suffix: string): string => {
  const tail = toolName(suffix).slice(0, MAX_NAME - 3)
  return `${toolName(prefix).slice(0, MAX_NAME - 2 - tail.length)}__${tail}`
}

/** Binds each tool to its handler. Fails on a name given twice. */
export const make = (
  entries: ReadonlyArray<{ readonly tool: Tool.Any; readonly handler: Handler }>
): Effect.Effect<BoundToolkit, DuplicateToolName> =>
  Effect.gen(function*() {
    const handlers: { [name: string]: Handler } = {}
    for (const { handler, tool } of entries) {
      if (Object.hasOwn(handlers, tool.name)) return yield* duplicate(tool.name)
      handlers[tool.name] = handler
    }
    const toolkit = Toolkit.make(...entries.map((entry) => entry.tool))
    return yield* toolkit.pipe(Effect.provideContext(yield* toolkit.toHandlers(handlers)))
  })

const duplicate = (name: string) =>
  new DuplicateToolName({
    name,
    message: `Two tools are named "${name}": give their agents or servers distinct names or prefixes`
  })

/** Bound toolkits as one: each call goes to the toolkit holding the tool. Fails on a name held by two of them. */
export const merge = (...toolkits: ReadonlyArray<BoundToolkit>): Effect.Effect<BoundToolkit, DuplicateToolName> =>
  Effect.gen(function*() {
    const owner = new Map<string, BoundToolkit>()
    const tools: Record<string, Tool.Any> = {}
    for (const bound of toolkits) {
      for (const [name, tool] of Object.entries(bound.tools)) {
        if (owner.has(name)) return yield* duplicate(name)
        owner.set(name, bound)
        tools[name] = tool
      }
    }
    const merged: BoundToolkit = {
      tools,
      handle: (name, params, toolCallId, options) => {
        const bound = owner.get(name)
        return bound !== undefined ? bound.handle(name, params, toolCallId, options) : Effect.fail(
          AiError.make({
            module: "BoundToolkit",
            method: `${name}.handle`,
            reason: new AiError.ToolNotFoundError({ toolName: name, availableTools: [...owner.keys()] })
          })
        )
      }
    }
    return merged
  })
