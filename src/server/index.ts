/**
 * effect-a2a server: the services (one module each, imported as namespaces), the RequestHandler that
 * implements the A2A operations once, the demo agent, and the HTTP bindings.
 */
export * as A2AServer from "./A2AServer.ts"
export * as AgentCardConfig from "./AgentCardConfig.ts"
export * as AgentExecutor from "./AgentExecutor.ts"
export * as Auth from "./Auth.ts"
export * as CallContext from "./CallContext.ts"
export * as DemoAgent from "./DemoAgent.ts"
export * as DurableServer from "./DurableServer.ts"
export * as EventBus from "./EventBus.ts"
export * as A2AHttp from "./http/A2AHttp.ts"
export * as HttpBindingOptions from "./http/HttpBindingOptions.ts"
export * as GuardedRequestHandler from "./push/GuardedRequestHandler.ts"
export * as WebhookGuard from "./push/WebhookGuard.ts"
export * as WebhookPush from "./push/WebhookPush.ts"
export * as WebhookPushNotifier from "./push/WebhookPushNotifier.ts"
export * as PushConfigStore from "./PushConfigStore.ts"
export * as PushNotifier from "./PushNotifier.ts"
export * as RequestHandler from "./RequestHandler.ts"
export * as TaskStore from "./TaskStore.ts"
export * as TaskUpdater from "./TaskUpdater.ts"
