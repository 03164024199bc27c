/**
 * The conversations of an LLM agent, kept with Effect's persisted Chat over Effect's `BackingPersistence`: the one
 * in context (the SQL database of `DurableServer`), else one in memory (swept of expired conversations on write). A conversation is found by its key: the
 * context (default), the task (`request`: nothing outlives the task), or one for everyone (`shared`), always within
 * the caller's tenant and principal except for `shared`. Turns on one conversation run one at a time; each loads
 * the stored conversation, keeps its last `maxTurns` turns and the current instructions, and the Chat saves it
 * after every model call, with its time to live.
 */
import type * as AiError from "effect/ai/AiError"
import * as Chat from "effect/ai/Chat"
import * as Prompt from "effect/ai/Prompt"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Persistence from "effect/persistence/Persistence"
import * as RcMap from "effect/RcMap"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { RequestContext } from "../../server/RequestContext.ts"
import * as MemoryBacking from "./MemoryBacking.ts"

/**
 * Which messages share a conversation: a context's (default), a task's, or everyone's.
 *
 * @since 0.1.0
 * @category models
 */
export type ConversationScope = "context" | "request" | "shared"

/**
 * How conversations are kept: their scope, how many turns, and for how long.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly scope: ConversationScope
  /** Turns (a user message and what followed it) kept and sent to the model. */
  readonly maxTurns: number
  readonly timeToLive: Duration.Duration
  readonly instructions: string | undefined
}

/**
 * The conversations of an agent: each request runs with its conversation's history, alone on it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Conversations {
  /** Runs `use` with the conversation of this request, alone on it. */
  readonly withChat: <A, E, R>(
    context: RequestContext,
    use: (chat: Chat.Persisted) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | AiError.AiError | Persistence.PersistenceError, R>
}

/**
 * Where conversations are kept: the store id in Effect's persistence (a SQL-safe name).
 *
 * @since 0.1.0
 * @category constants
 */
export const storeId = "a2a_conversations"

const keyOf = (scope: ConversationScope, context: RequestContext): string =>
  scope === "shared"
    ? "shared"
    : JSON.stringify([
      context.tenant,
      context.principal.id,
      scope === "context" ? "context" : "task",
      scope === "context" ? context.contextId : context.taskId
    ])

/**
 * The last `maxTurns` turns of `history` (a turn starts at a user message), under `instructions`.
 *
 * @since 0.1.0
 * @category utils
 */
export const bound = (history: Prompt.Prompt, maxTurns: number, instructions: string | undefined): Prompt.Prompt => {
  const messages = history.content
  let start = messages.length
  let turns = 0
  for (let i = messages.length - 1; i >= 0 && turns < maxTurns; i--) {
    if (messages[i]!.role === "user") {
      turns++
      start = i
    }
  }
  const kept = Prompt.fromMessages(messages.slice(start).filter((m) => m.role !== "system"))
  return instructions === undefined ? kept : Prompt.setSystem(kept, instructions)
}

/**
 * Builds the conversations, kept in the BackingPersistence in context when there is one, else in memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Conversations, never, Scope.Scope> =>
  Effect.gen(function*() {
    const backing = yield* Effect.serviceOption(Persistence.BackingPersistence)
    const chats = yield* Option.match(backing, {
      onNone: () => Effect.provide(Chat.makePersisted({ storeId }), MemoryBacking.layer),
      onSome: (service) =>
        Effect.provideService(Chat.makePersisted({ storeId }), Persistence.BackingPersistence, service)
    })
    const locks = yield* RcMap.make({ lookup: () => Semaphore.make(1) })
    const timeToLive = options.timeToLive
    return {
      withChat: (context, use) => {
        const key = keyOf(options.scope, context)
        return Effect.scoped(Effect.flatMap(RcMap.get(locks, key), (lock) =>
          lock.withPermits(1)(
            Effect.flatMap(chats.getOrCreate(key, { timeToLive }), (chat) =>
              Effect.andThen(
                // the turn about to start is one of the `maxTurns`
                Ref.update(chat.history, (history) => bound(history, options.maxTurns - 1, options.instructions)),
                use(chat)
              ))
          )))
      }
    }
  })

/**
 * How long an idle conversation is kept by default: one day.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeToLive = Duration.days(1)
