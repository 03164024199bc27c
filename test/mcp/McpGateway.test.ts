/**
 * `effect-a2a mcp` against real peers: the official MCP TypeScript SDK client in front (over stdio, spawning the
 * command, and over streamable HTTP), and behind it our server (bearer-secured: the credentials come from the
 * settings), the official @a2a-js/sdk server, a scripted agent, and an agent that is down at start.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer, Schedule, Scope } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { serveDemo, start as startOurs, TOKEN } from "../client/OurServer.ts"
import { slowestConnect, somaxconn } from "../fixtures/ConnectionBurst.ts"
import { start as startSdk } from "../interop/client/SdkServer.ts"
import { call, freePort, type Gateway, overHttp, overStdio, scriptedAgent, settingsFile, text } from "./GatewayPeers.ts"

const OURS = "effect-a2a_demo_agent"
const SDK = "SDK_Interop_Agent"
const SCRIPTED = "Scripted_Agent"

interface Peers {
  readonly ours: string
  readonly sdk: string
  readonly scripted: string
  /** An agent that is down when the gateway starts; `revive` starts it. */
  readonly late: { readonly url: string; readonly revive: Effect.Effect<void> }
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
}

class PeersService extends Context.Service<PeersService, Peers>()("test/mcp/Peers") {}

const peers = Layer.effect(
  PeersService,
  Effect.gen(function*() {
    const ours = (yield* startOurs({ secured: true })).url
    const sdk = (yield* startSdk).url
    const scripted = (yield* scriptedAgent).url
    const port = yield* freePort
    const scope = yield* Effect.scope
    const late = {
      url: `http://127.0.0.1:${port}`,
      revive: serveDemo({ card: { ...DemoAgent.card, name: "Late Agent" } }, { port }).pipe(
        Scope.provide(scope),
        Effect.asVoid
      )
    }
    // the token is named in the settings, its value is in the environment
    const settings = settingsFile({ agents: [{ url: ours, credentials: { bearer: { env: "GATEWAY_TEST_TOKEN" } } }] })
    return {
      ours,
      sdk,
      scripted,
      late,
      args: [ours, sdk, scripted, late.url, "--settings", settings, "--timeout", "2", "--call-timeout", "3"],
      env: { GATEWAY_TEST_TOKEN: TOKEN }
    }
  })
)

/** The MCP error a request failed with. */
const mcpError = <A>(promise: () => Promise<A>) =>
  Effect.promise(() =>
    promise().then(
      () => undefined,
      (error: unknown) => error
    )
  ).pipe(Effect.map((error) => {
    expect(error).toBeInstanceOf(McpError)
    return error as McpError
  }))

const taskIdOf = (progress: ReadonlyArray<string>): string | undefined =>
  progress.map((message) => /^task (\S+): /.exec(message)?.[1]).find((id) => id !== undefined)

