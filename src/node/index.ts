/**
 * effect-a2a on Node: the A2A server on Node's HTTP server (`NodeA2AServer`), and webhook push delivery over
 * Node's HTTP client with the DNS-pinning SSRF guard (`WebhookPush`, `WebhookPushNotifier`, `WebhookGuard`).
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { NodeA2AServer } from "effect-a2a/node"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 *
 * NodeA2AServer.serve({ port: 8080 }).pipe(
 *   Layer.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() })),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 */
export * as GuardedRequestHandler from "../server/push/GuardedRequestHandler.ts"
export * as WebhookGuard from "../server/push/WebhookGuard.ts"
export * as WebhookPushNotifier from "../server/push/WebhookPushNotifier.ts"
export * as IdleMemoryRelease from "./IdleMemoryRelease.ts"
export * as NodeA2AServer from "./NodeA2AServer.ts"
export * as NodeNativeHttp from "./NodeNativeHttp.ts"
export * as PinnedDeliveryClient from "./push/PinnedDeliveryClient.ts"
export * as PinnedLookup from "./push/PinnedLookup.ts"
export * as WebhookPush from "./push/WebhookPush.ts"
