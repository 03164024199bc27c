/**
 * The library API as a user mounts it: `A2AHttp.routes` on the user's own HttpRouter, next to the user's
 * routes, served by the user's NodeHttpServer. This is the README example, run.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NetAddress from "effect/net/NetAddress"
import { createServer } from "node:http"
import * as A2AHttp from "../../src/http/A2AHttp.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import * as TestServer from "./fixtures/TestServer.ts"

describe("mounting on a user's router", () => {
  it.live("A2A routes live next to the application's own routes", () =>
    Effect.gen(function*() {
      const agent = AgentExecutor.replyWithText((text) => `You said: ${text}`)
      const app = Layer.mergeAll(
        A2AHttp.routes({ jsonRpcPath: "/a2a/rpc", restPath: "/a2a" }),
        HttpRouter.add("GET", "/health", HttpServerResponse.text("ok"))
      ).pipe(
        Layer.provide(A2AServer.layer({
          card: {
            name: "Echo",
            description: "Repeats what you say",
            version: "1.0.0",
            capabilities: {},
            defaultInputModes: ["text/plain"],
            defaultOutputModes: ["text/plain"],
            skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"] }]
          },
          executor: agent
        }))
      )
      const server = HttpRouter.serve(app, { disableLogger: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
        Layer.provide(A2A03.layer),
        Layer.provide(Logger.layer([]))
      )
      const context = yield* Layer.build(server)
      const address = Context.get(context, HttpServer.HttpServer).address
      const base = `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`

      assert.strictEqual((yield* TestServer.request(`${base}/health`)).text, "ok")
      const card = (yield* TestServer.request(`${base}/.well-known/agent-card.json`, {
        headers: { "a2a-version": "1.0" }
      })).json as { supportedInterfaces: ReadonlyArray<{ url: string; protocolVersion: string }> }
      // 1.0 and 0.3 by default, each at both mount points.
      assert.deepStrictEqual(card.supportedInterfaces.map((i) => `${i.protocolVersion} ${i.url}`), [
        `1.0 ${base}/a2a/rpc`,
        `1.0 ${base}/a2a`,
        `0.3 ${base}/a2a/rpc`,
        `0.3 ${base}/a2a`
      ])
      const reply = yield* TestServer.request(`${base}/a2a/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ message: TestServer.userMessage("hi") })
      })
      const parts = (reply.json as { message: { parts: ReadonlyArray<{ text: string }> } }).message.parts
      assert.strictEqual(parts[0]!.text, "You said: hi")
      // A 0.3 client (no A2A-Version) reaches the same agent at the same mount points.
      const legacy = yield* TestServer.request(`${base}/a2a/rpc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(TestServer.call("message/send", {
          message: { kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text: "hi" }] }
        }))
      })
      assert.deepInclude((legacy.json as { result: object }).result, {
        kind: "message",
        parts: [{ kind: "text", text: "You said: hi" }]
      })
      // Without `serve`, unknown paths are the application's business (here: the router's empty 404).
      assert.strictEqual((yield* TestServer.request(`${base}/unknown`)).status, 404)
    }).pipe(Effect.scoped))
})
