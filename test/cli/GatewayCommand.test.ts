/**
 * `effect-a2a gateway` from source as a child process: it serves the gateway (memory registry), and `gateway add`,
 * `ls` and `rm` manage its agents through the admin API; its OpenAPI document is at /openapi.json, the page at /docs;
 * without the token the commands say what is missing; `--strict` (or A2A_STRICT) refuses an agent in the wild.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as OurServer from "../client/OurServer.ts"
import { cardUrl, wildAgent } from "../client/WildAgent.ts"
import { slowestConnect, somaxconn } from "../fixtures/ConnectionBurst.ts"
import { BIN, commandToExit } from "../fixtures/ServeProcess.ts"

const TOKEN = "cli-admin-token"

/** The gateway's child process and its URL, once it says it listens. */
const startGatewayProcess = (args: ReadonlyArray<string> = [], env: NodeJS.ProcessEnv = process.env) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [BIN, "gateway", "--memory", "--port", "0", "--admin-token", TOKEN, ...args], {
          env,
          stdio: ["ignore", "pipe", "pipe"]
        })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
    )
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    for (let i = 0; i < 1500; i++) {
      const m = /Gateway listening on (https?:\/\/\S+)/.exec(output)
      if (m !== null) return { url: m[1]!, child }
      if (child.exitCode !== null) return yield* Effect.die(new Error(`gateway exited: ${output}`))
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`gateway did not start: ${output}`))
  })

const startGateway = (args: ReadonlyArray<string> = [], env: NodeJS.ProcessEnv = process.env) =>
  Effect.map(startGatewayProcess(args, env), (gateway) => gateway.url)

describe("effect-a2a gateway", () => {
  it.live("serves the gateway; add, ls and rm manage its agents", () =>
    Effect.gen(function*() {
      const upstream = yield* OurServer.start()
      const base = yield* startGateway()
      const env = { ...process.env, A2A_GATEWAY_URL: base, A2A_GATEWAY_ADMIN_TOKEN: TOKEN }

      const added = yield* commandToExit(["gateway", "add", upstream.url, "--name", "demo"], env)
      assert.strictEqual(added.code, 0, added.output)
      assert.include(added.output, `demo\ta2a\t${upstream.url}`)

      const card = yield* Effect.promise(() => fetch(`${base}/agents/demo/.well-known/agent-card.json`))
      assert.strictEqual(card.status, 200)

      // relayed calls, on the relay the command installs (Node's native path): a unary call and a stream
      const relayed = (method: string, text: string) =>
        Effect.promise(() =>
          fetch(`${base}/agents/demo`, {
            method: "POST",
            headers: { "content-type": "application/json", "a2a-version": "1.0" },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method,
              params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } }
            })
          }).then(async (r) => ({ type: r.headers.get("content-type") ?? "", text: await r.text() }))
        )
      assert.include((yield* relayed("SendMessage", "hi")).text, "Echo: hi")
      const streamed = yield* relayed("SendStreamingMessage", "task")
      assert.include(streamed.type, "text/event-stream")
      assert.include(streamed.text, "TASK_STATE_COMPLETED")

      // its OpenAPI document (the admin API on: a token was given) and the page that shows it
      const document = yield* Effect.promise(() =>
        fetch(`${base}/openapi.json`).then((r) =>
          r.json() as Promise<{ servers: Array<{ url: string }>; paths: object }>
        )
      )
      assert.strictEqual(document.servers[0]!.url, base)
      assert.includeMembers(Object.keys(document.paths), ["/admin/agents", "/agents", "/agents/{name}", "/mcp"])
      assert.strictEqual((yield* Effect.promise(() => fetch(`${base}/docs`))).status, 200)

      const listed = yield* commandToExit(["gateway", "ls"], env)
      assert.strictEqual(listed.code, 0, listed.output)
      assert.include(listed.output, "demo\ta2a")

      const duplicate = yield* commandToExit(["gateway", "add", upstream.url, "--name", "demo"], env)
      assert.notStrictEqual(duplicate.code, 0)
      assert.include(duplicate.output, "409")

      const removed = yield* commandToExit(["gateway", "rm", "demo"], env)
      assert.strictEqual(removed.code, 0, removed.output)
      const after = yield* commandToExit(["gateway", "ls"], env)
      assert.notInclude(after.output, "demo")

      const noToken = yield* commandToExit(["gateway", "ls", "--gateway", base], {
        ...process.env,
        A2A_GATEWAY_ADMIN_TOKEN: undefined
      })
      assert.notStrictEqual(noToken.code, 0)
      assert.include(noToken.output, "admin token")
    }).pipe(Effect.scoped), 60_000)

  it.live(
    "--strict, or A2A_STRICT=true: an agent with the faults of agents in the wild is refused as invalid",
    () =>
      Effect.gen(function*() {
        const wild = yield* wildAgent()
        for (
          const base of [
            yield* startGateway(["--strict"]),
            yield* startGateway([], { ...process.env, A2A_STRICT: "true" })
          ]
        ) {
          const refused = yield* Effect.promise(() =>
            fetch(`${base}/admin/agents`, {
              method: "POST",
              headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
              body: JSON.stringify({ url: cardUrl(wild), name: "wild" })
            }).then(async (r) => ({ status: r.status, text: await r.text() }))
          )
          assert.strictEqual(refused.status, 422, refused.text)
          assert.include(refused.text, "InvalidCard")
        }
        // without it, the same agent registers (repaired)
        const tolerant = yield* startGateway()
        const added = yield* commandToExit(["gateway", "add", cardUrl(wild), "--name", "wild"], {
          ...process.env,
          A2A_GATEWAY_URL: tolerant,
          A2A_GATEWAY_ADMIN_TOKEN: TOKEN
        })
        assert.strictEqual(added.code, 0, added.output)
      }).pipe(Effect.scoped),
    60_000
  )

  // More connections than Node's default backlog (511): with the gateway stopped (SIGSTOP) none is accepted, so
  // only the kernel's queue holds them; past the backlog they would wait a second to send their SYN again.
  it.live.skipIf(somaxconn === undefined || somaxconn < 1200)(
    "listens with the server's backlog: a burst of connections is held while the gateway accepts none",
    () =>
      Effect.gen(function*() {
        const { child, url } = yield* startGatewayProcess()
        const port = Number(new URL(url).port)
        yield* Effect.acquireRelease(
          Effect.sync(() => child.kill("SIGSTOP")),
          () => Effect.sync(() => child.kill("SIGCONT"))
        )
        const slowest = yield* slowestConnect(port, 1200).pipe(Effect.timeout("10 seconds"))
        assert.isBelow(slowest, 900, `the slowest connected after ${Math.round(slowest)} ms`)
      }).pipe(Effect.scoped),
    30_000
  )
})
