/**
 * This server process, as the SQL stores know it: a random id per start, written next to every task it saves.
 * After a crash, the tasks left in flight by a process that is gone are found by its id (SqlTaskRecovery).
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
}>()("effect-a2a/sql/SqlNode") {}

/**
 * A fresh node id for this process.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SqlNode> = Layer.effect(SqlNode, Effect.sync(() => SqlNode.of({ id: randomUUID() })))

/**
 * A fixed node id (tests).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerId = (id: string): Layer.Layer<SqlNode> => Layer.succeed(SqlNode, SqlNode.of({ id }))
