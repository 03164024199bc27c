/**
 * A RequestHandler whose every operation is forwarded to one registered agent through the A2A client: the client
 * speaks whatever binding and version the agent's card offers, so a caller of the gateway in any binding reaches an
 * agent in any other. Tasks live upstream; streams are forwarded event by event as the caller pulls them; cancel and
 * subscribe go upstream too. Upstream errors keep their A2A meaning; an agent that cannot be reached, or does not
 * answer in time, is `Unavailable`, one that answers what the client cannot read `InvalidAgentResponse`; every
 * message is stripped of the agent's credentials. The registry's client reports what each call shows of the
 * agent's health.
 *
 * The extended card: when the upstream card says it has one, an authenticated caller of the gateway gets the
 * upstream's extended card (fetched with the agent's credentials, so it is the one the agent keeps for the gateway)
 * rendered as the public card is: its interfaces the gateway's, its security the gateway's Auth, no upstream
 * signature. An anonymous caller is `Unauthenticated`, as at any server.
 *
 * The upstream sees the gateway's credentials, not the caller's: the agent's `allow` list decides who reaches it.
 *
 * @example
 * ```ts
 * import { ForwardingHandler, GatewayRegistry } from "effect-a2a/gateway"
 * import { Auth, CallContext } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * const task = Effect.gen(function*() {
 *   const registry = yield* GatewayRegistry.GatewayRegistry
 *   const stored = yield* registry.lookup("billing")
 *   if (stored._tag === "None") return undefined
 *   const handler = ForwardingHandler.make(yield* registry.connect(stored.value), Auth.none)
 *   return yield* handler.getTask({ id: "t-1" }, CallContext.make())
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { A2AClientError, AgentCardSignatureError } from "../client/A2AClientError.ts"
import {
  type A2AError,
  InternalError,
  InvalidAgentResponse,
  Unauthenticated,
  Unavailable,
  UnsupportedOperation
} from "../protocol/A2AError.ts"
import * as AgentCardConfig from "../server/AgentCardConfig.ts"
import type { AuthService } from "../server/Auth.ts"
import type { CallContext } from "../server/CallContext.ts"
import type { Handlers } from "../server/RequestHandler.ts"
import * as GatewayCredentials from "./GatewayCredentials.ts"
import type { Connected } from "./GatewayRegistry.ts"
import * as CardTemplate from "./internal/CardTemplate.ts"

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
export const make = (agent: Connected, auth: AuthService): Handlers => {
  const { client, secrets, stored } = agent
  const mapError = toA2AError(stored.name, secrets)
  const call = (ctx: CallContext) => ctx.extensions.length > 0 ? { extensions: ctx.extensions } : undefined
  const unary = <A>(effect: Effect.Effect<A, A2AClientError>): Effect.Effect<A, A2AError> =>
    Effect.mapError(effect, mapError)
  const streamed = <A>(stream: Stream.Stream<A, A2AClientError>): Stream.Stream<A, A2AError> =>
    Stream.mapError(stream, mapError)
  const mapCardError = (error: A2AClientError | AgentCardSignatureError): A2AError =>
    error._tag === "AgentCardSignatureError"
      ? new InvalidAgentResponse({
        message: GatewayCredentials.mask(
          `Agent ${stored.name}'s extended card is signed, and its signature does not verify: ${error.message}`,
          secrets
        )
      })
      : mapError(error)
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
    getExtendedAgentCard: (_req, ctx) =>
      Effect.gen(function*() {
        if (stored.card.capabilities.extendedAgentCard !== true) {
          return yield* new UnsupportedOperation({ message: `Agent ${stored.name} has no extended agent card` })
        }
        if (ctx.principal.anonymous) {
          return yield* new Unauthenticated({ message: "The extended agent card requires an authenticated client" })
        }
        const upstream = yield* Effect.mapError(client.getExtendedAgentCard(call(ctx)), mapCardError)
        const template = CardTemplate.of(upstream)
        return AgentCardConfig.make({
          card: { ...template, capabilities: { ...template.capabilities, extendedAgentCard: true } }
        }, auth).publicCard(ctx.interfaces ?? [])
      })
  }
}
