/**
 * An agent nobody here wrote: VoltAgent's A2A server (@voltagent/a2a-server 2.0.3 behind @voltagent/server-hono),
 * a VoltAgent Agent with a scripted model, in a child process on 127.0.0.1 (test/interop/wild/voltagent-agent.mjs).
 * Our client sends to it, streams from it and reads the task back, repairing its faults (Tolerance); with `strict`
 * it refuses it with the typed errors. The gateway registers it and forwards to it by default, and with `strict` refuses
 * its card as invalid (not as unreachable). VoltAgent lives in a fixture project of its own (test/interop/wild,
 * installed by its install.sh): without it this file skips, saying so.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import { call, startGateway } from "../gateway/GatewayPeers.ts"

const wild = fileURLToPath(new URL("./wild/", import.meta.url))
const installed = existsSync(`${wild}node_modules/@voltagent/a2a-server/package.json`)
if (!installed) {
  console.log("VoltAgent interop skipped: the fixture is not installed (run test/interop/wild/install.sh)")
}

const freePort = Effect.callback<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** Starts VoltAgent in a child process; its base URL once it serves its card. Stopped with the scope. */
const voltAgent = Effect.acquireRelease(
  Effect.gen(function*() {
    const port = yield* freePort
    return yield* Effect.callback<{ readonly child: ChildProcess; readonly url: string }, Error>((resume) => {
      const child = spawn(process.execPath, ["voltagent-agent.mjs", String(port)], {
        cwd: wild,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      const timer = setTimeout(() => {
        child.kill()
        resume(Effect.fail(new Error(`VoltAgent did not start within 60 s:\n${output}`)))
      }, 60_000)
      const read = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        if (output.includes(`READY ${port}`)) {
          clearTimeout(timer)
          resume(Effect.succeed({ child, url: `http://127.0.0.1:${port}` }))
        }
      }
      child.stdout.on("data", read)
      child.stderr.on("data", read)
      child.on("exit", (code) => {
        clearTimeout(timer)
        resume(Effect.fail(new Error(`VoltAgent exited with ${code}:\n${output}`)))
      })
    })
  }),
  ({ child }) =>
    Effect.callback<void>((resume) => {
      if (child.exitCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
      child.kill()
    })
).pipe(Effect.map(({ url }) => ({ url, card: `${url}/.well-known/echo/agent-card.json` })))

describe.skipIf(!installed)("VoltAgent's A2A server (@voltagent/a2a-server 2.0.3)", () => {
  it.live(
    "our client sends, streams and reads the task back, repairing its faults and saying so once",
    () =>
      Effect.gen(function*() {
        const agent = yield* voltAgent
        const logged: Array<string> = []
        yield* Effect.gen(function*() {
          const client = yield* A2AClient.resolve(agent.card)
          expect(client.card.name).toBe("echo")
          expect(client.interface.protocolVersion).toBe("0.3")
          expect(client.url).toBe(`${agent.url}/a2a/echo`)

          const sent = yield* client.sendMessage({ message: userText("hello") })
          if (!("task" in sent)) throw new Error("expected a task from VoltAgent")
          expect(sent.task.status.state).toBe("TASK_STATE_COMPLETED")
          expect(sent.task.status.message?.parts).toEqual([{ text: "echo: hello" }])

          const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("stream me") }))
          const last = events.at(-1)
          if (last === undefined || !("task" in last)) throw new Error("expected Task events from VoltAgent")
          expect(last.task.status.state).toBe("TASK_STATE_COMPLETED")
          expect(last.task.status.message?.parts).toEqual([{ text: "echo: stream me" }])
          expect(events.every((event) => "task" in event && event.task.id === last.task.id)).toBe(true)

          const read = yield* client.getTask({ id: last.task.id })
          expect(read.status.state).toBe("TASK_STATE_COMPLETED")
          expect(read.status.message?.parts).toEqual([{ text: "echo: stream me" }])

          yield* client.sendMessage({ message: userText("again") })
        }).pipe(
          Effect.provide(Logger.layer([Logger.make(({ logLevel, message }) => {
            if (logLevel === "Warn") logged.push(String(message))
          })]))
        )
        expect(logged).toHaveLength(4)
        expect(logged.filter((line) => line.includes("protocolVersion"))).toHaveLength(1)
        expect(logged.filter((line) => line.includes("description"))).toHaveLength(1)
        expect(logged.filter((line) => line.includes("kind"))).toHaveLength(1)
        expect(logged.filter((line) => line.includes("U+001E"))).toHaveLength(1)
      }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(FetchHttpClient.layer, A2A03.client))),
    90_000
  )

  it.live(
    "strict: the card is A2AAgentCardInvalid; its results and stream events are refused",
    () =>
      Effect.gen(function*() {
        const agent = yield* voltAgent
        const refused = yield* Effect.flip(A2AClient.resolve(agent.card, { strict: true }))
        expect(refused._tag).toBe("A2AAgentCardInvalid")
        expect(refused.message).toContain("protocolVersion")

        // Its card read tolerantly, its answers strictly: a client made from the card with strict on.
        const tolerant = yield* A2AClient.resolve(agent.card)
        const client = yield* A2AClient.make(tolerant.card, { strict: true })
        const sent = yield* Effect.flip(client.sendMessage({ message: userText("hello") }))
        expect(sent._tag === "A2AResponseError" && sent.reason).toBe("SchemaMismatch")
        const streamed = yield* Effect.flip(Stream.runDrain(client.sendStreamingMessage({ message: userText("x") })))
        expect(streamed._tag === "A2AResponseError" && streamed.reason).toBe("InvalidJson")
      }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(FetchHttpClient.layer, A2A03.client))),
    90_000
  )

  it.live(
    "the gateway forwards to it by default; with strict it refuses its card as invalid, not as down",
    () =>
      Effect.gen(function*() {
        const agent = yield* voltAgent
        const tolerant = yield* startGateway(Gateway.layerMemory)
        const registered = yield* call(`${tolerant.url}/admin/agents`, { body: { url: agent.card, name: "volt" } })
        expect(registered.status, registered.text).toBe(201)
        const sent = yield* call(`${tolerant.url}/agents/volt`, {
          token: null,
          body: {
            jsonrpc: "2.0",
            id: 1,
            method: "SendMessage",
            params: { message: { role: "ROLE_USER", messageId: "m-volt", parts: [{ text: "hello" }] } }
          }
        })
        expect(sent.body.result?.task?.status?.state, sent.text).toBe("TASK_STATE_COMPLETED")

        const strict = yield* startGateway(Gateway.layerMemory, { strict: true })
        const refused = yield* call(`${strict.url}/admin/agents`, { body: { url: agent.card, name: "volt" } })
        expect(refused.status, refused.text).toBe(422)
        expect(refused.body.error.reason).toBe("InvalidCard")
        expect(refused.body.error.message).toContain("protocolVersion")
      }).pipe(Effect.scoped),
    90_000
  )
})
