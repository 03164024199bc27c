/**
 * The committed type-level oracle (test/generated/oracle/) is what test/codegen/Oracle.ts produces now: if the schema
 * or the overlay changes, regenerate it (`node test/codegen/Oracle.ts`) and let tsc compare again.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { oracleFile, oracleSchema, renderOracle } from "./Oracle.ts"

describe("type-level oracle", () => {
  for (const [version, module] of [["1.0", "v1"], ["0.3", "v0_3"]] as const) {
    it.effect(`the ${module} oracle is up to date`, () =>
      Effect.gen(function*() {
        const text = yield* renderOracle(version)
        expect(text).toBe(readFileSync(oracleFile(module), "utf8"))
      }).pipe(Effect.provide(NodeServices.layer)))
  }

  it.effect("the overlay reaches the oracle as plain JSON Schema", () =>
    Effect.gen(function*() {
      const { definitions } = yield* oracleSchema("1.0")
      expect(definitions["Task"]).toMatchObject({ required: ["id", "status"] })
      expect(definitions["TaskState"]).toMatchObject({ enum: expect.arrayContaining(["TASK_STATE_UNSPECIFIED"]) })
      expect(definitions["Part"]).toMatchObject({ oneOf: expect.any(Array) })
    }).pipe(Effect.provide(NodeServices.layer)))
})
