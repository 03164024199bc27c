// The demo agent as a Workers-style module (Cloudflare Workers, Vercel Edge, `deno serve`, Bun): the runtime
// calls `fetch` for each request. Try it with `deno serve --host 127.0.0.1 --port 8080 examples/runtimes/worker.ts`.
// Tasks live in the isolate's memory: an edge platform may run several isolates and drop one at any time, so give
// `stores` a Layer over a database the isolates share for tasks that must outlive one.
import { DemoAgent } from "effect-a2a/server"
import { A2A03 } from "effect-a2a/v0_3"
import { A2AWeb } from "effect-a2a/web"

const a2a = A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make(), layers: A2A03.server })

export default {
  fetch: (request: Request): Promise<Response> => a2a.handler(request)
}
