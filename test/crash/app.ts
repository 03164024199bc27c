/**
 * The durable server stack, as `effect-a2a serve` should wire it: SQL stores (SQLite in A2A_DATA_DIR, or
 * PostgreSQL at A2A_DATABASE_URL) with restart recovery, webhook push notifications with the SSRF guard at
 * config creation and at delivery, the in-process event bus, and the demo agent.
 */
import { Layer } from "effect"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as EventBus from "../../src/server/EventBus.ts"
import * as GuardedRequestHandler from "../../src/server/push/GuardedRequestHandler.ts"
import * as WebhookPush from "../../src/server/push/WebhookPush.ts"
import * as SqlStore from "../../src/store/SqlStore.ts"

export const services = Layer.mergeAll(WebhookPush.layerConfig, EventBus.layerInProcess).pipe(
  Layer.provideMerge(SqlStore.layerConfig())
)

/** RequestHandler (guarded), AgentCardConfig and Auth over the durable services. */
export const core = (demo: DemoAgent.DemoOptions = {}) =>
  GuardedRequestHandler.layer.pipe(
    Layer.provideMerge(A2AServer.layerCore({ card: DemoAgent.card })),
    Layer.provide(DemoAgent.layer(demo)),
    Layer.provideMerge(services),
    Layer.provideMerge(Auth.layerNone)
  )
