// The demo agent inside an Express app on Node, beside the app's own routes: `node examples/runtimes/express.ts`
// serves http://127.0.0.1:$PORT (default 8080) with /health, and A2A at /a2a/rpc (JSON-RPC) and /a2a (REST);
// the card stays at /.well-known/agent-card.json. The web handler meets Node's request and response through
// @hono/node-server's getRequestListener (client disconnects abort the request, so streams end).
import { getRequestListener } from "@hono/node-server"
import { DemoAgent } from "effect-a2a/server"
import { A2A03 } from "effect-a2a/v0_3"
import { A2AWeb } from "effect-a2a/web"
import express from "express"

const a2a = A2AWeb.make({
  card: DemoAgent.card,
  executor: DemoAgent.make(),
  layers: A2A03.server,
  jsonRpcPath: "/a2a/rpc",
  restPath: "/a2a"
})
const toA2A = getRequestListener(a2a.handler)

const app = express()
app.get("/health", (_req, res) => {
  res.send("ok")
})
// Before any body parser of the app's (express.json() would consume the body A2A reads).
app.all(["/a2a", "/a2a/*path", "/.well-known/agent-card.json"], (req, res) => {
  void toA2A(req, res)
})
app.use(express.json())

const server = app.listen(Number(process.env["PORT"] ?? 8080), "127.0.0.1", () => {
  const address = server.address()
  console.log(`A2A server listening on http://127.0.0.1:${typeof address === "object" ? address?.port : address}`)
})

const stop = () => {
  void a2a.dispose().then(() => server.close())
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
