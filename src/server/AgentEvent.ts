/**
 * What an agent's stream carries: the first stage of the event path (see the engine, TaskRunner).
 *
 * @since 0.1.0
 */
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * One agent event, in its wire wrapper: `{ message }`, `{ task }`, `{ statusUpdate }` or `{ artifactUpdate }`.
 *
 * @since 0.1.0
 * @category models
 */
export type AgentEvent = v1.StreamResponse
