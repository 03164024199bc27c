/**
 * effect-a2a protocol: the operations (declared once, as data), the typed A2A errors and their JSON-RPC / HTTP /
 * gRPC mappings, the JSON-RPC envelope, task states and protocol versions. The generated 1.0 and 0.3 schemas are `effect-a2a/protocol/v1` and
 * `effect-a2a/protocol/v0_3`. Needs only `effect`.
 *
 * @example
 * ```ts
 * import { A2AError, TaskStates } from "effect-a2a/protocol"
 *
 * const notFound = new A2AError.TaskNotFound({ message: "Task t-1 not found" })
 * A2AError.toJsonRpcError(notFound).code // -32001
 * TaskStates.isTerminal("TASK_STATE_COMPLETED") // true
 * ```
 *
 * @since 0.1.0
 */
export * as A2AError from "./A2AError.ts"
export * as AgentCardCanonical from "./AgentCardCanonical.ts"
export * as FieldViolations from "./FieldViolations.ts"
export * as JsonRpc from "./JsonRpc.ts"
export * as Operations from "./Operations.ts"
export * as TaskStates from "./TaskStates.ts"
export * as Version from "./Version.ts"