/** Waits for the A2A task to be in `state`, as the agent tells it. */
const awaitState = (url: string, taskId: string, state: string, credentials?: { readonly bearer: string }) =>
  Effect.gen(function*() {
    const client = yield* A2AClient.resolve(url, { credentials })
    return yield* client.getTask({ id: taskId }).pipe(
      Effect.map((task) => task.status.state),
      Effect.repeat({ until: (current) => current === state, schedule: Schedule.spaced("50 millis"), times: 100 })
    )
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** Calls `name` with "slow"/"wait", cancels once the task is known, and returns its A2A task id. */
const cancelMidTask = (client: Client, name: string, textToSend: string) =>
  Effect.gen(function*() {
    const progress: Array<string> = []
    const controller = new AbortController()
    const pending = client.callTool({ name, arguments: { text: textToSend } }, undefined, {
      onprogress: (p) => {
        progress.push(p.message ?? "")
        if (taskIdOf(progress) !== undefined && progress.length >= 2) controller.abort("changed my mind")
      },
      signal: controller.signal,
      timeout: 20_000
    })
    const outcome = yield* Effect.promise(() => pending.then(() => "finished", (error: unknown) => String(error)))
    expect(outcome).toContain("changed my mind")
    return taskIdOf(progress)!
  })

/** A gateway in front of the peers, for the tests of one `layer`: with real time, a minute to start. */
const inFront = <I>(
  service: Context.Key<I, Gateway>,
  start: (args: ReadonlyArray<string>, env: Record<string, string>) => Effect.Effect<Gateway, never, Scope.Scope>
) =>
  layer(
    Layer.effect(service, Effect.flatMap(Effect.service(PeersService), (p) => start(p.args, p.env))).pipe(
      Layer.provideMerge(peers)
    ),
    { timeout: 60_000, excludeTestServices: true }
  )

class StdioGateway extends Context.Service<StdioGateway, Gateway>()("test/mcp/StdioGateway") {}

inFront(StdioGateway, overStdio)("effect-a2a mcp over stdio", (it) => {
  it.effect("lists one tool per agent that is up, described from its card", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name).sort()).toEqual([OURS, SCRIPTED, SDK].sort())
      const ours = tools.find((tool) => tool.name === OURS)!
      expect(ours.title).toBe("effect-a2a demo agent")
      expect(ours.description).toContain("Multi-step task")
      expect(ours.inputSchema).toMatchObject({ type: "object", required: ["text"] })
    }))

  it.effect("runs the A2A task (with the agent's credentials from the settings) and forwards its updates as progress", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const progress: Array<string> = []
      const result = yield* call(client, OURS, { text: "task write a report" }, { progress })
      expect(result.isError).not.toBe(true)
      expect(text(result)).toBe("Chunk 1. Chunk 2. Chunk 3.\n\nDone: step 3 of 3")
      expect(result.structuredContent).toMatchObject({ _tag: "Completed", text: expect.stringContaining("Chunk 3.") })
      expect(progress[0]).toMatch(/^task \S+: submitted$/)
      expect(progress).toContain("working: Step 2 of 3: writing the result")
      expect(progress).toContain("artifact result: Chunk 2. ")
      expect(progress.at(-1)).toBe("completed: Done: step 3 of 3")
    }))

  it.effect("the official SDK's server behind the gateway: a streamed task with progress", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const progress: Array<string> = []
      const result = yield* call(client, SDK, { text: "task" }, { progress })
      expect(text(result)).toBe("Hello, world\n\ndone")
      expect(progress).toContain("artifact result: world")
      expect((yield* call(client, SDK, { text: "hi" })).content).toEqual([{ type: "text", text: "echo: hi" }])
    }))

  it.effect("input-required is a result with the task id; answering it with that id completes the task", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const asked = yield* call(client, OURS, { text: "ask" })
      expect(asked.isError).not.toBe(true)
      expect(text(asked)).toContain("input-required): What is your name?")
      const { contextId, taskId } = asked.structuredContent as { taskId: string; contextId: string }
      expect(text(asked)).toContain(`taskId "${taskId}"`)
      const answered = yield* call(client, OURS, { text: "Ada", taskId, contextId })
      expect(text(answered)).toBe("Hello, Ada!\n\nNice to meet you, Ada.")
    }))

  it.effect("auth-required is a result that says so, with the task id", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const result = yield* call(client, SCRIPTED, { text: "auth" })
      expect(result.isError).not.toBe(true)
      expect(text(result)).toContain("auth-required): Sign in at the portal")
      expect(text(result)).toContain(`taskId "t-auth"`)
      expect(result.structuredContent).toMatchObject({ _tag: "AuthRequired", taskId: "t-auth" })
    }))

  it.effect("a failed task and an A2A error are tool errors with the message", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const failed = yield* call(client, OURS, { text: "fail" })
      expect(failed.isError).toBe(true)
      expect(text(failed)).toContain("Agent failed: the demo agent failed on purpose")
      const unknownTask = yield* call(client, OURS, { text: "hello", taskId: "no-such-task" })
      expect(unknownTask.isError).toBe(true)
      expect(text(unknownTask)).toMatch(/failed: .*no-such-task/i)
    }))

  it.effect("MCP cancellation cancels the A2A task (ours and the SDK's end CANCELED)", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const peers = yield* PeersService
      const ours = yield* cancelMidTask(client, OURS, "slow")
      expect(yield* awaitState(peers.ours, ours, "TASK_STATE_CANCELED", { bearer: TOKEN })).toBe("TASK_STATE_CANCELED")
      const sdk = yield* cancelMidTask(client, SDK, "wait")
      expect(yield* awaitState(peers.sdk, sdk, "TASK_STATE_CANCELED")).toBe("TASK_STATE_CANCELED")
      // still serving
      expect(text(yield* call(client, SDK, { text: "again" }))).toBe("echo: again")
    }))

  it.effect("bad input: an unknown tool is an MCP error, wrong arguments a tool error; the gateway goes on serving", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const unknown = yield* mcpError(() => client.callTool({ name: "no_such_agent", arguments: { text: "x" } }))
      expect(unknown.code).toBe(-32602)
      expect(unknown.message).toContain("no_such_agent")
      // MCP 2025-11-25: invalid arguments are a tool error the model can correct, not a protocol error
      const wrong = yield* call(client, OURS, { txt: "x" })
      expect(wrong.isError).toBe(true)
      expect(text(wrong)).toContain(`Invalid arguments for ${OURS}`)
      expect(text(wrong)).toContain(`["text"]`)
      const wrongType = yield* call(client, OURS, { text: 42 })
      expect(wrongType.isError).toBe(true)
      expect(text(wrongType)).toContain("Expected string")
      expect(text(yield* call(client, OURS, { text: "hi" }))).toBe("Echo: hi")
    }))

  it.effect("an agent that closes its stream mid-task is followed; one that breaks or hangs is a tool error", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const dropped = yield* call(client, SCRIPTED, { text: "drop" })
      expect(text(dropped)).toBe("resumed and done")
      const broken = yield* call(client, SCRIPTED, { text: "break" })
      expect(broken.isError).toBe(true)
      expect(text(broken)).toContain(`The agent ${SCRIPTED} failed:`)
      const hung = yield* call(client, SCRIPTED, { text: "hang" })
      expect(hung.isError).toBe(true)
      expect(text(hung)).toMatch(/failed: .* within 2s/)
      expect(text(yield* call(client, SCRIPTED, { text: "drop" }))).toBe("resumed and done")
    }))

  it.effect("a call longer than --call-timeout is a tool error, and its A2A task is canceled", () =>
    Effect.gen(function*() {
      const { client } = yield* StdioGateway
      const peers = yield* PeersService
      const progress: Array<string> = []
      const result = yield* call(client, OURS, { text: "slow" }, { progress })
      expect(result.isError).toBe(true)
      expect(text(result)).toBe(`The agent ${OURS} did not finish within 3s; its task was canceled`)
      const taskId = taskIdOf(progress)!
      expect(yield* awaitState(peers.ours, taskId, "TASK_STATE_CANCELED", { bearer: TOKEN })).toBe(
        "TASK_STATE_CANCELED"
      )
    }))

  it.effect("cards are resources; an agent down at start is reported, then served once it is up", () =>
    Effect.gen(function*() {
      const { client, stderr } = yield* StdioGateway
      const peers = yield* PeersService
      const { resources } = yield* Effect.promise(() => client.listResources())
      expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([
        "a2a://agents",
        `${peers.ours}/.well-known/agent-card.json`,
        `${peers.sdk}/.well-known/agent-card.json`
      ]))
      const card = yield* Effect.promise(() => client.readResource({ uri: `${peers.sdk}/.well-known/agent-card.json` }))
      expect(JSON.parse((card.contents[0] as { text: string }).text)).toMatchObject({ name: "SDK Interop Agent" })
      expect(stderr()).toContain(`A2A agent ${peers.late.url} is down`)
      const before = yield* Effect.promise(() => client.readResource({ uri: "a2a://agents" }))
      expect(JSON.parse((before.contents[0] as { text: string }).text)).toContainEqual(
        expect.objectContaining({ url: peers.late.url, state: "down" })
      )
      let changed = 0
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++)
      yield* peers.late.revive
      // reading the catalog re-reads the cards
      const after = yield* Effect.promise(() => client.readResource({ uri: "a2a://agents" }))
      expect(JSON.parse((after.contents[0] as { text: string }).text)).toContainEqual(
        expect.objectContaining({ url: peers.late.url, state: "up", tool: "Late_Agent" })
      )
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toContain("Late_Agent")
      expect(text(yield* call(client, "Late_Agent", { text: "hi" }))).toBe("Echo: hi")
      expect(changed).toBeGreaterThan(0)
    }))

  it.effect("credentials are never echoed to the MCP client", () =>
    Effect.gen(function*() {
      const { client, stderr } = yield* StdioGateway
      const seen = [
        yield* Effect.promise(() => client.listTools()),
        yield* Effect.promise(() => client.listResources()),
        yield* Effect.promise(() => client.readResource({ uri: "a2a://agents" })),
        yield* call(client, OURS, { text: "task" }),
        yield* call(client, OURS, { text: "hello", taskId: "no-such-task" })
      ]
      expect(JSON.stringify(seen)).not.toContain(TOKEN)
      expect(stderr()).not.toContain(TOKEN)
    }))
})

