/**
 * The committed type-level oracle (test/generated/oracle/) is what test/codegen/Oracle.ts produces now: if the schema
 * or the overlay changes, regenerate it (`node test/codegen/Oracle.ts`) and let tsc compare again.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, inject, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { readFileSync } from "node:fs"
import { oracleFile, oracleSchema, renderOracle } from "./Oracle.ts"
import { upstreamConfig } from "./Upstream.ts"

describe("type-level oracle", () => {
  // the oracle is compiled from the upstream schemas (test/codegen/UpstreamSetup.ts found them, or says why not)
  const upstream = inject("upstreamSpec")
  if (!upstream.available) {
    it.skip(upstream.skip, () => {})
    return
  }
  const Upstream = Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer, upstreamConfig(upstream.specDir))

  for (const [version, module] of [["1.0", "v1"], ["0.3", "v0_3"]] as const) {
    it.effect(`the ${module} oracle is up to date`, () =>
      Effect.gen(function*() {
        const text = yield* renderOracle(version)
        expect(text).toBe(readFileSync(oracleFile(module), "utf8"))
      }).pipe(Effect.provide(Upstream)))
  }

  it.effect("the overlay reaches the oracle as plain JSON Schema", () =>
    Effect.gen(function*() {
      const { definitions } = yield* oracleSchema("1.0")
      expect(definitions["Task"]).toMatchObject({ required: ["id", "status"] })
      expect(definitions["TaskState"]).toMatchObject({ enum: expect.arrayContaining(["TASK_STATE_UNSPECIFIED"]) })
      expect(definitions["Part"]).toMatchObject({ oneOf: expect.any(Array) })
    }).pipe(Effect.provide(Upstream)))
})
