/**
 * In-memory PushConfigStore: task id -> (config id -> config).
 *
 * @example
 * ```ts
 * import { A2AServer, MemoryPushConfigStore, MemoryTaskStore } from "effect-a2a/server"
 * import { Layer } from "effect"
 *
 * // what A2AServer.memoryServices is made of, besides the bus and the notifier
 * const stores = Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer)
 * const services = A2AServer.memoryServices
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type PushConfig, PushConfigStore } from "../PushConfigStore.ts"

/**
 * Push configs kept in this process.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<PushConfigStore["Service"]> = Effect.gen(function*() {
  const byTask = yield* Effect.sync(() => new Map<string, Map<string, PushConfig>>())
  const sorted = (taskId: string): ReadonlyArray<PushConfig> =>
    Array.from(byTask.get(taskId)?.values() ?? []).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return PushConfigStore.of({
    set: (config) =>
      Effect.sync(() => {
        const configs = byTask.get(config.taskId) ?? new Map<string, PushConfig>()
        configs.set(config.id, config)
        byTask.set(config.taskId, configs)
      }),
    get: (taskId, id) => Effect.sync(() => Option.fromNullishOr(byTask.get(taskId)?.get(id))),
    list: (taskId, { after, pageSize }) =>
      Effect.sync(() => {
        const all = sorted(taskId)
        const rest = after === undefined ? all : all.filter((c) => c.id > after)
        const page = rest.slice(0, pageSize)
        const last = page[page.length - 1]
        return {
          configs: page,
          next: rest.length > page.length && last !== undefined ? Option.some(last.id) : Option.none()
        }
      }),
    delete: (taskId, id) =>
      Effect.sync(() => {
        const configs = byTask.get(taskId)
        configs?.delete(id)
        if (configs !== undefined && configs.size === 0) byTask.delete(taskId)
      }),
    forTask: (taskId) => Effect.sync(() => sorted(taskId))
  })
})

/**
 * Push configs kept in this process, as the PushConfigStore.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<PushConfigStore> = Layer.effect(PushConfigStore, make)
