/**
 * Agents that fail the gateway, with real parts: our server behind a TCP relay the test switches (up, down: cut
 * and refusing, hang: accepting and never answering), the gateway in front, our client at the front door and the
 * official MCP client at `/mcp`. Every call, through either door, updates the agent's health: it flips to
 * unreachable when the agent goes down and back when it answers again; a stream cut mid-way and a call never
 * answered end with a clear error naming the agent, within the timeout; nothing hangs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Duration, Effect, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as OurServer from "../client/OurServer.ts"
import { json, serve } from "../client/TestServer.ts"
import { call, relayPaths, startGateway } from "./GatewayPeers.ts"
import { relay } from "./Outage.ts"

interface ToolResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly isError?: boolean | undefined
}

const mcpClient = (gateway: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "outage-test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway}/mcp`)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** A tool call, how long it took, and its text; `onProgress` sees each progress message. */
const callTool = (client: Client, text: string, onProgress?: (message: string) => void) =>
  Effect.promise(async () => {
    const started = Date.now()
    const result = await client.callTool({ name: "demo", arguments: { text } }, undefined, {
      ...(onProgress !== undefined ? { onprogress: (p) => onProgress(p.message ?? "") } : {}),
      timeout: 20_000
    }) as ToolResult
    return {
      millis: Date.now() - started,
      isError: result.isError === true,
      text: result.content.map((block) => block.text ?? "").join("\n")
    }
  })

/** The agent's health in the list (as recorded by calls: the list fetches no card). */
const healthOf = (gateway: string) =>
  Effect.map(call(`${gateway}/admin/agents`), (answer) => answer.body.agents[0].health)

const timeout = Duration.seconds(1)

describe.each(relayPaths)("gateway health from every call (the relay on the %s path)", (path) => {
  it.live(
    "an agent that goes down flips to unreachable, and back when it answers, through either door",
    () =>
      Effect.gen(function*() {
        const demo = yield* OurServer.start()
        const upstream = yield* relay(demo.url)
        const gateway = yield* startGateway(Gateway.layerMemory, { timeout }, Auth.none, path)
        const registered = yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url, name: "demo" } })
        assert.strictEqual(registered.status, 201, registered.text)
        const client = yield* A2AClient.resolve(`${gateway.url}/agents/demo`).pipe(
          Effect.provide(FetchHttpClient.layer)
        )
        const mcp = yield* mcpClient(gateway.url)

        // up: a call through the front door records its time and latency
        const reply = yield* client.sendMessage({ message: userText("hi") })
        assert.isTrue("message" in reply && textOf(reply.message.parts) === "Echo: hi")
        const up = yield* healthOf(gateway.url)
        assert.strictEqual(up.reachable, true)
        assert.isString(up.lastCall)
        assert.isNumber(up.latencyMillis)
        assert.isUndefined(up.lastError)

        // down: the front door's call flips it, with why
        yield* upstream.down
        const refused = yield* Effect.flip(client.sendMessage({ message: userText("hi") }))
        assert.strictEqual(refused._tag, "Unavailable")
        assert.include(refused.message, "demo")
        const down = yield* healthOf(gateway.url)
        assert.strictEqual(down.reachable, false)
        assert.isString(down.reason)
        assert.isString(down.lastError.message)
        assert.notStrictEqual(down.lastCall, up.lastCall)
        // inspecting it fetches the card again: still down
        assert.strictEqual((yield* call(`${gateway.url}/admin/agents/demo`)).body.health.reachable, false)

        // back: an MCP tool call that succeeds flips it back; the last error stays on record
        yield* upstream.up
        const answered = yield* callTool(mcp, "hi")
        assert.deepStrictEqual([answered.isError, answered.text], [false, "Echo: hi"])
        const back = yield* healthOf(gateway.url)
        assert.strictEqual(back.reachable, true)
        assert.isUndefined(back.reason)
        assert.deepStrictEqual(back.lastError, down.lastError)

        // down again: an MCP tool call flips it too, and is a tool error naming the agent
        yield* upstream.down
        const failed = yield* callTool(mcp, "hi")
        assert.isTrue(failed.isError)
        assert.include(failed.text, "demo")
        assert.strictEqual((yield* healthOf(gateway.url)).reachable, false)

        // and back through the front door
        yield* upstream.up
        assert.isTrue("message" in (yield* client.sendMessage({ message: userText("again") })))
        assert.strictEqual((yield* healthOf(gateway.url)).reachable, true)
      }).pipe(Effect.scoped, Effect.timeout(Duration.seconds(30))),
    40_000
  )

  it.live(
    "a REST passthrough's calls update its health too; callers see whether, operators see why",
    () =>
      Effect.gen(function*() {
        let status = 200
        const endpoint = yield* serve((_req, res) => json(res, status, { ok: status < 300 }))
        const upstream = yield* relay(endpoint.url)
        const gateway = yield* startGateway(Gateway.layerMemory, { timeout }, Auth.none, path)
        const registered = yield* call(`${gateway.url}/admin/agents`, {
          body: { url: upstream.url, name: "lambda", kind: "rest-passthrough" }
        })
        assert.strictEqual(registered.status, 201, registered.text)
        // a new message each time (a message id seen before is answered from the first answer)
        const send = Effect.suspend(() =>
          call(`${gateway.url}/agents/lambda`, {
            body: {
              jsonrpc: "2.0",
              id: 1,
              method: "SendMessage",
              params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data: { n: 1 } }] } }
            }
          })
        )

        assert.deepStrictEqual((yield* send).body.result.message.parts[0].data, { ok: true })
        const up = yield* healthOf(gateway.url)
        assert.strictEqual(up.reachable, true)
        assert.isNumber(up.latencyMillis)
        assert.isString(up.lastCall)

        status = 503
        yield* send
        const failing = yield* healthOf(gateway.url)
        assert.strictEqual(failing.reachable, false)
        assert.strictEqual(failing.lastError.message, "The endpoint answered HTTP 503: {\"ok\":false}")
        // the catalog tells callers whether it answers, not why (no message, no URL)
        const listed = (yield* call(`${gateway.url}/agents`, { token: null })).body.agents[0].health
        assert.deepStrictEqual(Object.keys(listed).sort(), ["lastCall", "latencyMillis", "reachable"])
        assert.strictEqual(listed.reachable, false)

        status = 200
        yield* upstream.down
        yield* send
        const down = yield* healthOf(gateway.url)
        assert.strictEqual(down.reachable, false)
        assert.include(down.lastError.message, "could not be reached")
        assert.notInclude(down.lastError.message, upstream.url)

        yield* upstream.up
        yield* send
        assert.strictEqual((yield* healthOf(gateway.url)).reachable, true)
      }).pipe(Effect.scoped, Effect.timeout(Duration.seconds(30))),
    40_000
  )
})

