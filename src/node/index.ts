/**
 * effect-a2a on Node: the A2A server on Node's HTTP server (`NodeA2AServer`, with the dev UI and API docs of
 * effect-a2a/pages), and webhook push delivery over Node's HTTP client, each connection pinned to the addresses
 * the SSRF guard vetted (`WebhookPush`; its parts `PinnedDeliveryClient` and `PinnedLookup` in `push/`). The
 * runtime-neutral notifier and guard (`WebhookPushNotifier`, `WebhookGuard`, `GuardedRequestHandler`) live in the
 * server core and are re-exported here; effect-a2a/web delivers through them over `fetch`. For a small process
 * (`NodeA2AServer.serve`'s `lowMemory`): `IdleMemoryRelease` and `YoungGenerationBound`. For the gateway
 * (effect-a2a/gateway): `NodeNativeRelay`, its byte relay on Node's own request, response and undici's dispatcher.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import * as Layer from "effect/Layer"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 *
 * NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
export * as GuardedRequestHandler from "../server/push/GuardedRequestHandler.ts"
export * as WebhookGuard from "../server/push/WebhookGuard.ts"
export * as WebhookPushNotifier from "../server/push/WebhookPushNotifier.ts"
export * as IdleMemoryRelease from "./IdleMemoryRelease.ts"
export * as NodeA2AServer from "./NodeA2AServer.ts"
export * as NodeNativeHttp from "./NodeNativeHttp.ts"
export * as NodeNativeRelay from "./NodeNativeRelay.ts"
export * as PinnedDeliveryClient from "./push/PinnedDeliveryClient.ts"
export * as PinnedLookup from "./push/PinnedLookup.ts"
export * as WebhookPush from "./push/WebhookPush.ts"
export * as YoungGenerationBound from "./YoungGenerationBound.ts"
