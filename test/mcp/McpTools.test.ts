/**
 * The tools of a real MCP server (the official TypeScript SDK's, over stdio: test/fixtures/McpStdioServer, and over
 * streamable HTTP on 127.0.0.1) as Effect AI tools, called by a scripted model through `LanguageModel.generateText`: names made valid, results as
 * text, reported errors and timeouts as failures the model reads (a timeout cancels the call on the server), and the
 * MCP tools beside an A2A agent's in one toolkit.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Effect, Layer, Result, Schedule } from "effect"
import { Tool } from "effect/ai"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import * as AgentTools from "../../src/mcp/AgentTools.ts"
import * as McpTools from "../../src/mcp/McpTools.ts"
import * as ToolSet from "../../src/mcp/ToolSet.ts"
import { Ours } from "../client/OurServer.ts"
import { makeServer } from "../fixtures/McpFixtureTools.ts"
import { callTools } from "./ModelCalls.ts"

const fixture = resolve(import.meta.dirname, "..", "fixtures", "McpStdioServer.ts")
const server: McpTools.Server = { command: process.execPath, args: [fixture] }

/** The fixture's tools over streamable HTTP (the SDK's transport on node:http), at `url`, for the scope. */
const httpServer = Effect.acquireRelease(
  Effect.promise(async () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
    await makeServer().connect(transport)
    const http = createServer((req, res) => void transport.handleRequest(req, res))
    await new Promise<void>((listening) => http.listen(0, "127.0.0.1", listening))
    return { http, transport, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }
  }),
  ({ http, transport }) =>
    Effect.promise(async () => {
      await transport.close()
      http.closeAllConnections()
      await new Promise((closed) => http.close(closed))
    })
)

layer(Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer, Ours.layer), { excludeTestServices: true })(
  "McpTools",
  (it) => {
    describe("over stdio, against the official SDK's server", () => {
      it.effect("lists the tools, names made valid, with their descriptions and JSON Schemas", () =>
        Effect.gen(function*() {
          const toolkit = yield* McpTools.fromServer(server)
          expect(Object.keys(toolkit.toolkit.tools)).toEqual(["add", "weather_lookup", "broken", "forever", "stats"])
          const add = toolkit.toolkit.tools["add"]!
          expect(Tool.getDescription(add)).toBe("Adds two numbers")
          expect(Tool.getJsonSchema(add)).toMatchObject({
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"]
          })
        }).pipe(Effect.scoped))

      it.effect("a model calls them: results as text, structured content as JSON", () =>
        Effect.gen(function*() {
          const toolkit = yield* McpTools.fromServer(server)
          const results = yield* callTools(toolkit, [
            { name: "add", params: { a: 2, b: 3 } },
            { name: "weather_lookup", params: { city: "Paris" } },
            { name: "stats", params: {} }
          ])
          expect([...results].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
            { name: "add", isFailure: false, result: "5" },
            { name: "stats", isFailure: false, result: "{\"count\":3,\"mean\":1.5}" },
            { name: "weather_lookup", isFailure: false, result: "Sunny in Paris" }
          ])
        }).pipe(Effect.scoped))

      it.effect("an error the tool reports, and arguments it refuses, are failures the model reads", () =>
        Effect.gen(function*() {
          const toolkit = yield* McpTools.fromServer(server)
          const [broken] = yield* callTools(toolkit, [{ name: "broken", params: {} }])
          expect(broken).toEqual({
            name: "broken",
            isFailure: true,
            result: expect.objectContaining({ _tag: "McpToolError", tool: "broken", message: "the tool broke" })
          })
          const [refused] = yield* callTools(toolkit, [{ name: "add", params: { a: "two" } }])
          expect(refused).toMatchObject({ isFailure: true, result: { message: "a and b must be numbers" } })
        }).pipe(Effect.scoped))

      it.effect("a call past its timeout fails, and the server sees the call canceled", () =>
        Effect.gen(function*() {
          const dir = mkdtempSync(join(tmpdir(), "mcp-tools-"))
          const log = join(dir, "log")
          yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
          const toolkit = yield* McpTools.fromServer({
            ...server,
            env: { MCP_FIXTURE_LOG: log },
            callTimeout: "300 millis",
            prefix: "fixture"
          })
          expect(Object.keys(toolkit.toolkit.tools)).toContain("fixture__forever")
          const [result] = yield* callTools(toolkit, [{ name: "fixture__forever", params: {} }])
          expect(result).toMatchObject({ isFailure: true, result: { _tag: "McpToolError", tool: "forever" } })
          // the cancellation notification reaches the server shortly after
          const seen = yield* Effect.sync(() => {
            try {
              return readFileSync(log, "utf8")
            } catch {
              return ""
            }
          }).pipe(
            Effect.repeat({ until: (text) => text.includes("canceled"), schedule: Schedule.spaced("20 millis") }),
            Effect.timeout("5 seconds")
          )
          expect(seen).toBe("canceled\n")
        }).pipe(Effect.scoped))

      it.effect("a command that is not an MCP server fails to connect", () =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(
            McpTools.fromServer({ command: process.execPath, args: ["-e", "process.exit(3)"], timeout: "5 seconds" })
          )
          expect(error._tag).toBe("McpClientError")
        }).pipe(Effect.scoped))
    })

    it.effect("over streamable HTTP: the same tools, called the same way", () =>
      Effect.gen(function*() {
        const { url } = yield* httpServer
        const tools = yield* McpTools.fromServer({ url, prefix: "remote" })
        expect(Object.keys(tools.toolkit.tools)).toEqual([
          "remote__add",
          "remote__weather_lookup",
          "remote__broken",
          "remote__forever",
          "remote__stats"
        ])
        const results = yield* callTools(tools, [
          { name: "remote__add", params: { a: 1, b: 2 } },
          { name: "remote__broken", params: {} }
        ])
        expect([...results].sort((a, b) => a.name.localeCompare(b.name))).toMatchObject([
          { name: "remote__add", isFailure: false, result: "3" },
          { name: "remote__broken", isFailure: true, result: { message: "the tool broke" } }
        ])
      }).pipe(Effect.scoped))

    it.effect("MCP tools and an A2A agent in one toolkit", () =>
      Effect.gen(function*() {
        const ours = yield* Ours
        const toolkit = yield* ToolSet.merge(
          yield* AgentTools.fromUrl(ours.url),
          yield* McpTools.fromServer(server)
        )
        const results = yield* callTools(toolkit, [
          { name: "add", params: { a: 40, b: 2 } },
          { name: "effect-a2a_demo_agent", params: { text: "hi" } }
        ])
        expect(results.map((r) => typeof r.result === "string" ? r.result : (r.result as { text: string }).text).sort())
          .toEqual(["42", "Echo: hi"])
      }).pipe(Effect.scoped))

    it("parses a command line with quotes", () => {
      expect(McpTools.parseCommand("npx -y \"@scope/server one\" --flag=a")).toEqual(
        Result.succeed({ command: "npx", args: ["-y", "@scope/server one", "--flag=a"] })
      )
      expect(Result.isFailure(McpTools.parseCommand("  "))).toBe(true)
      expect(Result.isFailure(McpTools.parseCommand("cat | grep x"))).toBe(true)
    })
  }
)
