// The demo agent inside a Fastify app on Node, beside the app's own routes: `node examples/runtimes/fastify.ts`
// serves http://127.0.0.1:$PORT (default 8080) with /health, and A2A at /a2a/rpc (JSON-RPC) and /a2a (REST);
// the card stays at /.well-known/agent-card.json. The web handler meets Node's request and response through
// @hono/node-server's getRequestListener (client disconnects abort the request, so streams end).
import { getRequestListener } from "@hono/node-server"
import { DemoAgent } from "effect-a2a/server"
import { A2A03 } from "effect-a2a/v0_3"
import { A2AWeb } from "effect-a2a/web"
import Fastify from "fastify"

const a2a = A2AWeb.make({
  card: DemoAgent.card,
  executor: DemoAgent.make(),
  layers: A2A03.server,
  jsonRpcPath: "/a2a/rpc",
  restPath: "/a2a"
})
const toA2A = getRequestListener(a2a.handler)

const app = Fastify()
app.get("/health", () => "ok")
await app.register((scope) => {
  // In this scope Fastify leaves the body unread: the A2A handler reads it (with its own size limit).
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser("*", (_request, _payload, done) => done(null))
  for (const url of ["/a2a", "/a2a/*", "/.well-known/agent-card.json"]) {
    scope.all(url, (request, reply) => {
      reply.hijack()
      void toA2A(request.raw, reply.raw)
    })
  }
  return Promise.resolve()
})

const address = await app.listen({ host: "127.0.0.1", port: Number(process.env["PORT"] ?? 8080) })
console.log(`A2A server listening on ${address}`)

const stop = () => {
  void a2a.dispose().then(() => app.close())
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
