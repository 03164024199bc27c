/**
 * `effect-a2a card` and `effect-a2a send` against a live agent (the @a2a-js/sdk server): run in-process with
 * a captured console / stdout for their output, and as a real process for exit codes and stderr.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Cause, Console, Effect, Layer, Option, Sink, Stdio } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { execFile } from "node:child_process"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { renderCard, showCard } from "../../src/cli/CardCommand.ts"
import { renderEvent, send, type SendOptions } from "../../src/cli/SendCommand.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { SdkPeer } from "../interop/client/SdkServer.ts"
import { SdkPeer03 } from "../interop/v0_3/SdkServer03.ts"

/** Runs an effect with console.log / console.error and stdout captured. */
const captured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const console = {
      ...globalThis.console,
      log: (...args: ReadonlyArray<unknown>) => void out.push(args.join(" ") + "\n"),
      error: (...args: ReadonlyArray<unknown>) => void err.push(args.join(" ") + "\n")
    }
    const stdio = Stdio.layerTest({
      stdout: () => Sink.forEach((chunk: string | Uint8Array) => Effect.sync(() => void out.push(String(chunk))))
    })
    const exit = yield* effect.pipe(
      Effect.provideService(Console.Console, console),
      Effect.provide(stdio),
      Effect.exit
    )
    return { exit, stdout: out.join(""), stderr: err.join("") }
  })

const options = (overrides: Partial<SendOptions> = {}): SendOptions => ({
  stream: false,
  taskId: Option.none(),
  contextId: Option.none(),
  binding: Option.none(),
  token: Option.none(),
  ...overrides
})

const CLI = fileURLToPath(new URL("./fixtures/cli.ts", import.meta.url))

/** Runs the CLI as a child process (asynchronously: the agent lives in this process). */
const runCli = (args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = execFile(process.execPath, [CLI, ...args], { timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
      resume(Effect.succeed({ code, stdout, stderr }))
    })
    return Effect.sync(() => child.kill())
  })

layer(Layer.mergeAll(SdkPeer03.layer, FetchHttpClient.layer, NodeFileSystem.layer))(
  "effect-a2a card / send with an A2A 0.3 agent",
  (it) => {
    it.effect("card shows the 0.3 card's interfaces; send talks 0.3", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer03
        const card = yield* captured(showCard(peer.url, { json: false }))
        expect(card.exit._tag).toBe("Success")
        expect(card.stdout).toContain("SDK 0.3 Agent")
        expect(card.stdout).toMatch(/1\. JSONRPC\s+0\.3\s+http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc/)
        expect(card.stdout).toMatch(/2\. HTTP\+JSON\s+0\.3\s+http:\/\/127\.0\.0\.1:\d+\/a2a\/rest/)
        const reply = yield* captured(send(peer.url, "hello", options()))
        expect(reply.exit._tag).toBe("Success")
        expect(reply.stdout).toBe("echo: hello\n")
        expect(peer.requests.at(-1)?.body).toMatchObject({ method: "message/send" })
      }))
  }
)

