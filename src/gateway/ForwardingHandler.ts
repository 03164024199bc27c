/**
 * A RequestHandler whose every operation is forwarded to one registered agent through the A2A client: the client
 * speaks whatever binding and version the agent's card offers, so a caller of the gateway in any binding reaches an
 * agent in any other. Tasks live upstream; streams are forwarded event by event as the caller pulls them; cancel and
 * subscribe go upstream too (the upstream's extended card does not: it is the gateway's). Upstream errors keep their A2A meaning; an agent that cannot be reached, or does not
 * answer in time, is `Unavailable`, one that answers what the client cannot read `InvalidAgentResponse`; every
 * message is stripped of the agent's credentials. What a call shows of the agent's health is reported to the
 * registry.
 *
 * The upstream sees the gateway's credentials, not the caller's: the agent's `allow` list decides who reaches it.
 *
 * @example
 * ```ts
 * import { ForwardingHandler, GatewayRegistry } from "effect-a2a/gateway"
 * import { CallContext } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * const task = Effect.gen(function*() {
 *   const registry = yield* GatewayRegistry.GatewayRegistry
 *   const stored = yield* registry.lookup("billing")
 *   if (stored._tag === "None") return undefined
 *   const handler = ForwardingHandler.make(yield* registry.connect(stored.value), registry)
 *   return yield* handler.getTask({ id: "t-1" }, CallContext.make())
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type { A2AClientError } from "../client/A2AClientError.ts"
import {
  type A2AError,
  ExtendedAgentCardNotConfigured,
  InternalError,
  InvalidAgentResponse,
  Unavailable
} from "../protocol/A2AError.ts"
import type { CallContext } from "../server/CallContext.ts"
import type { Handlers } from "../server/RequestHandler.ts"
import * as GatewayCredentials from "./GatewayCredentials.ts"
import type { Connected, GatewayRegistry } from "./GatewayRegistry.ts"

/**
 * The caller's error for an upstream failure, naming the agent, never its credentials.
 *
 * @since 0.2.0
 * @category utils
 */
export const toA2AError = (agent: string, secrets: ReadonlyArray<string>) => (error: A2AClientError): A2AError => {
  const say = (text: string) => GatewayCredentials.mask(text, secrets)
  switch (error._tag) {
    case "A2ATransportError":
      return error.reason === "Timeout"
        ? new Unavailable({ message: say(`Agent ${agent} did not answer in time: ${error.message}`) })
        : error.reason === "Unreachable" || error.reason === "ConnectionLost"
        ? new Unavailable({ message: say(`Agent ${agent} cannot be reached: ${error.message}`) })
        : new InternalError({ message: say(`Agent ${agent} could not be called: ${error.message}`) })
    case "A2AResponseError":
      return error.reason === "UnexpectedStatus" && error.status >= 500
        ? new Unavailable({ message: say(`Agent ${agent} is unavailable: ${error.message}`) })
        : new InvalidAgentResponse({
          message: say(`Agent ${agent} answered what the gateway cannot read: ${error.message}`)
        })
    // The caller did authenticate, with the gateway: the agent refusing the gateway's own credentials is the
    // gateway's failure, not the caller's.
    case "Unauthenticated":
    case "PermissionDenied":
      return new InternalError({ message: say(`Agent ${agent} refused the gateway's credentials: ${error.message}`) })
    default:
      return error.message === say(error.message) ? error : { ...error, message: say(error.message) } as A2AError
  }
}

const withoutTenant = <T extends { readonly tenant?: string | undefined }>(req: T): Omit<T, "tenant"> => {
  const { tenant: _tenant, ...rest } = req
  return rest
}

/**
 * The forwarding handlers for a connected agent.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (agent: Connected, registry: GatewayRegistry["Service"]): Handlers => {
  const { client, secrets, stored } = agent
  const mapError = toA2AError(stored.name, secrets)
  const call = (ctx: CallContext) => ctx.extensions.length > 0 ? { extensions: ctx.extensions } : undefined
  const unary = <A>(effect: Effect.Effect<A, A2AClientError>): Effect.Effect<A, A2AError> =>
    effect.pipe(
      Effect.tapError((error) => registry.report(stored.name, Result.fail(error))),
      Effect.tap(() => registry.report(stored.name, Result.void)),
      Effect.mapError(mapError)
    )
  const streamed = <A>(stream: Stream.Stream<A, A2AClientError>): Stream.Stream<A, A2AError> =>
    stream.pipe(
      Stream.tapError((error) => registry.report(stored.name, Result.fail(error))),
      Stream.mapError(mapError)
    )
  return {
    sendMessage: (req, ctx) => unary(client.sendMessage(withoutTenant(req), call(ctx))),
    sendStreamingMessage: (req, ctx) => streamed(client.sendStreamingMessage(withoutTenant(req), call(ctx))),
    getTask: (req, ctx) => unary(client.getTask(withoutTenant(req), call(ctx))),
    listTasks: (req, ctx) => unary(client.listTasks(withoutTenant(req), call(ctx))),
    cancelTask: (req, ctx) => unary(client.cancelTask(withoutTenant(req), call(ctx))),
    subscribeToTask: (req, ctx) => streamed(client.subscribeToTask(withoutTenant(req), call(ctx))),
    createTaskPushNotificationConfig: (req, ctx) =>
      unary(client.createTaskPushNotificationConfig(withoutTenant(req), call(ctx))),
    getTaskPushNotificationConfig: (req, ctx) =>
      unary(client.getTaskPushNotificationConfig(withoutTenant(req), call(ctx))),
    listTaskPushNotificationConfigs: (req, ctx) =>
      unary(client.listTaskPushNotificationConfigs(withoutTenant(req), call(ctx))),
    deleteTaskPushNotificationConfig: (req, ctx) =>
      Effect.as(unary(client.deleteTaskPushNotificationConfig(withoutTenant(req), call(ctx))), {}),
    // The upstream's extended card is the one it keeps for the gateway's own principal, with its own interfaces:
    // not the caller's to read. The card the gateway serves says it has none.
    getExtendedAgentCard: () =>
      Effect.fail(
        new ExtendedAgentCardNotConfigured({ message: `Agent ${stored.name} has no extended card at the gateway` })
      )
  }
}
