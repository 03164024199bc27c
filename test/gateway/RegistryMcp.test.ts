/**
 * The gateway's registry as MCP tools, reached by the official MCP client: at `/mcp` on the gateway's server (tools
 * listed and called with progress and cancellation, following registrations with `list_changed`, access per
 * principal, a change made by another node on the same store), and over stdio from `effect-a2a gateway --stdio`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Schedule, type Scope } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as OurServer from "../client/OurServer.ts"
import { BIN } from "../fixtures/ServeProcess.ts"
import * as SdkServer from "../interop/client/SdkServer.ts"
import { freshSchemaUrl, testDatabaseUrl } from "../sql/pg.ts"
import { call, type RunningGateway, startGateway, whileCalling } from "./GatewayPeers.ts"

const auth = Auth.bearer({ tokens: { "alice-t": "alice", "bob-t": "bob" } })

interface Connected {
  readonly client: Client
  /** How many `notifications/tools/list_changed` arrived so far. */
  readonly listChanged: () => number
}

const connect = (transport: StreamableHTTPClientTransport | StdioClientTransport) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Connected> => {
      const client = new Client({ name: "registry-test", version: "1.0.0" })
      let changes = 0
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changes++
      })
      await client.connect(transport)
      return { client, listChanged: () => changes }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

/** An MCP client of the gateway's `/mcp`, as the principal of `token` (none: anonymous). */
const overHttp = (gateway: string, token?: string) =>
  connect(
    new StreamableHTTPClientTransport(new URL(`${gateway}/mcp`), {
      requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }
    })
  )

const toolNames = (client: Client) =>
  Effect.promise(() => client.listTools()).pipe(Effect.map(({ tools }) => tools.map((tool) => tool.name).sort()))

/** Waits until a list_changed arrived after `since`. */
const awaitListChanged = (connected: Connected, since: number) =>
  Effect.sync(connected.listChanged).pipe(
    Effect.repeat({ until: (n) => n > since, schedule: Schedule.spaced("20 millis"), times: 250 }),
    Effect.tap((n) => Effect.sync(() => assert.isAbove(n, since, "no notifications/tools/list_changed")))
  )

interface ToolResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly isError?: boolean | undefined
}

const callTool = (client: Client, name: string, args: Record<string, unknown>, progress?: Array<string>) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: args }, undefined, {
      ...(progress !== undefined ? { onprogress: (p) => progress.push(p.message ?? "") } : {}),
      timeout: 20_000
    }) as Promise<ToolResult>
  )

const textOf = (result: ToolResult) => result.content.map((block) => block.text ?? "").join("\n")

/** The MCP error a request failed with (its message), or undefined when it succeeded. */
const failure = <A>(promise: () => Promise<A>) =>
  Effect.promise(() => promise().then(() => undefined, (error: unknown) => String(error)))

/** Two gateway nodes on one store: a change made through one is seen by the other's MCP clients. */
const sharedStore = (
  nodes: Effect.Effect<{ readonly one: RunningGateway; readonly two: RunningGateway }, never, Scope.Scope>
) =>
  Effect.gen(function*() {
    const demo = yield* OurServer.start()
    const sdk = yield* SdkServer.start
    const { one, two } = yield* nodes
    assert.strictEqual(
      (yield* call(`${one.url}/admin/agents`, { body: { url: demo.url, name: "demo" } })).status,
      201
    )
    const alice = yield* overHttp(two.url, "alice-t")
    // node two read the store when it started, or reads it now
    const first = yield* toolNames(alice.client)
    if (!first.includes("demo")) {
      yield* awaitListChanged(alice, 0)
      assert.deepStrictEqual(yield* toolNames(alice.client), ["demo"])
    }

    const before = alice.listChanged()
    // node two learns of it when listing reads the store again, or at once where the store announces changes
    // (PostgreSQL's NOTIFY, possibly before the list): either way while the client has a request open, which is
    // where Effect's HTTP transport delivers list_changed; and the next list has it
    yield* whileCalling(
      alice.client,
      Effect.gen(function*() {
        assert.strictEqual(
          (yield* call(`${one.url}/admin/agents`, { body: { url: sdk.url, name: "sdk" } })).status,
          201
        )
        yield* toolNames(alice.client)
        yield* awaitListChanged(alice, before)
      })
    )
    assert.deepStrictEqual(yield* toolNames(alice.client), ["demo", "sdk"])
    assert.strictEqual(textOf(yield* callTool(alice.client, "sdk", { text: "two" })), "echo: two")

    // removed on node one: gone from node two's next list
    assert.strictEqual((yield* call(`${one.url}/admin/agents/sdk`, { method: "DELETE" })).status, 200)
    assert.deepStrictEqual(yield* toolNames(alice.client), ["demo"])
  }).pipe(Effect.scoped)

