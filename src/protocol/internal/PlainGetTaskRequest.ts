/**
 * GetTaskRequest's common form decoded by hand (FieldViolations tries it before the Schema): a plain object with
 * the JSON field names, `id` a string, `historyLength` (when given) a number that is an int32, `tenant` (when given)
 * a string, and no `null` (nor `undefined`) anywhere. Anything else (the proto name `history_length`, a decimal
 * string, a null, a wrong type) is undefined: the Schema decides it and reports what is wrong. The result is the Schema's: the three
 * fields in its order, unknown fields dropped. `test/protocol/PlainGetTaskRequest.test.ts` holds it to that.
 */
import type * as v1 from "../generated/v1.ts"
import { isPlainObject } from "./JsonObject.ts"

const isInt32 = (n: unknown): n is number =>
  typeof n === "number" && Number.isSafeInteger(n) && n >= -2147483648 && n <= 2147483647

export const decode = (input: unknown): v1.GetTaskRequest | undefined => {
  if (!isPlainObject(input)) return undefined
  for (const key in input) {
    // a null is "not set" and a proto name an alias to the Schema: both need its normalisation; a key holding
    // undefined (never in JSON) is the Schema's to judge
    const value = input[key]
    if (value === null || value === undefined || key === "history_length" || key === "current_generation") {
      return undefined
    }
  }
  const { currentGeneration, historyLength, id, tenant } = input
  if (typeof id !== "string") return undefined
  if (tenant !== undefined && typeof tenant !== "string") return undefined
  // The A2A 1.1 draft's long poll: a JSON number here (a decimal string is the Schema's to read).
  if (currentGeneration !== undefined) {
    if (!Number.isSafeInteger(currentGeneration)) return undefined
    if (historyLength !== undefined && !isInt32(historyLength)) return undefined
    const out: Record<string, unknown> = historyLength === undefined ? { id } : { historyLength, id }
    if (tenant !== undefined) out["tenant"] = tenant
    out["currentGeneration"] = currentGeneration
    return out as v1.GetTaskRequest
  }
  if (historyLength === undefined) return tenant === undefined ? { id } : { id, tenant }
  if (!isInt32(historyLength)) return undefined
  return tenant === undefined ? { historyLength, id } : { historyLength, id, tenant }
}
