/**
 * This server process, as the SQL stores know it: a random id per start, written next to every task it saves.
 * After a crash, the tasks left in flight by a process that is gone are found by its id (SqlTaskRecovery).
 *
 * It also holds what the process's stores share about the tasks it saves: whether each had push configs when it
 * was last saved here (`pushConfigs`), so that the webhooks of a task without any are not read for every event.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"

/**
 * This process among the nodes sharing the database: its id, random at every start (see the module).
 *
 * @since 0.1.0
 * @category services
 */
export class SqlNode extends Context.Service<SqlNode, {
  readonly id: string
  readonly pushConfigs: PushPresence
}>()("effect-a2a/sql/SqlNode") {}

/** Tasks whose push configs' presence a process remembers, at most: the most recently saved. */
const KNOWN_TASKS = 10_000

/**
 * Whether a task had push configs as its last save here committed (PostgreSQL: read in the save's own statement),
 * for the events of that save: a task known to have none needs no read of its webhooks (the PushNotifier reads
 * them for every batch of a task's events, and most tasks have none). A config created since, on any node, is
 * seen from the task's next save on; one created here is seen at once.
 *
 * @since 0.2.0
 * @category models
 */
export interface PushPresence {
  /** What the last save of `taskId` here found: true (configs) or false (none); undefined: not known. */
  readonly known: (taskId: string) => boolean | undefined
  /** Notes what a save of `taskId` found. */
  readonly saved: (taskId: string, present: boolean) => void
}

/**
 * An empty PushPresence, bounded to the most recently saved tasks.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makePushPresence = (): PushPresence => {
  const tasks = new Map<string, boolean>()
  return {
    known: (taskId) => tasks.get(taskId),
    saved: (taskId, present) => {
      tasks.delete(taskId)
      tasks.set(taskId, present)
      if (tasks.size > KNOWN_TASKS) tasks.delete(tasks.keys().next().value!)
    }
  }
}

/**
 * A fresh node id for this process.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SqlNode> = Layer.effect(
  SqlNode,
  Effect.sync(() => SqlNode.of({ id: randomUUID(), pushConfigs: makePushPresence() }))
)

/**
 * A fixed node id (tests).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerId = (id: string): Layer.Layer<SqlNode> => Layer.succeed(
  SqlNode,
  SqlNode.of({ id, pushConfigs: makePushPresence() })
)
