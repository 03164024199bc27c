/**
 * effect-a2a on web-standard runtimes: the A2A server as a `(request: Request) => Promise<Response>` handler for
 * Bun, Deno, Cloudflare Workers, Vercel Edge, Hono, or Express and Fastify through an adapter (`A2AWeb`), and
 * webhook push over `fetch` (`WebPush`). This entry point loads no `node:` module (a test keeps it so).
 *
 * @example
 * ```ts
 * import { A2AWeb } from "effect-a2a/web"
 * import { AgentExecutor } from "effect-a2a/server"
 *
 * const a2a = A2AWeb.make({
 *   card: {
 *     name: "Echo agent",
 *     description: "Repeats what you say",
 *     version: "1.0.0",
 *     capabilities: { streaming: true },
 *     defaultInputModes: ["text/plain"],
 *     defaultOutputModes: ["text/plain"],
 *     skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
 *   },
 *   executor: AgentExecutor.replyWithText((text) => `You said: ${text}`)
 * })
 *
 * export default { fetch: a2a.handler }
 * ```
 *
 * @since 0.1.0
 */
export * as A2AWeb from "./A2AWeb.ts"
export * as WebPush from "./WebPush.ts"
