/**
 * The A2A HTTP bindings: `A2AHttp.serve` / `A2AHttp.routes` and their settings, plus the pieces a custom
 * binding or edge builds on.
 */
export * as A2AHttp from "./A2AHttp.ts"
export * as HttpBindingOptions from "./HttpBindingOptions.ts"
export * as Operations from "./Operations.ts"
export * as ServerShutdown from "./ServerShutdown.ts"
