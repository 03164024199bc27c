// The demo agent on Bun: `bun examples/runtimes/bun.ts` serves it on http://127.0.0.1:$PORT (default 8080),
// A2A 1.0 and 0.3, JSON-RPC at / and REST at the root; try `npx effect-a2a send http://127.0.0.1:8080 "task" --stream`.
import { DemoAgent } from "effect-a2a/server"
import { A2A03 } from "effect-a2a/v0_3"
import { A2AWeb } from "effect-a2a/web"

// What this file uses of Bun (with @types/bun installed, these two lines can go).
declare const Bun: {
  serve(options: {
    hostname: string
    port: number
    idleTimeout: number
    fetch: (request: Request) => Promise<Response>
  }): { readonly port: number; stop(closeActiveConnections?: boolean): Promise<void> }
  readonly env: Record<string, string | undefined>
}
declare const process: { on(signal: "SIGINT" | "SIGTERM", listener: () => void): void }

const a2a = A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make(), layers: A2A03.server })

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(Bun.env["PORT"] ?? 8080),
  // Bun closes a connection idle for 10 s by default; event streams send a keep-alive comment every 15 s.
  idleTimeout: 60,
  fetch: a2a.handler
})
console.log(`A2A server listening on http://127.0.0.1:${server.port}`)

const stop = () => {
  // open streams end first, then the server stops
  void a2a.dispose().then(() => server.stop(true))
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
