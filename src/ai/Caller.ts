/**
 * Who the LLM agent works for in this turn, for its tools: the authenticated Principal, the task and context, and,
 * when the operator allows it (`LlmAgent` option `forwardBearerToken`), the caller's bearer token, so a tool can
 * call another service on the caller's behalf. The token is `Redacted`: it never shows in logs or errors.
 *
 * @example
 * ```ts
 * import { Caller } from "effect-a2a/ai"
 * import { Effect, Schema } from "effect"
 * import { Tool } from "effect/ai"
 *
 * // a tool whose handler reads the caller
 * const WhoAmI = Tool.make("who_am_i", { success: Schema.String, dependencies: [Caller.Caller] })
 * const handler = () => Effect.map(Effect.service(Caller.Caller), (caller) => caller.principal.id)
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Principal } from "../server/Principal.ts"
import type { RequestContext } from "../server/RequestContext.ts"

/**
 * The caller of the current turn, for tool handlers: who is asking (the principal) and in which task and context.
 *
 * @since 0.1.0
 * @category services
 */
export class Caller extends Context.Service<Caller, {
  readonly principal: Principal
  readonly taskId: string
  readonly contextId: string
  /** The request's tenant ("" when none). */
  readonly tenant: string
  /** The caller's bearer token: None unless the operator allows forwarding it, or when the call carried none. */
  readonly bearerToken: Option.Option<Redacted.Redacted<string>>
}>()("effect-a2a/ai/Caller") {}

const bearer = /^bearer\s+(\S+)\s*$/i

/**
 * The caller of one request; the bearer token is read from its Authorization header only when `forwardToken`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromRequest = (context: RequestContext, forwardToken: boolean): Caller["Service"] => {
  const authorization = forwardToken ? context.call.headers["authorization"] : undefined
  const token = authorization === undefined ? undefined : bearer.exec(authorization)?.[1]
  return Caller.of({
    principal: context.principal,
    taskId: context.taskId,
    contextId: context.contextId,
    tenant: context.tenant,
    bearerToken: token === undefined ? Option.none() : Option.some(Redacted.make(token))
  })
}
