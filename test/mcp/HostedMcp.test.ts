/**
 * One server, both protocols: the hosted agent as an MCP tool at /mcp beside its A2A bindings, reached by the
 * official MCP client. Through `NodeA2AServer.serve({ mcp: true })` behind bearer auth (the same 401 as A2A; the
 * tool calls run as the authenticated principal), `A2AWeb.make({ mcp: true })`, and `effect-a2a serve --mcp`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Schedule } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as A2AWeb from "../../src/web/A2AWeb.ts"
import { serveDemo, TOKEN } from "../client/OurServer.ts"
import { call, connected, spawnCli, text } from "./GatewayPeers.ts"

const TOOL = "effect-a2a_demo_agent"

const connect = (url: string, options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] = {}) =>
  connected(new StreamableHTTPClientTransport(new URL(url), options))

const secured = serveDemo({ auth: Auth.bearer({ tokens: { [TOKEN]: "alice", "other-token": "bob" } }) }, {
  mcp: true
})
const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } })

describe("the hosted agent as an MCP tool at /mcp", () => {
  it.live("NodeA2AServer.serve({ mcp: true }): the same auth as A2A, a 401 without credentials", () =>
    Effect.gen(function*() {
      const { url } = yield* secured
      const refused = yield* Effect.promise(() =>
        new Client({ name: "no-token", version: "1.0.0" })
          .connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))
          .then(() => "connected", (error: unknown) => String(error))
      )
      expect(refused).toContain("401")
      const wrong = yield* Effect.promise(() =>
        new Client({ name: "bad-token", version: "1.0.0" })
          .connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), bearer("nope")))
          .then(() => "connected", (error: unknown) => String(error))
      )
      expect(wrong).toContain("401")
      const client = yield* connect(`${url}/mcp`, bearer(TOKEN))
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual([TOOL])
      expect(tools[0]!.description).toContain("Multi-step task")
    }))

  it.live("a call runs the task as the authenticated principal, with progress; input-required continues", () =>
    Effect.gen(function*() {
      const { url } = yield* secured
      const client = yield* connect(`${url}/mcp`, bearer(TOKEN))
      const progress: Array<string> = []
      const done = yield* call(client, TOOL, { text: "task" }, { progress })
      expect(text(done)).toBe("Chunk 1. Chunk 2. Chunk 3.\n\nDone: step 3 of 3")
      expect(progress).toContain("artifact result: Chunk 2. ")
      const { taskId } = done.structuredContent as { taskId: string }
      // the task is alice's: she sees it over A2A, bob does not
      const a2a = (token: string) =>
        A2AClient.resolve(url, { credentials: { bearer: token } }).pipe(
          Effect.flatMap((a2a) => a2a.getTask({ id: taskId })),
          Effect.map((task) => task.status.state),
          Effect.catchTag("TaskNotFound", () => Effect.succeed("not found")),
          Effect.provide(FetchHttpClient.layer)
        )
      expect(yield* a2a(TOKEN)).toBe("TASK_STATE_COMPLETED")
      expect(yield* a2a("other-token")).toBe("not found")
      const asked = yield* call(client, TOOL, { text: "ask" })
      expect(text(asked)).toContain("What is your name?")
      const { contextId, taskId: asking } = asked.structuredContent as { taskId: string; contextId: string }
      expect(text(yield* call(client, TOOL, { text: "Bob", taskId: asking, contextId }))).toBe(
        "Hello, Bob!\n\nNice to meet you, Bob."
      )
    }))

  it.live("MCP cancellation cancels the local task", () =>
    Effect.gen(function*() {
      const { url } = yield* secured
      const client = yield* connect(`${url}/mcp`, bearer(TOKEN))
      const progress: Array<string> = []
      const controller = new AbortController()
      const pending = client.callTool({ name: TOOL, arguments: { text: "slow" } }, undefined, {
        onprogress: (p) => {
          progress.push(p.message ?? "")
          if (progress.length === 3) controller.abort("stop")
        },
        signal: controller.signal
      })
      expect(yield* Effect.promise(() => pending.then(() => "finished", () => "aborted"))).toBe("aborted")
      const taskId = /^task (\S+): /.exec(progress[0]!)![1]!
      const state = yield* A2AClient.resolve(url, { credentials: { bearer: TOKEN } }).pipe(
        Effect.flatMap((a2a) =>
          a2a.getTask({ id: taskId }).pipe(
            Effect.map((task) => task.status.state),
            Effect.repeat({
              until: (s) => s === "TASK_STATE_CANCELED",
              schedule: Schedule.spaced("50 millis"),
              times: 100
            })
          )
        ),
        Effect.provide(FetchHttpClient.layer)
      )
      expect(state).toBe("TASK_STATE_CANCELED")
    }))

  it.live("A2AWeb.make({ mcp: true }) serves it from the web handler", () =>
    Effect.gen(function*() {
      const web = yield* Effect.acquireRelease(
        Effect.sync(() => A2AWeb.make({ card: DemoAgent.card, executor: DemoAgent.make(), mcp: true })),
        (web) => Effect.promise(() => web.dispose())
      )
      const client = yield* connect("http://agent.test/mcp", {
        fetch: (input, init) => web.handler(new Request(input, init))
      })
      expect(text(yield* call(client, TOOL, { text: "hi" }))).toBe("Echo: hi")
    }))

  it.live("an API key in the query authenticates the MCP endpoint as it does A2A", () =>
    Effect.gen(function*() {
      const web = yield* Effect.acquireRelease(
        Effect.sync(() =>
          A2AWeb.make({
            card: DemoAgent.card,
            executor: DemoAgent.make(),
            auth: Auth.apiKey({ keys: { "k-1": "alice" }, location: "query", name: "api_key" }),
            mcp: true
          })
        ),
        (web) => Effect.promise(() => web.dispose())
      )
      const fetch = (input: string | URL | Request, init?: RequestInit) => web.handler(new Request(input, init))
      const refused = yield* Effect.promise(() =>
        new Client({ name: "no-key", version: "1.0.0" })
          .connect(new StreamableHTTPClientTransport(new URL("http://agent.test/mcp?api_key=wrong"), { fetch }))
          .then(() => "connected", (error: unknown) => String(error))
      )
      expect(refused).toContain("401")
      const client = yield* connect("http://agent.test/mcp?api_key=k-1", { fetch })
      expect(text(yield* call(client, TOOL, { text: "hi" }))).toBe("Echo: hi")
    }))

  it.live("effect-a2a serve --mcp", () =>
    Effect.gen(function*() {
      const served = yield* spawnCli(
        ["serve", "--port", "0", "--memory", "--no-ui", "--mcp"],
        /MCP endpoint: (\S+)/,
        { A2A_DEMO_STEP_DELAY: "5 millis" }
      )
      const client = yield* connect(served.match)
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual([TOOL])
      const progress: Array<string> = []
      expect(text(yield* call(client, TOOL, { text: "task" }, { progress }))).toContain("Done: step 3 of 3")
      expect(progress.at(-1)).toBe("completed: Done: step 3 of 3")
    }), { timeout: 30_000 })
})
