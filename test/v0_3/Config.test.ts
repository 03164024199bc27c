/**
 * Turning 0.3 on and off from the environment: A2A_PROTOCOL_VERSIONS.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as HttpBindingOptions from "../../src/http/HttpBindingOptions.ts"

const read = (env: Record<string, string>) => HttpBindingOptions.config.parse(ConfigProvider.fromEnvRecord(env))

describe("A2A_PROTOCOL_VERSIONS", () => {
  it.effect("lists the versions served, normalised to Major.Minor", () =>
    Effect.gen(function*() {
      expect((yield* read({ A2A_PROTOCOL_VERSIONS: "1.0, 0.3.0" })).versions).toEqual(["1.0", "0.3"])
      expect((yield* read({ A2A_PROTOCOL_VERSIONS: "1.0" })).versions).toEqual(["1.0"])
      expect((yield* read({})).versions).toBeUndefined()
    }))

  it.effect("refuses what is not a version, naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(read({ A2A_PROTOCOL_VERSIONS: "1.0,latest" }))
      expect(String(error)).toContain("latest")
      const empty = yield* Effect.flip(read({ A2A_PROTOCOL_VERSIONS: " , " }))
      expect(String(empty)).toContain("no version")
    }))
})
