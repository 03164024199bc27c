/**
 * What an agent is given for one SendMessage: the message, the task it works on, who asked and how. An
 * AgentExecutor reads it; the engine makes one per turn.
 *
 * @since 0.1.0
 */
import type * as Option from "effect/Option"
import type * as v1 from "../protocol/generated/v1.ts"
import type { Principal } from "./Auth.ts"
import type { CallContext } from "./CallContext.ts"

/**
 * What an agent is given for one message: the message, its task (if it continues one), the caller and the
 * request's configuration.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestContext {
  /** The client's message; `contextId` is always set, `taskId` when it continues a task. */
  readonly message: v1.Message
  /** The task this execution works on: the continued task's id, or the id to give a new task. */
  readonly taskId: string
  readonly contextId: string
  /** The task being continued (its history already holds `message`); None for a new task. */
  readonly task: Option.Option<v1.Task>
  readonly principal: Principal
  /**
   * The request's `tenant` (the REST `/{tenant}` path prefix or the JSON-RPC `tenant` param); "" when it names
   * none. The task belongs to this tenant: it is found only by requests under the same one.
   */
  readonly tenant: string
  /** `SendMessageRequest.metadata`. */
  readonly metadata: { readonly [k: string]: unknown } | undefined
  readonly configuration: v1.SendMessageConfiguration | undefined
  /** Extension URIs the client declared for this request. */
  readonly extensions: ReadonlyArray<string>
  readonly call: CallContext
}
