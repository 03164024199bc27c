/**
 * A JSON object as parsed JSON has it: an object that is neither null nor an array. For the code that reads JSON
 * it has not decoded with a Schema (signatures, JWKS, canonical forms).
 */
import * as Predicate from "effect/Predicate"

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  Predicate.isObject(value) && !Array.isArray(value)
