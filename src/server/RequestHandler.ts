/**
 * The eleven A2A operations (spec 3.1), implemented once for every binding: the one service every binding
 * (JSON-RPC, REST, gRPC, MCP, the older protocol versions) calls. Requests arrive already decoded by the generated
 * Schemas; semantic validation the schema cannot express happens here and fails with InvalidParams carrying field
 * violations. Knows nothing of HTTP.
 *
 * Use `layer` to serve an agent (A2AServer does), and `RequestHandler` to call an operation without a binding.
 * The operations are made by concern, each in its own module: sending (handler/Sending, with the message claims
 * of MessageClaims), reading and subscribing (handler/Reading), and push configs (handler/PushConfigs).
 *
 * @example
 * ```ts
 * import { CallContext, RequestHandler } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // the operations without HTTP: what every binding calls
 * const task = Effect.gen(function*() {
 *   const handler = yield* RequestHandler.RequestHandler
 *   return yield* handler.getTask({ id: "t-1" }, CallContext.make())
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import {
  type A2AError,
  ExtendedAgentCardNotConfigured,
  Unauthenticated,
  UnsupportedOperation
} from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as Operations from "../protocol/Operations.ts"
import { A2A11 } from "./A2A11.ts"
import { AgentCardConfig } from "./AgentCardConfig.ts"
import { type AgentExecutor } from "./AgentExecutor.ts"
import type { CallContext } from "./CallContext.ts"
import * as TaskRunner from "./engine/TaskRunner.ts"
import { EventBus } from "./EventBus.ts"
import * as Common from "./handler/Common.ts"
import * as PushConfigs from "./handler/PushConfigs.ts"
import * as Reading from "./handler/Reading.ts"
import * as Sending from "./handler/Sending.ts"
import * as Instrumentation from "./internal/Instrumentation.ts"
import * as MessageClaims from "./MessageClaims.ts"
import * as Observability from "./Observability.ts"
import { PushConfigStore } from "./PushConfigStore.ts"
import { type PushNotifier } from "./PushNotifier.ts"
import { ShutdownDeadline } from "./ShutdownDeadline.ts"
import { type TaskScope, TaskStore } from "./TaskStore.ts"

/**
 * One function per A2A operation (protocol/Operations), named by its key: a request/response operation answers
 * an Effect, a streaming one a Stream of its events.
 *
 * @since 0.1.0
 * @category models
 */
export type Handlers = Common.Handlers

/**
 * The A2A operations as a service: what every binding calls.
 *
 * @since 0.1.0
 * @category services
 */
export class RequestHandler extends Context.Service<RequestHandler, Handlers>()("effect-a2a/server/RequestHandler") {}

/**
 * ListTasks page size when the request sets none (spec 3.1.4).
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PAGE_SIZE: number = Common.DEFAULT_PAGE_SIZE

/**
 * The largest page ListTasks and ListTaskPushNotificationConfigs answer.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PAGE_SIZE: number = Common.MAX_PAGE_SIZE

/**
 * Whose tasks a request reaches: the caller's, under the request's tenant (spec 13.1). The tenant is the
 * request's `tenant` field (JSON-RPC param, REST `/{tenant}` prefix); none is the root, a scope of its own.
 *
 * @since 0.1.0
 * @category utils
 */
export const scopeOf: (req: { readonly tenant?: string | undefined }, ctx: CallContext) => TaskScope = Common.scopeOf

/**
 * The handler over the services in context: the engine (TaskRunner) made in the current scope, its executions
 * living as long as it, and the operations of each concern over them. Needs the ShutdownDeadline its server
 * raises; `layer` provides one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const store = yield* TaskStore
  const cards = yield* AgentCardConfig
  const bus = yield* EventBus
  // Decided once: uninstrumented, the operations run as if Observability did not exist.
  const observed = yield* Observability.isEnabled
  const services = yield* Effect.context<never>()
  const runner = yield* (observed
    ? Effect.provideService(TaskRunner.make, EventBus, Instrumentation.countingBus(bus, services))
    : TaskRunner.make)
  const capabilities = cards.capabilities
  const shared: Common.Shared = {
    store,
    pushConfigs: yield* PushConfigStore,
    bus,
    cards,
    capabilities,
    runner,
    draft: yield* A2A11
  }
  const reading = Reading.make(shared)
  const sending = yield* Sending.make(shared, yield* MessageClaims.make(runner, store), reading.follow)
  const pushConfigs = PushConfigs.make(shared)

  const getExtendedAgentCard: Handlers["getExtendedAgentCard"] = Effect.fnUntraced(
    function*(_req, ctx) {
      if (capabilities.extendedAgentCard !== true) {
        return yield* new UnsupportedOperation({
          message: "This agent has no extended agent card (capabilities.extendedAgentCard is false)"
        })
      }
      if (Option.isNone(cards.extendedCard)) {
        return yield* new ExtendedAgentCardNotConfigured({
          message: "This agent declares an extended agent card but none is configured"
        })
      }
      if (ctx.principal.anonymous) {
        return yield* new Unauthenticated({ message: "The extended agent card requires an authenticated client" })
      }
      return yield* cards.extendedCard.value(ctx.interfaces ?? [], ctx.principal, ctx.origin)
    }
  )

  const handlers: Handlers = {
    sendMessage: sending.sendMessage,
    sendStreamingMessage: sending.sendStreamingMessage,
    getTask: reading.getTask,
    listTasks: reading.listTasks,
    cancelTask: reading.cancelTask,
    subscribeToTask: reading.subscribeToTask,
    createTaskPushNotificationConfig: pushConfigs.createTaskPushNotificationConfig,
    getTaskPushNotificationConfig: pushConfigs.getTaskPushNotificationConfig,
    listTaskPushNotificationConfigs: pushConfigs.listTaskPushNotificationConfigs,
    deleteTaskPushNotificationConfig: pushConfigs.deleteTaskPushNotificationConfig,
    getExtendedAgentCard
  }
  return RequestHandler.of(observed ? instrument(handlers, services) : handlers)
})

/** Each operation in its span, counted and timed (see Observability). */
const instrument = (handlers: Handlers, services: Context.Context<never>): Handlers => {
  const { streaming, unary } = Instrumentation.make(services)
  const instrumented: Record<string, unknown> = {}
  for (const op of Operations.all) {
    // Handlers is derived from the operations table, so each key holds its operation's method; TypeScript cannot
    // follow that through the union, hence the casts.
    const method = handlers[op.key] as (req: unknown, ctx: CallContext) => unknown
    instrumented[op.key] = op.streaming
      ? streaming(op, method as (req: unknown, ctx: CallContext) => Stream.Stream<v1.StreamResponse, A2AError>)
      : unary(op, method as (req: unknown, ctx: CallContext) => Effect.Effect<unknown, A2AError>)
  }
  return instrumented as Handlers
}

/**
 * The handler over the services in context (its executions live as long as this layer), with a ShutdownDeadline
 * of its own, also provided for the server runner to raise: servers in one process never share it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<
  RequestHandler,
  never,
  TaskStore | PushConfigStore | EventBus | PushNotifier | AgentExecutor | AgentCardConfig
> = Layer.effectContext(Effect.gen(function*() {
  const deadline = yield* Deferred.make<void>()
  const handler = yield* Effect.provideService(make, ShutdownDeadline, deadline)
  return Context.make(RequestHandler, handler).pipe(Context.add(ShutdownDeadline, deadline))
}))
