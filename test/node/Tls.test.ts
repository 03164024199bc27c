/**
 * `effect-a2a serve` over HTTPS (A2A_TLS_CERT / A2A_TLS_KEY), and mutual TLS as authentication
 * (A2A_TLS_CA, A2A_TLS_CLIENT_CERT, A2A_AUTH=mtls): the caller is the verified client certificate's subject; a
 * request without one, or with one no trusted CA issued, is refused. Test certificates: test/fixtures/tls.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { request } from "node:https"
import { fileURLToPath } from "node:url"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

const tls = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url))
const pem = (name: string) => readFileSync(tls(name), "utf8")

interface Reply {
  readonly status: number
  readonly body: string
}

/** One HTTPS request trusting the test CA, with a client certificate when given. */
const call = (
  url: string,
  options: { readonly body?: unknown; readonly client?: "client" | "stranger" } = {}
) =>
  Effect.promise(() =>
    new Promise<Reply | { readonly error: string }>((resolve) => {
      const body = options.body === undefined ? undefined : JSON.stringify(options.body)
      const req = request(url, {
        method: body === undefined ? "GET" : "POST",
        ca: pem("ca.pem"),
        ...(options.client !== undefined
          ? { cert: pem(`${options.client}.pem`), key: pem(`${options.client}.key`) }
          : {}),
        headers: { "a2a-version": "1.0", "content-type": "application/json" }
      }, (res) => {
        let text = ""
        res.on("data", (chunk: Buffer) => (text += chunk.toString()))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      })
      req.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
      req.end(body)
    })
  )

const send = (text: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } }
})

const SERVER_TLS = { A2A_TLS_CERT: tls("server.pem"), A2A_TLS_KEY: tls("server.key") }

describe("serve over TLS", () => {
  it.live(
    "HTTPS: the card's interfaces are https URLs and the bindings answer; plain HTTP gets nothing",
    () =>
      Effect.gen(function*() {
        const node = yield* ServeProcess.start(SERVER_TLS, ["--memory"])
        assert.match(node.base, /^https:\/\/127\.0\.0\.1:\d+$/)
        const card = yield* call(`${node.base}/.well-known/agent-card.json`)
        assert.isTrue("status" in card && card.status === 200, JSON.stringify(card))
        const interfaces = (JSON.parse((card as Reply).body) as { supportedInterfaces: ReadonlyArray<{ url: string }> })
          .supportedInterfaces
        for (const i of interfaces) assert.match(i.url, /^https:\/\//)
        const reply = yield* call(`${node.base}/`, { body: send("quick 1") })
        assert.include((reply as Reply).body, "TASK_STATE_COMPLETED")
        const plain = yield* Effect.promise(() =>
          fetch(node.base.replace("https:", "http:") + "/.well-known/agent-card.json").then(
            (r) => `HTTP ${r.status}`,
            () => "refused"
          )
        )
        assert.strictEqual(plain, "refused")
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "mutual TLS: the verified certificate's subject is the caller; none, or an untrusted one, is 401",
    () =>
      Effect.gen(function*() {
        const node = yield* ServeProcess.start(
          { ...SERVER_TLS, A2A_TLS_CA: tls("ca.pem"), A2A_TLS_CLIENT_CERT: "request", A2A_AUTH: "mtls" },
          ["--memory"]
        )
        const card = JSON.parse(((yield* call(`${node.base}/.well-known/agent-card.json`)) as Reply).body) as {
          securitySchemes: Record<string, unknown>
        }
        assert.deepStrictEqual(Object.keys(card.securitySchemes), ["mtls"])
        assert.property(card.securitySchemes["mtls"], "mtlsSecurityScheme")

        const sent = (yield* call(`${node.base}/`, { body: send("quick 1"), client: "client" })) as Reply
        assert.strictEqual(sent.status, 200, sent.body)
        const taskId = (JSON.parse(sent.body) as { result: { task: { id: string } } }).result.task.id
        // Tasks are scoped by the principal: the same certificate reads it back.
        const got = (yield* call(`${node.base}/tasks/${taskId}`, { client: "client" })) as Reply
        assert.strictEqual(got.status, 200, got.body)

        for (const client of [undefined, "stranger"] as const) {
          const refused = (yield* call(`${node.base}/tasks/${taskId}`, client === undefined ? {} : { client })) as Reply
          assert.strictEqual(refused.status, 401, `${client}: ${refused.body}`)
          assert.include(refused.body, "client certificate")
        }
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "required client certificates: a connection without a trusted one does not get through",
    () =>
      Effect.gen(function*() {
        const node = yield* ServeProcess.start(
          { ...SERVER_TLS, A2A_TLS_CA: tls("ca.pem"), A2A_TLS_CLIENT_CERT: "require", A2A_AUTH: "mtls" },
          ["--memory"]
        )
        const trusted = yield* call(`${node.base}/.well-known/agent-card.json`, { client: "client" })
        assert.isTrue("status" in trusted && trusted.status === 200, JSON.stringify(trusted))
        for (const client of [undefined, "stranger"] as const) {
          const outcome = yield* call(
            `${node.base}/.well-known/agent-card.json`,
            client === undefined ? {} : { client }
          )
          assert.property(outcome, "error", `${client}: ${JSON.stringify(outcome)}`)
        }
      }).pipe(Effect.scoped),
    30_000
  )

  it.live("a certificate without its key is one line at start, naming the variables", () =>
    Effect.gen(function*() {
      const failed = yield* ServeProcess.start({ A2A_TLS_CERT: tls("server.pem") }, ["--memory"]).pipe(
        Effect.as("started"),
        Effect.catchDefect((defect) => Effect.succeed(String(defect)))
      )
      assert.include(failed, "A2A_TLS_CERT and A2A_TLS_KEY go together")
    }).pipe(Effect.scoped), 30_000)
})
