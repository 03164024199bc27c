/**
 * The SQL stores' own spans: made when the server instruments itself (a tracer of its own is installed when the
 * stores are built), left out otherwise (see Observability.spanMaker).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PushConfigStore } from "../../src/server/PushConfigStore.ts"
import { TaskStore } from "../../src/server/TaskStore.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import { record, richTask, root, uniqueId } from "./fixtures.ts"

const sqlite = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-spans-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)

const recording = () => {
  const names: Array<string> = []
  const tracer = Tracer.make({
    span: (options) => {
      names.push(options.name)
      return new Tracer.NativeSpan(options)
    }
  })
  return { names, tracer }
}

const useStores = Effect.gen(function*() {
  const tasks = yield* TaskStore
  const configs = yield* PushConfigStore
  const owner = uniqueId("owner")
  const task = richTask(owner)
  yield* tasks.save(record(task, owner, 1))
  yield* tasks.get(task.id, root(owner))
  // A task whose configs this store has not seen saved: read (the saved one's are known from its save).
  yield* configs.forTask(uniqueId("unsaved"))
})

describe("SQL store spans", () => {
  it.effect("with a tracer of the server's own, each store call is a span", () => {
    const { names, tracer } = recording()
    return useStores.pipe(
      Effect.provide(sqlite.pipe(Layer.provideMerge(Layer.succeed(Tracer.Tracer, tracer)))),
      Effect.map(() => {
        for (const name of ["SqlTaskStore.save", "SqlTaskStore.get", "SqlPushConfigStore.forTask"]) {
          assert.include(names, name)
        }
      })
    )
  })

  it.effect("with Effect's built-in tracer (the server not instrumented), the stores make none of their own", () => {
    const { names, tracer } = recording()
    // Built without a tracer of their own, then used under one: the decision was made when they were built.
    return useStores.pipe(
      Effect.provideService(Tracer.Tracer, tracer),
      Effect.provide(sqlite),
      Effect.map(() => {
        assert.isFalse(names.some((name) => name.startsWith("Sql")), names.join(", "))
        // Effect's own statement spans are still there: the tracer saw the calls.
        assert.isAbove(names.length, 0)
      })
    )
  })
})
