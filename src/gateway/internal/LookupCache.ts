/**
 * The registrations the front door and the MCP tools look up on every call, kept in memory so that a call does not
 * read the store. An entry is dropped when this node changes the agent, when the store announces another node's
 * change (PostgreSQL's NOTIFY), and is read again after a short time to live in any case: a store that announces
 * nothing (several nodes on one SQLite file) or a notification lost while a listener reconnects is caught up with
 * within that time. Only found agents are kept: a name nobody registered is asked of the store every time, so a
 * registration on another node is seen at once.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { StoredAgent } from "../GatewayStore.ts"

/**
 * The cache, one per registry.
 *
 * @since 0.2.0
 * @category models
 */
export interface LookupCache<E> {
  /** The registration, from memory while fresh, otherwise read (and kept when found). */
  readonly lookup: (name: string) => Effect.Effect<Option.Option<StoredAgent>, E>
  /** Forgets the agent (changed or removed by this node). */
  readonly drop: (name: string) => void
}

/**
 * A cache over `read` whose entries live `ttlMillis`, dropping what `changes` announces for as long as the scope
 * lasts.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <E>(options: {
  readonly read: (name: string) => Effect.Effect<Option.Option<StoredAgent>, E>
  readonly changes: Stream.Stream<{ readonly name: string }>
  readonly ttlMillis: number
}): Effect.Effect<LookupCache<E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const kept = new Map<string, { readonly stored: StoredAgent; readonly until: number }>()
    // bumped by every change: a read that started before one must not put back what it dropped
    let generation = 0
    const drop = (name: string) => {
      generation++
      kept.delete(name)
    }
    yield* Effect.forkScoped(Stream.runForEach(options.changes, (change) => Effect.sync(() => drop(change.name))))
    const keep = (stored: StoredAgent, now: number) => kept.set(stored.name, { stored, until: now + options.ttlMillis })

    const lookup = (name: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const entry = kept.get(name)
        if (entry !== undefined && entry.until > now) return Effect.succeed(Option.some(entry.stored))
        const at = generation
        return Effect.map(options.read(name), (found) => {
          if (Option.isSome(found) && at === generation) keep(found.value, now)
          else if (Option.isNone(found)) kept.delete(name)
          return found
        })
      })

    return { lookup, drop }
  })
