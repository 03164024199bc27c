// The demo agent on Deno: `deno run --allow-net --allow-env examples/runtimes/deno.ts` serves it on
// http://127.0.0.1:$PORT (default 8080), A2A 1.0 and 0.3, JSON-RPC at / and REST at the root.
import { DemoAgent } from "effect-a2a/server"
import { A2A03 } from "effect-a2a/v0_3"
import { A2AWeb } from "effect-a2a/web"

// What this file uses of Deno (Deno's own type-check knows them; other tools need these lines).
declare const Deno: {
  serve(
    options: { hostname: string; port: number; onListen: (address: { port: number }) => void },
    handler: (request: Request) => Promise<Response>
  ): { shutdown(): Promise<void> }
  readonly env: { get(name: string): string | undefined }
  addSignalListener(signal: "SIGINT" | "SIGTERM", listener: () => void): void
}

const a2a = A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make(), layers: A2A03.server })

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT") ?? 8080),
  onListen: ({ port }) => console.log(`A2A server listening on http://127.0.0.1:${port}`)
}, a2a.handler)

const stop = () => {
  // open streams end first, then the server stops
  void a2a.dispose().then(() => server.shutdown())
}
Deno.addSignalListener("SIGINT", stop)
Deno.addSignalListener("SIGTERM", stop)
