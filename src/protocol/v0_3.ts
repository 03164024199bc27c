/**
 * A2A protocol 0.3: an Effect Schema, and its type, for every definition of the A2A 0.3 JSON Schema (generated from
 * it: protocol/generated/v0_3.ts, `npm run codegen`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Task } from "effect-a2a/protocol/v0_3"
 *
 * const task = Schema.decodeUnknownSync(Task)({
 *   kind: "task",
 *   id: "t-1",
 *   contextId: "c-1",
 *   status: { state: "working" }
 * })
 * ```
 *
 * @since 0.1.0
 */
export * from "./generated/v0_3.ts"
