/**
 * In-memory TaskStore: a map of records, listed by sorting on (status timestamp, id). For tests and
 * single-process use; everything is lost when the process exits.
 *
 * @example
 * ```ts
 * import { MemoryTaskStore, TaskStore } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * const found = Effect.gen(function*() {
 *   const store = yield* TaskStore.TaskStore
 *   return yield* store.get("t-1", { owner: "alice", tenant: "" })
 * }).pipe(Effect.provide(MemoryTaskStore.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  compareCursor,
  cursorOf,
  inScope,
  limitHistory,
  matchesQuery,
  shapeArtifacts,
  type TaskRecord,
  TaskStore
} from "../TaskStore.ts"

export const make: Effect.Effect<TaskStore["Service"]> = Effect.gen(function*() {
  // Each operation is one synchronous step, so a plain Map is safe: fibers never observe a half-done update.
  const records = yield* Effect.sync(() => new Map<string, TaskRecord>())
  return TaskStore.of({
    get: (taskId, scope) =>
      Effect.sync(() => Option.fromNullishOr(records.get(taskId)).pipe(Option.filter((r) => inScope(r, scope)))),
    save: (record) => Effect.sync(() => void records.set(record.task.id, record)),
    list: (scope, query) =>
      Effect.sync(() => {
        const matching = Array.from(records.values())
          .filter((r) => inScope(r, scope) && matchesQuery(r.task, query))
          .map((r) => r.task)
          .sort((a, b) => compareCursor(cursorOf(a), cursorOf(b)))
        const after = query.after
        const rest = after === undefined ? matching : matching.filter((t) => compareCursor(cursorOf(t), after) > 0)
        const page = rest.slice(0, query.pageSize)
        const last = page[page.length - 1]
        return {
          tasks: page.map((t) => shapeArtifacts(limitHistory(t, query.historyLength), query.includeArtifacts)),
          totalSize: matching.length,
          next: rest.length > page.length && last !== undefined ? Option.some(cursorOf(last)) : Option.none()
        }
      })
  })
})

export const layer: Layer.Layer<TaskStore> = Layer.effect(TaskStore, make)