layer(Layer.mergeAll(SdkPeer.layer, FetchHttpClient.layer, NodeFileSystem.layer))("effect-a2a card / send", (it) => {
  describe("card", () => {
    it.effect("prints a readable summary of the card", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const { exit, stdout } = yield* captured(showCard(peer.url, { json: false }))
        expect(exit._tag).toBe("Success")
        expect(stdout).toContain("SDK Interop Agent  v1.2.3")
        expect(stdout).toContain("An agent built with @a2a-js/sdk for interop tests")
        expect(stdout).toMatch(/1\. JSONRPC\s+1\.0\s+http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc/)
        expect(stdout).toMatch(/2\. HTTP\+JSON\s+1\.0\s+http:\/\/127\.0\.0\.1:\d+\/a2a\/rest/)
        expect(stdout).toContain("Capabilities: streaming, push notifications")
        expect(stdout).toContain("- Echo [echo]: Echoes text")
        expect(stdout).toContain("none (anonymous access)")
      }))

    it.effect("--json prints the card as JSON", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const { stdout } = yield* captured(showCard(peer.url, { json: true }))
        const card = JSON.parse(stdout) as v1.AgentCard
        expect(card.name).toBe("SDK Interop Agent")
        expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(["JSONRPC", "HTTP+JSON"])
      }))

    it("summarises security schemes and requirements", () => {
      const text = renderCard({
        name: "Secure",
        description: "",
        version: "1",
        supportedInterfaces: [{
          url: "https://a/rpc",
          protocolBinding: "JSONRPC",
          protocolVersion: "1.0",
          tenant: "t1"
        }],
        capabilities: {},
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [{ id: "s", name: "S", description: "d", tags: ["x"], examples: ["do it"] }],
        securitySchemes: {
          bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } },
          key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } }
        },
        securityRequirements: [{ schemes: { bearer: { list: [] } } }, {
          schemes: { key: { list: [] }, bearer: { list: ["admin"] } }
        }]
      })
      expect(text).toContain("(tenant t1)")
      expect(text).toContain("Capabilities: none")
      expect(text).toContain("bearer: HTTP Bearer (JWT)")
      expect(text).toContain("key: API key in header \"X-API-Key\"")
      expect(text).toContain("requires: bearer OR (key AND bearer[admin])")
      expect(text).toContain("e.g. do it")
    })

    it.effect("exits non-zero with a clear message when the agent is unreachable", () =>
      Effect.gen(function*() {
        const result = yield* runCli(["card", "http://127.0.0.1:9/"])
        expect(result.code).not.toBe(0)
        expect(result.stderr).toContain("Could not reach http://127.0.0.1:9/.well-known/agent-card.json")
        expect(result.stdout).toBe("")
      }))

    it.effect("as a process: prints the summary and exits 0", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const result = yield* runCli(["card", peer.url])
        expect(result.code).toBe(0)
        expect(result.stdout).toContain("SDK Interop Agent  v1.2.3")
      }))
  })

  describe("send", () => {
    it.effect("prints a direct message reply", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const { exit, stdout } = yield* captured(send(peer.url, "hello", options()))
        expect(exit._tag).toBe("Success")
        expect(stdout).toBe("echo: hello\n")
      }))

    it.effect("prints a task's id, state and artifacts", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const { stdout } = yield* captured(send(peer.url, "task", options({ binding: Option.some("HTTP+JSON") })))
        expect(stdout).toMatch(/^Task [\w-]+ \(context [\w-]+\): completed done\n/)
        expect(stdout).toContain("Artifact result:\nHello, world\n")
      }))

    it.effect("--stream shows status changes and appends artifact text live", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const { exit, stdout } = yield* captured(send(peer.url, "task", options({ stream: true })))
        expect(exit._tag).toBe("Success")
        const lines = stdout.split("\n")
        expect(lines[0]).toMatch(/^Task [\w-]+ \(context [\w-]+\): submitted$/)
        expect(lines.slice(1)).toEqual(["[working]", "Artifact result: Hello, world", "[completed] done", ""])
      }))

    it.effect("--task-id of an unknown task: TaskNotFound, non-zero exit", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const result = yield* runCli(["send", peer.url, "more", "--task-id", "no-such-task"])
        expect(result.code).not.toBe(0)
        expect(result.stderr).toContain("TaskNotFound")
        expect(result.stdout).toBe("")
      }))

    it.effect("as a process with --stream: output and exit 0", () =>
      Effect.gen(function*() {
        const peer = yield* SdkPeer
        const result = yield* runCli(["send", peer.url, "task", "--stream", "--binding", "HTTP+JSON"])
        expect(result.stderr).toBe("")
        expect(result.code).toBe(0)
        expect(result.stdout).toContain("Artifact result: Hello, world\n[completed] done\n")
      }))
  })

  describe("stream rendering", () => {
    it("keeps appending chunks on one line until the last chunk, then breaks the line", () => {
      const events: ReadonlyArray<v1.StreamResponse> = [
        { artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ text: "one " }] } } },
        {
          artifactUpdate: {
            taskId: "t",
            contextId: "c",
            append: true,
            artifact: { artifactId: "a", parts: [{ text: "two" }] }
          }
        },
        { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" } } },
        {
          artifactUpdate: {
            taskId: "t",
            contextId: "c",
            lastChunk: true,
            artifact: { artifactId: "b", name: "data", parts: [{ data: { k: 1 } }] }
          }
        }
      ]
      let state = { midLine: false }
      let out = ""
      for (const event of events) {
        const [next, text] = renderEvent(state, event)
        state = next
        out += text
      }
      expect(out).toBe("Artifact a: one two\n[input-required]\nArtifact data: [data {\"k\":1}]\n")
      expect(state.midLine).toBe(false)
    })
  })
})

