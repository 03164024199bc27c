/**
 * The agents a gateway serves, read from their cards: each configured URL is an agent that is up (its card read,
 * a client made for it) or down (why its card could not be read). A down agent is reported, never fatal: the
 * others are served, and it is tried again on the next refresh. Each agent gets a tool name the first time its
 * card is read (from the card's name, made unique), kept for as long as the catalog lives so MCP clients can rely on
 * it across refreshes.
 *
 * @example
 * ```ts
 * import { AgentCatalog } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const catalog = yield* AgentCatalog.make([{ url: "http://127.0.0.1:8080" }])
 *   for (const agent of yield* catalog.refresh) console.log(agent.url, agent._tag)
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as A2AClient from "../client/A2AClient.ts"
import type * as Credentials from "../client/Credentials.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as ToolSet from "./ToolSet.ts"

/**
 * One agent the gateway is told to serve.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentSettings {
  /** The agent's base URL (its card at /.well-known/agent-card.json) or its card's URL. */
  readonly url: string
  /** Credentials by the card's security scheme names; sent to the agent only, never shown to MCP clients. */
  readonly credentials?: Credentials.Credentials | undefined
}

/**
 * An agent whose card was read.
 *
 * @since 0.1.0
 * @category models
 */
export interface Up {
  readonly _tag: "Up"
  readonly url: string
  readonly toolName: string
  readonly card: v1.AgentCard
  readonly client: A2AClient.A2AClientShape
}

/**
 * An agent whose card could not be read; `toolName` is kept from an earlier read, if any.
 *
 * @since 0.1.0
 * @category models
 */
export interface Down {
  readonly _tag: "Down"
  readonly url: string
  readonly toolName: string | undefined
  readonly reason: string
  /**
   * The agent answered, with a card that does not parse (A2AAgentCardInvalid): it is up, its card is wrong, and
   * it is reported so, not as unreachable.
   *
   * @since 0.2.0
   */
  readonly cardInvalid: boolean
}

/**
 * An agent of the catalog: up (its card read) or down (why not).
 *
 * @since 0.1.0
 * @category models
 */
export type Agent = Up | Down

/**
 * The configured agents and their cards, re-read on demand.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentCatalog {
  /** The agents as last read, in the order they were configured. */
  readonly agents: Effect.Effect<ReadonlyArray<Agent>>
  /** Re-reads every card (concurrently), then returns the agents. */
  readonly refresh: Effect.Effect<ReadonlyArray<Agent>>
  /** Re-reads one agent's card. */
  readonly refreshAgent: (url: string) => Effect.Effect<Agent>
}

/**
 * Options of the catalog: the bound on reading one card and on each call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Bound on reading one card, and on each call to the agent (opening its stream). Default 10 seconds. */
  readonly timeout?: Duration.Input | undefined
  /**
   * Refuse agents with the known faults of agents in the wild (see the client's Tolerance) instead of reading them
   * repaired: such an agent is down, its card invalid. Default: `Tolerance.Strict` in context (false unless provided).
   *
   * @since 0.2.0
   */
  readonly strict?: boolean | undefined
}

/** The reason an agent is down, in one line for a human (never a credential: none is sent for a card). */
const reasonOf = (error: { readonly _tag: string; readonly message?: string }): string =>
  error.message !== undefined && error.message !== "" ? error.message : error._tag

/**
 * Reads the cards of `agents` as asked (nothing is read until the first `refresh`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  agents: ReadonlyArray<AgentSettings>,
  options: Options = {}
): Effect.Effect<AgentCatalog, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<HttpClient.HttpClient>()
    const timeout = options.timeout ?? Duration.seconds(10)
    const initial: ReadonlyArray<Agent> = agents.map((agent) => ({
      _tag: "Down",
      url: agent.url,
      toolName: undefined,
      reason: "not read yet",
      cardInvalid: false
    }))
    const state = yield* SynchronizedRef.make(initial)

    // A name for an agent read for the first time: its card's, unless another agent has it already.
    const nameFor = (current: ReadonlyArray<Agent>, index: number, card: v1.AgentCard): string => {
      const kept = current[index]!.toolName
      if (kept !== undefined) return kept
      const taken = new Set(current.flatMap((agent) => agent.toolName !== undefined ? [agent.toolName] : []))
      const base = ToolSet.toolName(card.name, "agent")
      let name = base
      for (let n = 2; taken.has(name); n++) name = ToolSet.toolName(`${base.slice(0, 60)}_${n}`)
      return name
    }

    const read = (index: number) => {
      const settings = agents[index]!
      return A2AClient.resolve(settings.url, {
        credentials: settings.credentials,
        timeout,
        retry: false,
        strict: options.strict
      }).pipe(Effect.provideContext(context), Effect.result)
    }

    const readAll = (indices: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        const results = yield* Effect.forEach(indices, read, { concurrency: "unbounded" })
        return yield* SynchronizedRef.modify(state, (current) => {
          const next = [...current]
          indices.forEach((index, i) => {
            const result = results[i]!
            const previous = current[index]!
            next[index] = result._tag === "Success"
              ? {
                _tag: "Up",
                url: previous.url,
                toolName: nameFor(next, index, result.success.card),
                card: result.success.card,
                client: result.success
              }
              : {
                _tag: "Down",
                url: previous.url,
                toolName: previous.toolName,
                reason: reasonOf(result.failure),
                cardInvalid: result.failure._tag === "A2AAgentCardInvalid"
              }
          })
          return [next, next] as const
        })
      })

    const all = agents.map((_, index) => index)
    return {
      agents: SynchronizedRef.get(state),
      refresh: readAll(all),
      refreshAgent: (url) =>
        Effect.gen(function*() {
          const index = agents.findIndex((agent) => agent.url === url)
          const next = yield* readAll([index])
          return next[index]!
        })
    }
  })
