/**
 * Persistence of push notification configs (spec 3.1.7-3.1.10), keyed by task. Callers check that the task
 * exists in the caller's scope (principal and tenant) first, so the store itself needs neither.
 *
 * @example
 * ```ts
 * import { PushConfigStore } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * const configs = (taskId: string) =>
 *   Effect.gen(function*() {
 *     const store = yield* PushConfigStore.PushConfigStore
 *     return yield* store.forTask(taskId)
 *   })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as v1 from "../protocol/generated/v1.ts"
import type { TaskStoreError } from "./TaskStore.ts"

/**
 * A stored config: `id` and `taskId` are always set. `protocolVersion` is the A2A version (`Major.Minor`) the
 * config was registered with: its webhook receives payloads of that version. Absent means 1.0. It is not part
 * of the wire config (see `toWire`).
 *
 * @since 0.1.0
 * @category models
 */
export type PushConfig = v1.TaskPushNotificationConfig & {
  readonly id: string
  readonly taskId: string
  readonly protocolVersion?: string | undefined
}

/**
 * The config as the protocol shows it (without what only the server keeps).
 *
 * @since 0.1.0
 * @category utils
 */
export const toWire = (config: PushConfig): v1.TaskPushNotificationConfig => {
  if (config.protocolVersion === undefined) return config
  const { protocolVersion: _, ...wire } = config
  return wire
}

/**
 * One page of a task's push configs, and the cursor of the next page, if any.
 *
 * @since 0.1.0
 * @category models
 */
export interface PushConfigPage {
  readonly configs: ReadonlyArray<PushConfig>
  /** Id of the last config on this page when more follow. */
  readonly next: Option.Option<string>
}

/**
 * Where the push notification configs of tasks are kept.
 *
 * @since 0.1.0
 * @category services
 */
export class PushConfigStore extends Context.Service<PushConfigStore, {
  /** Inserts or replaces the config (keyed by task id and config id). */
  readonly set: (config: PushConfig) => Effect.Effect<void, TaskStoreError>
  /** The config of a task by its id. */
  readonly get: (taskId: string, id: string) => Effect.Effect<Option.Option<PushConfig>, TaskStoreError>
  /** Configs of a task ordered by id, `pageSize` at most, strictly after config id `after`. */
  readonly list: (
    taskId: string,
    options: { readonly pageSize: number; readonly after?: string | undefined }
  ) => Effect.Effect<PushConfigPage, TaskStoreError>
  /** Idempotent: deleting a missing config succeeds. */
  readonly delete: (taskId: string, id: string) => Effect.Effect<void, TaskStoreError>
  /** Every config of a task (for delivery). */
  readonly forTask: (taskId: string) => Effect.Effect<ReadonlyArray<PushConfig>, TaskStoreError>
}>()("effect-a2a/server/PushConfigStore") {}