class HttpGateway extends Context.Service<HttpGateway, Gateway>()("test/mcp/HttpGateway") {}

inFront(HttpGateway, overHttp)("effect-a2a mcp --http", (it) => {
  it.effect("lists the tools and calls one with progress over streamable HTTP", () =>
    Effect.gen(function*() {
      const { client } = yield* HttpGateway
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((tool) => tool.name).sort()).toEqual([OURS, SCRIPTED, SDK].sort())
      const progress: Array<string> = []
      const result = yield* call(client, SDK, { text: "task" }, { progress })
      expect(text(result)).toBe("Hello, world\n\ndone")
      expect(progress[0]).toMatch(/^task \S+: submitted$/)
      expect(progress).toContain("artifact result: Hello, ")
    }))

  it.effect("MCP cancellation over HTTP cancels the A2A task", () =>
    Effect.gen(function*() {
      const { client } = yield* HttpGateway
      const peers = yield* PeersService
      const id = yield* cancelMidTask(client, OURS, "slow")
      expect(yield* awaitState(peers.ours, id, "TASK_STATE_CANCELED", { bearer: TOKEN })).toBe("TASK_STATE_CANCELED")
    }))
})

describe("effect-a2a mcp --http: listen backlog", () => {
  // More connections than Node's default backlog (511): with the gateway stopped (SIGSTOP) none is accepted, so
  // only the kernel's queue holds them; past the backlog they would wait a second to send their SYN again.
  it.live.skipIf(somaxconn === undefined || somaxconn < 1200)(
    "listens with the server's backlog: a burst of connections is held while the gateway accepts none",
    () =>
      Effect.gen(function*() {
        const port = yield* freePort
        const { child, url } = yield* overHttp([`http://127.0.0.1:${port}`])
        yield* Effect.acquireRelease(
          Effect.sync(() => child.kill("SIGSTOP")),
          () => Effect.sync(() => child.kill("SIGCONT"))
        )
        const slowest = yield* slowestConnect(Number(new URL(url).port), 1200).pipe(Effect.timeout("10 seconds"))
        expect(slowest).toBeLessThan(900)
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )
})

describe("effect-a2a mcp --refresh", () => {
  it.live(
    "re-reads the cards on its interval: an agent that comes up gets its tool, announced",
    () =>
      Effect.gen(function*() {
        const port = yield* freePort
        const { client } = yield* overStdio([`http://127.0.0.1:${port}`, "--refresh", "0.2"])
        expect((yield* Effect.promise(() => client.listTools())).tools).toEqual([])
        const announced = new Promise<void>((resolve) =>
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve())
        )
        yield* serveDemo({}, { port })
        yield* Effect.promise(() => announced)
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.map((tool) => tool.name)).toEqual([OURS])
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )
})
