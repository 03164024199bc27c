/**
 * The server core in one layer: RequestHandler, AgentCardConfig and Auth over the memory stores, the
 * in-process EventBus and the no-op PushNotifier. To swap a service, build from `layerCore` and provide your
 * layer before `memoryServices` (the first provider of a service wins):
 *
 *   A2AServer.layerCore({ card }).pipe(
 *     Layer.provide(AgentExecutor.layer(myAgent)),
 *     Layer.provide(mySqlTaskStore),
 *     Layer.provide(A2AServer.memoryServices)
 *   )
 *
 * @example
 * ```ts
 * import { A2AServer, AgentExecutor, Auth, DemoAgent } from "effect-a2a/server"
 *
 * // the whole server core in memory, with bearer authentication
 * const server = A2AServer.layer({
 *   card: DemoAgent.card,
 *   executor: AgentExecutor.replyWithText((text) => `You said: ${text}`),
 *   auth: Auth.bearer({ tokens: { "s3cret": "alice" } })
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as A2A11 from "./A2A11.ts"
import * as AgentCardConfig from "./AgentCardConfig.ts"
import * as AgentExecutor from "./AgentExecutor.ts"
import * as Auth from "./Auth.ts"
import * as EventBus from "./EventBus.ts"
import * as MemoryMessageReceipts from "./memory/MemoryMessageReceipts.ts"
import * as MemoryPushConfigStore from "./memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "./memory/MemoryTaskStore.ts"
import type * as PushConfigStore from "./PushConfigStore.ts"
import * as PushNotifier from "./PushNotifier.ts"
import * as RequestHandler from "./RequestHandler.ts"
import type * as TaskStore from "./TaskStore.ts"

/**
 * What the bindings need: the handler, the card, and the authenticator.
 *
 * @since 0.1.0
 * @category models
 */
export type Services = RequestHandler.RequestHandler | AgentCardConfig.AgentCardConfig | Auth.Auth

/**
 * What the core needs besides Auth.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements =
  | TaskStore.TaskStore
  | PushConfigStore.PushConfigStore
  | EventBus.EventBus
  | PushNotifier.PushNotifier
  | AgentExecutor.AgentExecutor

/**
 * RequestHandler and AgentCardConfig over whatever services (and Auth) are provided.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCore = (
  options: AgentCardConfig.AgentCardOptions
): Layer.Layer<RequestHandler.RequestHandler | AgentCardConfig.AgentCardConfig, never, Requirements | Auth.Auth> =>
  RequestHandler.layer.pipe(Layer.provideMerge(AgentCardConfig.layer(options)))

/**
 * Memory TaskStore and PushConfigStore, in-process EventBus, no-op PushNotifier. (Without MessageReceipts, the
 * RequestHandler keeps them in memory with the default window.)
 *
 * @since 0.1.0
 * @category utils
 */
export const memoryServices: Layer.Layer<
  TaskStore.TaskStore | PushConfigStore.PushConfigStore | EventBus.EventBus | PushNotifier.PushNotifier
> = Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer, EventBus.layerInProcess, PushNotifier.layerNoop)

/**
 * What `layer` serves: the agent card options, the agent (its executor layer) and the stores to keep tasks in.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<E, R> extends AgentCardConfig.AgentCardOptions {
  /** The agent: an executor, or a layer that builds one. */
  readonly executor: AgentExecutor.AgentExecutor["Service"] | Layer.Layer<AgentExecutor.AgentExecutor, E, R>
  /** Authentication; default none (anonymous). */
  readonly auth?: Auth.Auth["Service"] | undefined
  /**
   * How long a message sent again under its messageId is answered with its first outcome instead of running
   * again (see MessageReceipts). Default 24 hours; zero keeps no receipts.
   */
  readonly idempotencyWindow?: Duration.Input | undefined
  /**
   * Serve the A2A 1.1 draft (task generations, long-poll GetTask, conditional sends; see A2A11): `true` or its
   * options. Default off (`layerConfig`: `A2A_PROTOCOL_DRAFT=1.1` turns it on).
   */
  readonly a2a11?: boolean | A2A11.Options | undefined
}

const executorLayer = <E, R>(executor: Options<E, R>["executor"]): Layer.Layer<AgentExecutor.AgentExecutor, E, R> =>
  "execute" in executor ? AgentExecutor.layer(executor) : executor

/**
 * A complete in-memory server core.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E = never, R = never>(options: Options<E, R>): Layer.Layer<Services, E, R> =>
  layerCore(options).pipe(
    Layer.provide(executorLayer(options.executor)),
    Layer.provide(MemoryMessageReceipts.layerWith({ window: options.idempotencyWindow })),
    Layer.provide(memoryServices),
    Layer.provideMerge(Layer.succeed(Auth.Auth, options.auth ?? Auth.none)),
    // Merged, so that the bindings served over this core see the switch too.
    Layer.provideMerge(A2A11.layerOption(options.a2a11).pipe(Layer.orDie))
  )

/**
 * Like `layer`, with Auth read from configuration (see `Auth.layerConfig`), and the idempotency window from
 * `A2A_IDEMPOTENCY_WINDOW` unless given.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = <E = never, R = never>(
  options: Omit<Options<E, R>, "auth">
): Layer.Layer<Services, E | Config.ConfigError, R> =>
  layerCore(options).pipe(
    Layer.provide(executorLayer(options.executor)),
    Layer.provide(
      options.idempotencyWindow === undefined
        ? MemoryMessageReceipts.layerConfig
        : MemoryMessageReceipts.layerWith({ window: options.idempotencyWindow })
    ),
    Layer.provide(memoryServices),
    Layer.provideMerge(Auth.layerConfig),
    Layer.provideMerge(A2A11.layerOption(options.a2a11, true))
  )
