/**
 * Type-level oracle (checked by `tsc --noEmit`): every generated `X.Type` and json-schema-to-typescript's reading of
 * the same overlay-applied schema (test/generated/oracle/, made by test/codegen/Oracle.ts) are mutually assignable,
 * modulo readonly, and both name the same definitions.
 *
 * Deliberate differences, handled here:
 * - readonly: the generated types are deeply readonly; the oracle's are mutable (compared after DeepMutable).
 * - closed objects: the oracle is compiled with `additionalProperties: false` as default, as our Schemas ignore
 *   unknown fields instead of typing them (0.3 objects leave additionalProperties open in the JSON Schema).
 * - non-empty REQUIRED arrays are a runtime check (`isMinLength(1)`), not a tuple type, on both sides.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import type * as V0_3 from "../../src/protocol/generated/v0_3.ts"
import type * as V1 from "../../src/protocol/generated/v1.ts"
import type * as Oracle0_3 from "./oracle/v0_3.ts"
import type * as Oracle1 from "./oracle/v1.ts"

type DeepMutable<T> = T extends ReadonlyArray<infer U> ? Array<DeepMutable<U>>
  : T extends object ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
  : T

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** The names whose generated type and oracle type differ (never when all agree). */
type Mismatches<Generated, Oracle, Names extends keyof Generated & keyof Oracle> = {
  [K in Names]: Generated[K] extends { readonly Type: infer T } ?
    Same<DeepMutable<T>, Oracle[K]> extends true ? never : K
    : K
}[Names]

type V1Module = typeof V1
type V0_3Module = typeof V0_3

describe("type-level oracle (json-schema-to-typescript)", () => {
  it("A2A 1.0: every generated type matches the oracle", () => {
    expectTypeOf<Exclude<keyof V1Module, Oracle1.OracleNames>>().toEqualTypeOf<never>()
    expectTypeOf<Exclude<Oracle1.OracleNames, keyof V1Module>>().toEqualTypeOf<never>()
    expectTypeOf<Mismatches<V1Module, Required<Oracle1.OracleRoot>, Oracle1.OracleNames>>().toEqualTypeOf<never>()
    // and the check can fail: a type with a field too many is not the oracle's Task
    type Wrong = { readonly Task: { readonly Type: V1.Task & { readonly extra: string } } }
    expectTypeOf<Mismatches<Wrong, Required<Oracle1.OracleRoot>, "Task">>().toEqualTypeOf<"Task">()
    expect(true).toBe(true)
  })

  it("A2A 0.3: every generated type matches the oracle", () => {
    expectTypeOf<Exclude<keyof V0_3Module, Oracle0_3.OracleNames>>().toEqualTypeOf<never>()
    expectTypeOf<Exclude<Oracle0_3.OracleNames, keyof V0_3Module>>().toEqualTypeOf<never>()
    expectTypeOf<Mismatches<V0_3Module, Required<Oracle0_3.OracleRoot>, Oracle0_3.OracleNames>>().toEqualTypeOf<never>()
    expect(true).toBe(true)
  })
})