describe.each(relayPaths)(
  "gateway and an agent that fails mid-way or never answers (the relay on the %s path)",
  (path) => {
    it.live(
      "down mid-stream: the streamed SendMessage and the MCP tool call end with a clear error, in time",
      () =>
        Effect.gen(function*() {
          const demo = yield* OurServer.start()
          const upstream = yield* relay(demo.url)
          const gateway = yield* startGateway(Gateway.layerMemory, { timeout }, Auth.none, path)
          assert.strictEqual(
            (yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url, name: "demo" } })).status,
            201
          )
          const client = yield* A2AClient.resolve(`${gateway.url}/agents/demo`).pipe(
            Effect.provide(FetchHttpClient.layer)
          )

          // the front door: a task that runs until stopped, its stream cut after its first events
          const events: Array<unknown> = []
          const started = Date.now()
          const cut = yield* Effect.flip(
            Stream.runForEach(
              client.sendStreamingMessage({ message: userText("slow") }),
              (event) =>
                Effect.suspend(() => {
                  events.push(event)
                  return events.length === 2 ? upstream.down : Effect.void
                })
            )
          )
          assert.isBelow(Date.now() - started, 5_000)
          assert.isAtLeast(events.length, 2)
          assert.strictEqual(cut._tag, "Unavailable")
          assert.include(cut.message, "demo")
          assert.strictEqual((yield* healthOf(gateway.url)).reachable, false)

          // over MCP: the tool call's stream cut after its first progress
          yield* upstream.up
          const mcp = yield* mcpClient(gateway.url)
          let progressed = 0
          const failed = yield* callTool(mcp, "slow", () => {
            if (++progressed === 2) Effect.runFork(upstream.down)
          })
          assert.isAtLeast(progressed, 2)
          assert.isTrue(failed.isError, failed.text)
          assert.include(failed.text, "demo")
          assert.isBelow(failed.millis, 5_000)
          assert.strictEqual((yield* healthOf(gateway.url)).reachable, false)
        }).pipe(Effect.scoped, Effect.timeout(Duration.seconds(30))),
      40_000
    )

    it.live(
      "accepts the connection and never answers: a clear timeout within --timeout, at either door",
      () =>
        Effect.gen(function*() {
          const demo = yield* OurServer.start()
          const upstream = yield* relay(demo.url)
          const gateway = yield* startGateway(Gateway.layerMemory, { timeout }, Auth.none, path)
          assert.strictEqual(
            (yield* call(`${gateway.url}/admin/agents`, { body: { url: upstream.url, name: "demo" } })).status,
            201
          )
          const client = yield* A2AClient.resolve(`${gateway.url}/agents/demo`).pipe(
            Effect.provide(FetchHttpClient.layer)
          )
          const mcp = yield* mcpClient(gateway.url)
          yield* upstream.hang

          const timed = <A, E>(effect: Effect.Effect<A, E>) =>
            Effect.gen(function*() {
              const started = Date.now()
              const error = yield* Effect.flip(effect)
              return { error, millis: Date.now() - started }
            })
          const unary = yield* timed(client.sendMessage({ message: userText("hi") }))
          const streamed = yield* timed(Stream.runDrain(client.sendStreamingMessage({ message: userText("hi") })))
          for (const { error, millis } of [unary, streamed]) {
            assert.strictEqual(error._tag, "Unavailable")
            assert.include(error.message, "Agent demo did not answer in time")
            assert.isAtLeast(millis, 900)
            assert.isBelow(millis, 4_000)
          }
          const health = yield* healthOf(gateway.url)
          assert.strictEqual(health.reachable, false)
          assert.include(health.reason, "Timeout")

          const tool = yield* callTool(mcp, "hi")
          assert.isTrue(tool.isError, tool.text)
          assert.include(tool.text, "demo")
          assert.isBelow(tool.millis, 4_000)
        }).pipe(Effect.scoped, Effect.timeout(Duration.seconds(30))),
      40_000
    )
  }
)
