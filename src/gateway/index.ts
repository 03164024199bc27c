/**
 * The gateway: a registry of A2A agents behind one front door. Register agents while it runs (admin API, CLI, or
 * in code), reach each one under `/agents/{name}` in any binding the gateway serves, whatever binding and version
 * the agent itself speaks; keep each agent's credentials sealed; decide who may see and call which agent.
 *
 * `effect-a2a gateway` runs it; `Gateway.routes` mounts it on your own HttpRouter.
 *
 * @example
 * ```ts
 * import { Gateway } from "effect-a2a/gateway"
 * import { Auth } from "effect-a2a/server"
 * import { Layer } from "effect"
 * import { FetchHttpClient, HttpRouter } from "effect/http"
 *
 * const app = HttpRouter.serve(Gateway.routes()).pipe(
 *   Layer.provide(Gateway.layerMemory),
 *   Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.2.0
 */
export * as AdminApi from "./AdminApi.ts"
export * as AgentHealth from "./AgentHealth.ts"
export * as ByteRelay from "./ByteRelay.ts"
export * as ForwardingHandler from "./ForwardingHandler.ts"
export * as FrontDoor from "./FrontDoor.ts"
export * as Gateway from "./Gateway.ts"
export * as GatewayCredentials from "./GatewayCredentials.ts"
export * as GatewayError from "./GatewayError.ts"
export * as GatewayRegistry from "./GatewayRegistry.ts"
export * as GatewayStore from "./GatewayStore.ts"
export * as RegistryMcp from "./RegistryMcp.ts"
export * as RestPassthrough from "./RestPassthrough.ts"
