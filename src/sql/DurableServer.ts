/**
 * The server core for real use: SQL stores (SQLite in A2A_DATA_DIR, or PostgreSQL at A2A_DATABASE_URL) with
 * migrations and restart recovery, webhook push notifications through the delivery of your runtime (`push`: on
 * Node `WebhookPush.layerConfig` from effect-a2a/node, whose connections are pinned to the addresses the SSRF
 * guard vetted; elsewhere `WebPush.layer()` from effect-a2a/web), the in-process EventBus and Auth from
 * configuration. Same services as `A2AServer.layer`, which keeps
 * everything in memory and delivers no webhooks; swap any of them the same way (see `A2AServer.layerCore`).
 * The agent's layer is built over the stores, so an LLM agent (`effect-a2a/ai`) keeps its conversations in the same
 * database (the SQL stores provide Effect's `BackingPersistence`), and they survive a restart.
 *
 * @example
 * ```ts
 * import { NodeA2AServer, WebhookPush } from "effect-a2a/node"
 * import { DemoAgent } from "effect-a2a/server"
 * import { DurableServer } from "effect-a2a/sql"
 * import { Layer } from "effect"
 *
 * // the server core over SQLite in A2A_DATA_DIR (or PostgreSQL at A2A_DATABASE_URL), with webhook push
 * const server = NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(
 *     DurableServer.layerConfig({ card: DemoAgent.card, executor: DemoAgent.make(), push: WebhookPush.layerConfig })
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as A2A11 from "../server/A2A11.ts"
import * as A2AServer from "../server/A2AServer.ts"
import type * as AgentCardConfig from "../server/AgentCardConfig.ts"
import * as AgentExecutor from "../server/AgentExecutor.ts"
import * as Auth from "../server/Auth.ts"
import * as EventBus from "../server/EventBus.ts"
import * as GuardedRequestHandler from "../server/push/GuardedRequestHandler.ts"
import type { WebhookGuard } from "../server/push/WebhookGuard.ts"
import type { PushConfigStore } from "../server/PushConfigStore.ts"
import type { PushNotifier } from "../server/PushNotifier.ts"
import type { TaskStore } from "../server/TaskStore.ts"
import type * as SqlStore from "./SqlStore.ts"

/**
 * What webhook push brings the server: the notifier, and the guard that vets webhook URLs when configs are set.
 *
 * @since 0.1.0
 * @category models
 */
export type Push = PushNotifier | WebhookGuard

/**
 * The server's agent, its card, its webhook push, and what the stores of `layerConfig` are set with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<E, R> extends AgentCardConfig.AgentCardOptions {
  /** The agent: an executor, or a layer that builds one. */
  readonly executor: AgentExecutor.AgentExecutor["Service"] | Layer.Layer<AgentExecutor.AgentExecutor, E, R>
  /**
   * Webhook push over the stores' push configs, delivered as the runtime can: `WebhookPush.layerConfig`
   * (effect-a2a/node: connections pinned to the vetted addresses) or `WebPush.layer()` (effect-a2a/web: `fetch`).
   */
  readonly push: Layer.Layer<Push, Config.ConfigError, PushConfigStore>
  /**
   * How long the SQL stores of `layerConfig` keep a message's receipt (see MessageReceipts); default
   * `A2A_IDEMPOTENCY_WINDOW`, else 24 hours. With `layerWithStores`, the stores given keep them (or, without
   * MessageReceipts among them, the handler keeps them in memory).
   */
  readonly idempotencyWindow?: Duration.Input | undefined
  /**
   * `layerConfig` on PostgreSQL: this node's role in the cluster engine, which it turns on (see
   * `SqlStore.ClusterOptions`): true runs turns, false only takes requests (`serve --no-execute`). Absent: the
   * engine is on unless A2A_CLUSTER=false.
   */
  readonly execute?: boolean | undefined
  /**
   * Serve the A2A 1.1 draft (task generations, long-poll GetTask, conditional sends; see A2A11): `true` or its
   * options, `false` off; absent: `A2A_PROTOCOL_DRAFT=1.1` turns it on.
   */
  readonly a2a11?: boolean | A2A11.Options | undefined
}

/**
 * RequestHandler (webhook URLs guarded), AgentCardConfig and Auth (from configuration) over the given stores,
 * with the webhook push delivery of `options.push`, and the stores' EventBus if they have one (else the in-process one).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithStores = <SE, E = never, R = never>(
  stores: Layer.Layer<TaskStore | PushConfigStore, SE>,
  options: Options<E, R>
): Layer.Layer<A2AServer.Services, E | SE | Config.ConfigError, R> =>
  GuardedRequestHandler.layer.pipe(
    Layer.provideMerge(A2AServer.layerCore(options)),
    Layer.provide("execute" in options.executor ? AgentExecutor.layer(options.executor) : options.executor),
    Layer.provideMerge(
      // Stores shared by several processes (SqlStore on PostgreSQL) bring the EventBus that reaches them all:
      // merged last, it replaces the in-process one.
      options.push.pipe(Layer.provideMerge(Layer.merge(EventBus.layerInProcess, stores)))
    ),
    Layer.provideMerge(Auth.layerConfig),
    // Merged, so that the bindings served over this core see the switch too.
    Layer.provideMerge(A2A11.layerOption(options.a2a11, true))
  )

// The SQL stores (and effect/sql, node:sqlite) are loaded when this layer is built, so that a server given other
// stores through `layerWithStores` (`effect-a2a serve --memory`) never loads them and starts with less in memory.
// Our own module: a failure to load it is a defect.
const sqlStores = (idempotencyWindow: Duration.Input | undefined, execute: boolean | undefined) =>
  Layer.unwrap(
    Effect.promise(() => import("./SqlStore.ts")).pipe(
      Effect.map((SqlStore) => SqlStore.layerConfig({ idempotencyWindow, execute }))
    )
  )

/**
 * The durable server core: `layerWithStores` over the SQL stores picked from configuration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = <E = never, R = never>(
  options: Options<E, R>
): Layer.Layer<A2AServer.Services, E | SqlStore.StoreError | Config.ConfigError, R> =>
  layerWithStores(sqlStores(options.idempotencyWindow, options.execute), options)
