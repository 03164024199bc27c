/**
 * Task lifecycle rules (spec 4.1.3, 3.2.2): which states are terminal (the task accepts nothing more),
 * which are interrupted (the task waits for the client), and which transitions an agent may make.
 *
 * @example
 * ```ts
 * import { TaskStates } from "effect-a2a/protocol"
 *
 * TaskStates.isTerminal("TASK_STATE_COMPLETED") // true
 * TaskStates.isFinal("TASK_STATE_INPUT_REQUIRED") // true: the turn is over, the task is not
 * TaskStates.label("TASK_STATE_INPUT_REQUIRED") // "input-required"
 * ```
 *
 * @since 0.1.0
 */
import type * as v1 from "./generated/v1.ts"

/**
 * A task state of A2A 1.0.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskState = v1.TaskState

/**
 * The terminal states: COMPLETED, FAILED, CANCELED, REJECTED.
 *
 * @since 0.1.0
 * @category constants
 */
export const TERMINAL = [
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED"
] as const satisfies ReadonlyArray<TaskState>

/**
 * COMPLETED, FAILED, CANCELED, REJECTED: the task is over; it accepts no messages and no cancel.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTerminal = (state: TaskState): boolean =>
  state === "TASK_STATE_COMPLETED" || state === "TASK_STATE_FAILED" || state === "TASK_STATE_CANCELED" ||
  state === "TASK_STATE_REJECTED"

/**
 * INPUT_REQUIRED, AUTH_REQUIRED: the task waits for the client before it can go on.
 *
 * @since 0.1.0
 * @category guards
 */
export const isInterrupted = (state: TaskState): boolean =>
  state === "TASK_STATE_INPUT_REQUIRED" || state === "TASK_STATE_AUTH_REQUIRED"

/**
 * Terminal or interrupted: a blocking SendMessage returns, a send stream closes (spec 3.2.2).
 *
 * @since 0.1.0
 * @category guards
 */
export const isFinal = (state: TaskState): boolean => isTerminal(state) || isInterrupted(state)

/**
 * Whether an agent may move a task from `from` to `to`. Nothing leaves a terminal state, and nothing enters
 * UNSPECIFIED; every other move is allowed (agents may skip states, e.g. SUBMITTED -> COMPLETED).
 *
 * @since 0.1.0
 * @category utils
 */
export const canTransition = (from: TaskState, to: TaskState): boolean =>
  !isTerminal(from) && to !== "TASK_STATE_UNSPECIFIED"

/**
 * Short lower-case name for messages: TASK_STATE_INPUT_REQUIRED -> "input-required".
 *
 * @since 0.1.0
 * @category utils
 */
export const label = (state: TaskState): string => state.replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-")