describe("the registry over MCP at /mcp", () => {
  it.live(
    "lists and calls the agents, with progress; follows registrations with list_changed",
    () =>
      Effect.gen(function*() {
        const demo = yield* OurServer.start()
        const sdk = yield* SdkServer.start
        const gateway = yield* startGateway(Gateway.layerMemory, {}, auth)
        const admin = `${gateway.url}/admin/agents`
        assert.strictEqual((yield* call(admin, { body: { url: demo.url, name: "demo" } })).status, 201)

        const alice = yield* overHttp(gateway.url, "alice-t")
        const { tools } = yield* Effect.promise(() => alice.client.listTools())
        assert.deepStrictEqual(tools.map((tool) => tool.name), ["demo"])
        assert.strictEqual(tools[0]?.title, "effect-a2a demo agent")
        assert.include(tools[0]?.description ?? "", "Multi-step task")

        const progress: Array<string> = []
        const result = yield* callTool(alice.client, "demo", { text: "task write a report" }, progress)
        assert.notStrictEqual(result.isError, true, textOf(result))
        assert.match(progress[0] ?? "", /^task \S+: submitted$/)
        assert.include(progress, "working: Step 2 of 3: writing the result")

        // registered: a client with a request open is told, and every client lists it
        const bob = yield* overHttp(gateway.url, "bob-t")
        const before = alice.listChanged()
        yield* whileCalling(
          alice.client,
          Effect.gen(function*() {
            assert.strictEqual((yield* call(admin, { body: { url: sdk.url, name: "sdk" } })).status, 201)
            yield* awaitListChanged(alice, before)
          })
        )
        assert.deepStrictEqual(yield* toolNames(bob.client), ["demo", "sdk"])
        assert.deepStrictEqual(yield* toolNames(alice.client), ["demo", "sdk"])
        assert.strictEqual(textOf(yield* callTool(alice.client, "sdk", { text: "hi" })), "echo: hi")

        // removed: the client is told, it is no longer listed nor callable
        const beforeRemoval = alice.listChanged()
        yield* whileCalling(
          alice.client,
          Effect.gen(function*() {
            assert.strictEqual((yield* call(`${admin}/sdk`, { method: "DELETE" })).status, 200)
            yield* awaitListChanged(alice, beforeRemoval)
          })
        )
        assert.deepStrictEqual(yield* toolNames(alice.client), ["demo"])
        assert.deepStrictEqual(yield* toolNames(bob.client), ["demo"])
        assert.include(yield* failure(() => alice.client.callTool({ name: "sdk", arguments: { text: "x" } })), "sdk")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("MCP cancellation cancels the A2A task upstream", () =>
    Effect.gen(function*() {
      const demo = yield* OurServer.start()
      const gateway = yield* startGateway(Gateway.layerMemory, {}, auth)
      assert.strictEqual(
        (yield* call(`${gateway.url}/admin/agents`, { body: { url: demo.url, name: "demo" } })).status,
        201
      )
      const { client } = yield* overHttp(gateway.url, "alice-t")
      const progress: Array<string> = []
      const controller = new AbortController()
      const taskId = () => progress.map((m) => /^task (\S+): /.exec(m)?.[1]).find((id) => id !== undefined)
      const outcome = yield* Effect.promise(() =>
        client.callTool({ name: "demo", arguments: { text: "slow" } }, undefined, {
          onprogress: (p) => {
            progress.push(p.message ?? "")
            if (taskId() !== undefined && progress.length >= 2) controller.abort("changed my mind")
          },
          signal: controller.signal,
          timeout: 20_000
        }).then(() => "finished", (error: unknown) => String(error))
      )
      assert.include(outcome, "changed my mind")
      const upstream = yield* A2AClient.resolve(demo.url).pipe(Effect.provide(FetchHttpClient.layer))
      const state = yield* upstream.getTask({ id: taskId()! }).pipe(
        Effect.map((task) => task.status.state),
        Effect.repeat({
          until: (s) => s === "TASK_STATE_CANCELED",
          schedule: Schedule.spaced("50 millis"),
          times: 100
        }),
        Effect.provide(FetchHttpClient.layer)
      )
      assert.strictEqual(state, "TASK_STATE_CANCELED")
    }).pipe(Effect.scoped), 60_000)

  it.live(
    "a principal sees in tools/list, and may call, only the agents its allow admits",
    () =>
      Effect.gen(function*() {
        const demo = yield* OurServer.start()
        const sdk = yield* SdkServer.start
        const gateway = yield* startGateway(Gateway.layerMemory, {}, auth)
        const admin = `${gateway.url}/admin/agents`
        assert.strictEqual((yield* call(admin, { body: { url: demo.url, name: "open" } })).status, 201)
        assert.strictEqual(
          (yield* call(admin, { body: { url: sdk.url, name: "private", allow: ["alice"] } })).status,
          201
        )
        const alice = yield* overHttp(gateway.url, "alice-t")
        const bob = yield* overHttp(gateway.url, "bob-t")
        const anonymous = yield* overHttp(gateway.url)
        assert.deepStrictEqual(yield* toolNames(alice.client), ["open", "private"])
        assert.deepStrictEqual(yield* toolNames(bob.client), ["open"])
        assert.deepStrictEqual(yield* toolNames(anonymous.client), ["open"])

        assert.strictEqual(textOf(yield* callTool(alice.client, "private", { text: "x" })), "echo: x")
        // for bob it does not exist: the same error as a tool nobody registered
        const hidden = yield* failure(() => bob.client.callTool({ name: "private", arguments: { text: "x" } }))
        const nowhere = yield* failure(() => bob.client.callTool({ name: "nowhere", arguments: { text: "x" } }))
        assert.include(hidden, "not found")
        assert.strictEqual(hidden?.replace("private", "X"), nowhere?.replace("nowhere", "X"))
        // an open agent is listed to anyone, and called by an authenticated caller only
        assert.include(
          yield* failure(() => anonymous.client.callTool({ name: "open", arguments: { text: "x" } })),
          "Authentication required"
        )
        assert.strictEqual(textOf(yield* callTool(bob.client, "open", { text: "hi" })), "Echo: hi")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a change made by another node on the same store is seen on the next tools/list",
    () =>
      Effect.gen(function*() {
        const file = join(mkdtempSync(join(tmpdir(), "registry-mcp-")), Gateway.SQLITE_FILE)
        return {
          one: yield* startGateway(Gateway.layerSqlite(file), {}, auth),
          two: yield* startGateway(Gateway.layerSqlite(file), {}, auth)
        }
      }).pipe(sharedStore),
    60_000
  )
})

describe.skipIf(testDatabaseUrl === undefined)("the registry over MCP, two nodes on one PostgreSQL", () => {
  it.live(
    "a change made by the other node is seen on the next tools/list",
    () =>
      Effect.gen(function*() {
        const url = yield* freshSchemaUrl
        return {
          one: yield* startGateway(Gateway.layerPg(url), {}, auth),
          two: yield* startGateway(Gateway.layerPg(url), {}, auth)
        }
      }).pipe(sharedStore),
    60_000
  )
})

describe("the registry over stdio", () => {
  it.live(
    "effect-a2a gateway --stdio serves the agents of the store, spawned by the MCP client",
    () =>
      Effect.gen(function*() {
        const demo = yield* OurServer.start()
        const dir = mkdtempSync(join(tmpdir(), "registry-stdio-"))
        const gateway = yield* startGateway(Gateway.layerSqlite(join(dir, Gateway.SQLITE_FILE)), {}, auth)
        const admin = `${gateway.url}/admin/agents`
        assert.strictEqual(
          (yield* call(admin, { body: { url: demo.url, name: "demo", allow: ["alice"] } })).status,
          201
        )

        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [BIN, "gateway", "--stdio"],
          env: { ...process.env as Record<string, string>, A2A_DATA_DIR: dir },
          stderr: "pipe"
        })
        let stderr = ""
        transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
        const stdio = yield* connect(transport).pipe(
          Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.die(new Error(stderr)) })
        )
        // the local operator sees every agent, whatever its allow list
        assert.deepStrictEqual(yield* toolNames(stdio.client), ["demo"], stderr)
        const progress: Array<string> = []
        const result = yield* callTool(stdio.client, "demo", { text: "task over stdio" }, progress)
        assert.notStrictEqual(result.isError, true, textOf(result))
        assert.match(progress[0] ?? "", /^task \S+: submitted$/)
        assert.strictEqual(textOf(yield* callTool(stdio.client, "demo", { text: "hi" })), "Echo: hi")

        // registered on the HTTP node: listing reads the store again, the client is told, and the next list has it
        const sdk = yield* SdkServer.start
        const before = stdio.listChanged()
        assert.strictEqual((yield* call(admin, { body: { url: sdk.url, name: "sdk" } })).status, 201)
        yield* toolNames(stdio.client)
        yield* awaitListChanged(stdio, before)
        assert.deepStrictEqual(yield* toolNames(stdio.client), ["demo", "sdk"])
        assert.strictEqual(textOf(yield* callTool(stdio.client, "sdk", { text: "x" })), "echo: x")
      }).pipe(Effect.scoped),
    60_000
  )
})
