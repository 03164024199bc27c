/**
 * A2A protocol 1.0: an Effect Schema, and its type, for every definition of the A2A JSON Schema (generated from
 * it: protocol/generated/v1.ts, `npm run codegen`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Task } from "effect-a2a/protocol/v1"
 *
 * const task = Schema.decodeUnknownSync(Task)({ id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } })
 * ```
 *
 * @since 0.1.0
 */
export * from "./generated/v1.ts"
