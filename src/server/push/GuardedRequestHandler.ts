/**
 * Config-time SSRF check (spec 13.2): wraps a RequestHandler so that every push notification config it would
 * store, from CreateTaskPushNotificationConfig or from SendMessage's `configuration.taskPushNotificationConfig`,
 * first passes WebhookGuard.validate and can be sent as HTTP headers. A refused config fails with InvalidParams
 * naming the field and the reason; nothing is stored. The other operations pass through untouched, and so
 * does everything when the card does not declare push notifications (the handler then refuses push configs
 * with PushNotificationNotSupported, spec 3.1.7).
 *
 * @example
 * ```ts
 * import { GuardedRequestHandler, WebhookGuard } from "effect-a2a/node"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 * import { Layer } from "effect"
 * import { NodeDns } from "@effect/platform-node"
 *
 * // refuse webhook URLs to private addresses when push configs are created
 * const guarded = GuardedRequestHandler.layer.pipe(
 *   Layer.provideMerge(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.provide(WebhookGuard.layer()),
 *   Layer.provide(NodeDns.layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { InvalidParams } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { AgentCardConfig } from "../AgentCardConfig.ts"
import * as PushStream from "../internal/PushStream.ts"
import { RequestHandler } from "../RequestHandler.ts"
import { WebhookGuard } from "./WebhookGuard.ts"
import { headerProblem } from "./WebhookPushNotifier.ts"

/**
 * The RequestHandler in context, with every push config it is given checked first (URL and headers).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const inner = yield* RequestHandler
  const guard = yield* WebhookGuard
  const cards = yield* AgentCardConfig
  if (cards.capabilities.pushNotifications !== true) return inner

  const check = (config: v1.TaskPushNotificationConfig, prefix: string): Effect.Effect<void, InvalidParams> =>
    Effect.gen(function*() {
      yield* guard.validate(config.url, `${prefix}url`)
      const problem = headerProblem(config)
      if (problem !== undefined) {
        return yield* new InvalidParams({
          message: `Invalid push notification config: ${prefix}${problem.field}: ${problem.description}`,
          fieldViolations: [{ field: `${prefix}${problem.field}`, description: problem.description }]
        })
      }
    })

  const checkSend = (req: v1.SendMessageRequest) => {
    const config = req.configuration?.taskPushNotificationConfig
    return config === undefined ? Effect.void : check(config, "configuration.taskPushNotificationConfig.")
  }

  return RequestHandler.of({
    ...inner,
    sendMessage: (req, ctx) => Effect.andThen(checkSend(req), inner.sendMessage(req, ctx)),
    sendStreamingMessage: (req, ctx) =>
      PushStream.unwrap(Effect.as(checkSend(req), inner.sendStreamingMessage(req, ctx))),
    createTaskPushNotificationConfig: (req, ctx) =>
      Effect.andThen(check(req, ""), inner.createTaskPushNotificationConfig(req, ctx))
  })
})

/**
 * Provides the guarded RequestHandler over the RequestHandler (and WebhookGuard) given to it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<RequestHandler, never, RequestHandler | WebhookGuard | AgentCardConfig> = Layer.effect(
  RequestHandler,
  make
)
