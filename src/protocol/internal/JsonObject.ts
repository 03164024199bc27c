/**
 * A JSON object as parsed JSON has it: an object that is neither null nor an array. For the code that reads JSON
 * it has not decoded with a Schema (signatures, JWKS, canonical forms).
 */
import * as Predicate from "effect/Predicate"

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  Predicate.isObject(value) && !Array.isArray(value)

/**
 * A plain object, as JSON.parse makes them (its prototype Object.prototype or null): for the hand-written readers
 * that must refuse whatever the Schema they stand in for would (class instances, arrays, boxed values).
 */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}
