/**
 * The A2A 0.1 wire: its shapes (`Schemas`) and their translation to and from the 1.0 model (`Translation`).
 *
 * @example
 * ```ts
 * import { V01 } from "effect-a2a/v0_1"
 *
 * V01.Translation.fromV1TaskState("TASK_STATE_REJECTED") // "failed"
 * ```
 *
 * @since 0.1.0
 */
export * as Schemas from "./Schemas.ts"
export * as Translation from "./Translation.ts"
