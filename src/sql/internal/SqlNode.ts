/**
 * This server process, as the SQL stores know it: a random id per start, written next to every task it saves.
 * After a crash, the tasks left in flight by a process that is gone are found by its id (SqlTaskRecovery).
 *
 * It also holds what the process's stores share about the tasks it saves: whether each had push configs when it
 * was last saved here (`pushConfigs`), so that the webhooks of a task without any are not read for every event;
 * and how a save sends its events to the other nodes in its own statement (`saveNotices`, set by PgEventBus).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import type { TaskEvent } from "../../server/EventBus.ts"
import * as RecentTasks from "./RecentTasks.ts"

/**
 * This process among the nodes sharing the database: its id, random at every start (see the module).
 *
 * @since 0.1.0
 * @category services
 */
export class SqlNode extends Context.Service<SqlNode, {
  readonly id: string
  readonly pushConfigs: PushPresence
  readonly saveNotices: { current: SaveNotices | undefined }
}>()("effect-a2a/sql/SqlNode") {}

/**
 * How a save of a task sends the task's events to the other nodes in its own statement (see PgEventBus), so that
 * a change and its notifications are one commit.
 *
 * @since 0.2.0
 * @category models
 */
export interface SaveNotices {
  /** The channel the notifications go to. */
  readonly channel: string
  /**
   * The notifications of `events` (one task's, in order), or undefined when they must be sent apart: the bus
   * still has events of that task to send (they go first), or one is too large for a notification.
   */
  readonly payloads: (events: ReadonlyArray<TaskEvent>) => ReadonlyArray<string> | undefined
  /** Notes `events` as sent with their save (made with `payloads`), for the bus not to send them again. */
  readonly sent: (events: ReadonlyArray<TaskEvent>) => void
}

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
 * An empty PushPresence, bounded to the most recently saved tasks (RecentTasks).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makePushPresence = (): PushPresence => {
  const tasks = RecentTasks.make<boolean>()
  return { known: tasks.get, saved: tasks.set }
}

/**
 * A fresh node id for this process.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SqlNode> = Layer.effect(
  SqlNode,
  Effect.sync(() =>
    SqlNode.of({ id: randomUUID(), pushConfigs: makePushPresence(), saveNotices: { current: undefined } })
  )
)

/**
 * A fixed node id (tests).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerId = (id: string): Layer.Layer<SqlNode> =>
  Layer.succeed(
    SqlNode,
    SqlNode.of({ id, pushConfigs: makePushPresence(), saveNotices: { current: undefined } })
  )
