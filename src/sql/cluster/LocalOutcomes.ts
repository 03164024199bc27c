/**
 * A turn's outcome told in memory to the sender waiting for it on the same node, as soon as the turn has ended,
 * rather than once the engine has stored its reply and handed it back. When a node both sends a Turn and runs it
 * (its task's entity lives here: always with one node), the engine's answer comes after two more round trips to
 * the database (its shard lock confirmed, then its reply stored) and a hop through its reply handler, all after the
 * task's last save: time the caller waits for nothing it does not already know.
 *
 * Only an outcome that the database already holds is told so: the task as its turn left it (its save committed), so
 * that the caller never hears what the engine could still undo. Should the engine fail to store its reply afterwards,
 * the Turn is delivered again and finds its message in its task: it answers that task again, runs nothing. The
 * agent's direct reply (no task saved) and an A2A error are answered by the engine, as before.
 *
 * Used by ClusterTurns, which gives one to both sides of a node: TurnEntity tells, TurnRouting listens.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Exit from "effect/Exit"
import type { TurnOutcome } from "./TurnMessage.ts"

/**
 * The senders of this node waiting for their Turns' outcomes, by the Turn's primary key (see TurnMessage): `expect`
 * before sending, `forget` once answered; the runner `tell`s each outcome a sender here may be waiting for.
 *
 * @since 0.2.0
 * @category services
 */
export class LocalOutcomes extends Context.Service<LocalOutcomes, {
  readonly expect: (key: string) => Deferred.Deferred<TurnOutcome>
  readonly forget: (key: string, waiting: Deferred.Deferred<TurnOutcome>) => void
  readonly tell: (key: string, outcome: TurnOutcome) => void
}>()("effect-a2a/sql/cluster/LocalOutcomes") {}

/**
 * An empty LocalOutcomes, for one node.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): LocalOutcomes["Service"] => {
  // A second send of the same message (its Turn sent again while the first waits) waits beside the first.
  const waiting = new Map<string, Set<Deferred.Deferred<TurnOutcome>>>()
  return LocalOutcomes.of({
    expect: (key) => {
      const deferred = Deferred.makeUnsafe<TurnOutcome>()
      const senders = waiting.get(key)
      if (senders === undefined) waiting.set(key, new Set([deferred]))
      else senders.add(deferred)
      return deferred
    },
    forget: (key, deferred) => {
      const senders = waiting.get(key)
      if (senders === undefined) return
      senders.delete(deferred)
      if (senders.size === 0) waiting.delete(key)
    },
    tell: (key, outcome) => {
      const senders = waiting.get(key)
      if (senders === undefined || outcome._tag !== "Task") return
      for (const deferred of senders) Deferred.doneUnsafe(deferred, Exit.succeed(outcome))
    }
  })
}
