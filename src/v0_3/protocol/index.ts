/**
 * A2A 0.3 <-> 1.0 translation: every object that crosses the wire, both directions (see each module).
 *
 * @example
 * ```ts
 * import type { Task } from "effect-a2a/protocol/v1"
 * import { Translation } from "effect-a2a/v0_3"
 *
 * declare const task: Task
 * const legacy = Translation.Tasks.fromV1Task(task) // the same task as a 0.3 client reads it
 * ```
 *
 * @since 0.1.0
 */
export * as AgentCards from "./AgentCards.ts"
export * as Messages from "./Messages.ts"
export * as ProtoJson from "./ProtoJson.ts"
export * as PushConfigs from "./PushConfigs.ts"
export * as Requests from "./Requests.ts"
export * as Tasks from "./Tasks.ts"
export * as WireInput from "./WireInput.ts"
