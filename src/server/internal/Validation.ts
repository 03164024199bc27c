/**
 * Semantic checks the request schemas cannot express (spec 3.3.2 "Validation Errors"): each check yields
 * field violations, and one InvalidParams carries all of them at once.
 */
import * as Effect from "effect/Effect"
import { type FieldViolation, InvalidParams } from "../../protocol/A2AError.ts"

/**
 * The violations of one check; empty when it passes.
 *
 * @since 0.1.0
 * @category models
 */
export type Check = ReadonlyArray<FieldViolation>

/**
 * A check that passed.
 *
 * @since 0.1.0
 * @category utils
 */
export const ok: Check = []

/**
 * `historyLength` (spec 3.2.4): a non-negative integer when set.
 *
 * @since 0.1.0
 * @category utils
 */
export const historyLength = (field: string, value: number | undefined): Check =>
  value === undefined || (Number.isInteger(value) && value >= 0)
    ? ok
    : [{ field, description: `Must be a non-negative integer, got ${value}` }]

/**
 * An integer within [min, max] when set.
 *
 * @since 0.1.0
 * @category utils
 */
export const intInRange = (field: string, value: number | undefined, min: number, max: number): Check =>
  value === undefined || (Number.isInteger(value) && value >= min && value <= max)
    ? ok
    : [{ field, description: `Must be between ${min} and ${max} inclusive, got ${value}` }]

/**
 * An ISO 8601 timestamp; returns its epoch milliseconds or the violation.
 *
 * @since 0.1.0
 * @category utils
 */
export const timestamp = (field: string, value: string): number | FieldViolation => {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value)
    ? Date.parse(value)
    : NaN
  return Number.isNaN(ms)
    ? { field, description: `Must be an ISO 8601 timestamp such as "2023-10-27T10:00:00Z", got "${value}"` }
    : ms
}

/**
 * An absolute http(s) URL.
 *
 * @since 0.1.0
 * @category utils
 */
export const httpUrl = (field: string, value: string): Check => {
  try {
    const url = new URL(value)
    return url.protocol === "http:" || url.protocol === "https:"
      ? ok
      : [{ field, description: `Must be an http or https URL, got "${url.protocol}"` }]
  } catch {
    return [{ field, description: `Must be an absolute URL, got "${value}"` }]
  }
}

/**
 * The field must be set and not empty.
 *
 * @since 0.1.0
 * @category utils
 */
export const nonEmpty = (field: string, value: string | undefined): Check =>
  value !== undefined && value.length > 0 ? ok : [{ field, description: "Must not be empty" }]

/**
 * One InvalidParams listing every violation, or undefined when there are none.
 *
 * @since 0.1.0
 * @category utils
 */
export const check = (...checks: ReadonlyArray<Check>): InvalidParams | undefined => {
  // A loop, not `checks.flat()`: every SendMessage runs this, and nearly always finds nothing.
  let fieldViolations: Array<FieldViolation> | undefined
  for (const c of checks) if (c.length > 0) (fieldViolations ??= []).push(...c)
  if (fieldViolations === undefined) return undefined
  const fields = [...new Set(fieldViolations.map((v) => v.field))]
  const first = fieldViolations[0]!
  const message = fieldViolations.length === 1
    ? `Invalid parameters: ${first.field}: ${first.description}`
    : `Invalid parameters: ${fields.join(", ")}`
  return new InvalidParams({ message, fieldViolations })
}

/**
 * Fails with one InvalidParams listing every violation, or succeeds when there are none.
 *
 * @since 0.1.0
 * @category utils
 */
export const verify = (...checks: ReadonlyArray<Check>): Effect.Effect<void, InvalidParams> => {
  const invalid = check(...checks)
  return invalid === undefined ? Effect.void : Effect.fail(invalid)
}
