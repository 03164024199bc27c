/**
 * Safe retries on the wire: one server (JSON-RPC, REST and gRPC over one core, on 127.0.0.1) and our client on
 * each binding. A message sent again, on the same binding or another one, is answered with its first task and runs
 * the agent once; a streaming retry follows the task; another body under the messageId is InvalidParams, as each
 * binding reports it. A 0.3 client's retry (`message/send`) is the same.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as GrpcTransport from "../../src/grpc/GrpcTransport.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import { card, CountingAgent, message, uniqueId } from "../server/MessageRetries.ts"

const agent = new CountingAgent()

class Server extends Context.Service<Server, { readonly url: string }>()("test/http/MessageRetriesWire/Server") {
  static readonly layer = Layer.effect(
    Server,
    Effect.gen(function*() {
      const served = NodeA2AServer.serve({ host: "127.0.0.1", port: 0, grpcPort: 0 }).pipe(
        Layer.provide(A2AServer.layer({ card, executor: agent.executor })),
        Layer.provide(A2A03.layer),
        Layer.provide(Logger.layer([]))
      )
      const context = yield* Layer.build(served).pipe(Effect.orDie)
      const address = Context.get(context, HttpServer.HttpServer).address
      return { url: `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}` }
    })
  )
}

const bindings = ["JSONRPC", "HTTP+JSON", "GRPC"] as const

/** Our client on one binding of the server. */
const clientOn = (binding: typeof bindings[number]) =>
  Effect.gen(function*() {
    const { url } = yield* Server
    return yield* A2AClient.resolve(url, {
      bindings: [binding],
      transports: [...A2AClient.defaultTransports, yield* GrpcTransport.makeFactory],
      retry: false
    })
  })

const taskIdOf = (response: v1.SendMessageResponse) => ("task" in response ? response.task.id : "")

layer(Layer.mergeAll(Server.layer, FetchHttpClient.layer), { excludeTestServices: true })(
  "safe retries on the wire",
  (it) => {
    for (const binding of bindings) {
      it.effect(`${binding}: a message sent again is answered with its task; another body is InvalidParams`, () =>
        Effect.gen(function*() {
          const client = yield* clientOn(binding)
          assert.strictEqual(client.interface.protocolBinding, binding)
          const sent = message(`task ${uniqueId("x")}`)
          const first = yield* client.sendMessage({ message: sent })
          const again = yield* client.sendMessage({ message: sent })
          assert.notStrictEqual(taskIdOf(first), "")
          assert.deepStrictEqual(again, first)
          assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)

          const changed = { ...sent, parts: [{ text: `task ${uniqueId("x")}` }] }
          const error = yield* Effect.flip(client.sendMessage({ message: changed }))
          assert.strictEqual(error._tag, "InvalidParams")
          assert.match(error.message, /already sent with a different body/)
          assert.strictEqual(agent.runs(AgentExecutor.textOf(changed)), 0)
        }).pipe(Effect.scoped))

      it.effect(`${binding}: a streaming retry follows the task of the first send to its end`, () =>
        Effect.gen(function*() {
          const client = yield* clientOn(binding)
          const gate = uniqueId("gate")
          const sent = message(`wait ${gate}`)
          const started = yield* client.sendMessage({ message: sent, configuration: { returnImmediately: true } })
          const events = yield* client.sendStreamingMessage({ message: sent }).pipe(
            Stream.tap((event) => "task" in event ? agent.open(gate) : Effect.void),
            Stream.runCollect
          )
          const [snapshot, ...rest] = Array.from(events)
          assert.strictEqual(snapshot !== undefined && "task" in snapshot ? snapshot.task.id : "", taskIdOf(started))
          const last = rest[rest.length - 1]
          assert.strictEqual(
            last !== undefined && "statusUpdate" in last ? last.statusUpdate.status.state : "",
            "TASK_STATE_COMPLETED"
          )
          assert.strictEqual(agent.runs(`wait ${gate}`), 1)
        }).pipe(Effect.scoped))
    }

    it.effect("A2A 0.3: message/send sent again is answered with its task", () =>
      Effect.gen(function*() {
        const { url } = yield* Server
        const text = `task ${uniqueId("x")}`
        const messageId = uniqueId("m")
        const send = (body: string) =>
          Effect.promise(async () => {
            const response = await fetch(`${url}/`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                jsonrpc: "2.0",
                id: 1,
                method: "message/send",
                params: { message: { kind: "message", messageId, role: "user", parts: [{ kind: "text", text: body }] } }
              })
            })
            return (await response.json()) as {
              readonly result?: { readonly kind: string; readonly id: string }
              readonly error?: { readonly code: number; readonly message: string }
            }
          })
        const first = yield* send(text)
        const again = yield* send(text)
        assert.strictEqual(first.result?.kind, "task")
        assert.deepStrictEqual(again, first)
        assert.strictEqual(agent.runs(text), 1)
        const changed = yield* send(`task ${uniqueId("x")}`)
        assert.strictEqual(changed.error?.code, -32602)
      }))

    it.effect("a message sent on one binding and again on the others is one message", () =>
      Effect.gen(function*() {
        const sent = message(`task ${uniqueId("x")}`, { metadata: { n: 1, nested: { b: [1, 2], a: "x" } } })
        const answers = []
        for (const binding of bindings) answers.push(yield* (yield* clientOn(binding)).sendMessage({ message: sent }))
        assert.strictEqual(new Set(answers.map(taskIdOf)).size, 1)
        assert.strictEqual(agent.runs(AgentExecutor.textOf(sent)), 1)
      }).pipe(Effect.scoped))
  }
)