/**
 * An agent that misbehaves on purpose: its card offers JSON-RPC 1.0; SendStreamingMessage answers with the task
 * WORKING and then closes the stream; SendMessage never answers.
 */
const misbehaving = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly url: string; readonly server: Server }>((resolve) => {
      const server = createServer((request, response) => {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        if (request.method === "GET") {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify({
            name: "Cut-off agent",
            description: "Ends its streams early",
            version: "1.0.0",
            supportedInterfaces: [{ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
            capabilities: { streaming: true },
            defaultInputModes: ["text/plain"],
            defaultOutputModes: ["text/plain"],
            skills: [{ id: "cut", name: "Cut", description: "Ends streams early", tags: ["test"] }]
          }))
          return
        }
        let body = ""
        request.on("data", (chunk: Buffer) => (body += chunk.toString()))
        request.on("end", () => {
          const call = JSON.parse(body) as { id: unknown; method: string }
          if (call.method !== "SendStreamingMessage") return // never answers
          response.writeHead(200, { "content-type": "text/event-stream" })
          const task = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } }
          response.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: call.id, result: { task } })}\n\n`)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }))
    })
  ),
  ({ server }) => Effect.sync(() => server.close())
)

describe("send against an agent that cuts its stream or never answers", () => {
  it.live("--stream that ends before a terminal or interrupted state is an error, not exit 0", () =>
    Effect.gen(function*() {
      const { url } = yield* misbehaving
      const result = yield* captured(send(url, "hi", options({ stream: true }))).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      expect(result.exit._tag).toBe("Failure")
      const error = result.exit._tag === "Failure" ? Cause.findErrorOption(result.exit.cause) : Option.none()
      expect(Option.getOrUndefined(error)).toMatchObject({
        userMessage: expect.stringContaining("The stream ended while the task was still working")
      })
    }).pipe(Effect.scoped))

  it.live("--timeout bounds a reply that never comes; --binding lists the valid values", () =>
    Effect.gen(function*() {
      const { url } = yield* misbehaving
      const started = Date.now()
      const result = yield* captured(send(url, "hi", options({ timeout: 0.5 }))).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      expect(result.exit._tag).toBe("Failure")
      expect(Date.now() - started).toBeLessThan(10_000)
      const bad = yield* runCli(["send", url, "hi", "--binding", "XYZ"])
      expect(bad.code).not.toBe(0)
      expect(bad.stderr + bad.stdout).toContain("JSONRPC")
      expect(bad.stderr + bad.stdout).toContain("HTTP+JSON")
    }).pipe(Effect.scoped))
})

describe("card against an agent that accepts and never answers", () => {
  it.live("--timeout ends the wait with a clear error", () =>
    Effect.gen(function*() {
      const silent = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<Server>((resolve) => {
            const server = createServer(() => {}) // accepts, reads, never answers
            server.listen(0, "127.0.0.1", () => resolve(server))
          })
        ),
        (server) => Effect.sync(() => server.closeAllConnections())
      )
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const started = Date.now()
      const result = yield* captured(showCard(url, { json: false, timeout: 0.5 })).pipe(
        Effect.provide(Layer.mergeAll(FetchHttpClient.layer, NodeFileSystem.layer))
      )
      expect(result.exit._tag).toBe("Failure")
      expect(Date.now() - started).toBeLessThan(10_000)
      const error = result.exit._tag === "Failure" ? Cause.findErrorOption(result.exit.cause) : Option.none()
      expect(Option.getOrUndefined(error)).toMatchObject({ userMessage: expect.stringContaining("within 500ms") })
    }).pipe(Effect.scoped))
})
