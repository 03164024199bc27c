/**
 * What an agent's stream carries.
 */
import type * as v1 from "../protocol/generated/v1.ts"

/** One agent event, in its wire wrapper: `{ message }`, `{ task }`, `{ statusUpdate }` or `{ artifactUpdate }`. */
export type AgentEvent = v1.StreamResponse
