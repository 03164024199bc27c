/**
 * effect-a2a's server on Bun: the same agent and server core as ours.ts, served by Bun.serve through the web
 * handler (effect-a2a/web's A2AWeb.fromLayer), so the report shows what the runtime costs beside Node.
 */
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as A2AWeb from "../../src/web/A2AWeb.ts"
import { AGENT_CARD_PATH, GC_SIGNAL, JSONRPC_PATH, readyLine, REST_PATH } from "../TrivialAgent.ts"
import { card, executor } from "./oursAgent.ts"

declare const Bun: {
  serve(options: {
    hostname: string
    port: number
    idleTimeout: number
    fetch: (request: Request) => Promise<Response>
  }): { readonly port: number; stop(closeActiveConnections?: boolean): Promise<void> }
  gc(force: boolean): void
}

const a2a = A2AWeb.fromLayer(A2AServer.layer({ card, executor }), {
  jsonRpcPath: JSONRPC_PATH,
  restPath: REST_PATH,
  cardPath: AGENT_CARD_PATH
})
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: a2a.handler })

process.on(GC_SIGNAL, () => Bun.gc(true))
const stop = () => {
  void server.stop(true).then(() => process.exit(0))
}
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
process.stdout.write(readyLine({ origin: `http://127.0.0.1:${server.port}` }))
