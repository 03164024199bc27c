// The demo agent inside a Hono app on Node, beside the app's own routes: `node examples/runtimes/hono.ts`
// serves http://127.0.0.1:$PORT (default 8080) with /health, and A2A at /a2a/rpc (JSON-RPC) and /a2a (REST);
// the card stays at /.well-known/agent-card.json. On Bun or Deno, serve `app.fetch` with Bun.serve or Deno.serve.
import { serve } from "@hono/node-server"
import { DemoAgent } from "effect-a2a/server"
import { A2A03 } from "effect-a2a/v0_3"
import { A2AWeb } from "effect-a2a/web"
import { Hono } from "hono"

const a2a = A2AWeb.make({
  card: DemoAgent.card,
  executor: DemoAgent.make(),
  layers: A2A03.server,
  jsonRpcPath: "/a2a/rpc",
  restPath: "/a2a"
})

const app = new Hono()
app.get("/health", (c) => c.text("ok"))
// The whole request goes to the A2A handler, which answers the paths it serves and 404s the rest below /a2a.
app.all("/a2a/*", (c) => a2a.handler(c.req.raw))
app.get("/.well-known/agent-card.json", (c) => a2a.handler(c.req.raw))

const server = serve(
  { fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env["PORT"] ?? 8080) },
  (info) => console.log(`A2A server listening on http://127.0.0.1:${info.port}`)
)

const stop = () => {
  void a2a.dispose().then(() => server.close())
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
