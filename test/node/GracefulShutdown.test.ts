/**
 * SIGTERM under keep-alive load, against `effect-a2a serve` as a child process. Once the shutdown begins every
 * request is answered with `Connection: close` (a kept-alive client sends nothing more on it); requests in flight
 * finish; a blocking SendMessage still waiting at the shutdown deadline answers its task as it is then. No request
 * gets an empty 503 or a connection reset after its request was taken.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Agent, request } from "node:http"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

interface Answer {
  readonly status: number
  readonly connection: string | undefined
  readonly body: string
  /** Sent after the SIGTERM. */
  readonly late: boolean
}

interface Failure {
  readonly code: string
  readonly late: boolean
}

/** One blocking SendMessage over JSON-RPC on `agent`'s kept-alive connection. */
const send = (base: string, agent: Agent, text: string, late: () => boolean) =>
  new Promise<Answer | Failure>((resolve) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } }
    })
    const sentLate = late()
    const req = request(`${base}/`, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "a2a-version": "1.0", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      let text = ""
      res.on("data", (chunk: Buffer) => (text += chunk.toString()))
      res.on(
        "end",
        () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text, late: sentLate })
      )
      res.on("error", (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? error.message, late: sentLate }))
    })
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? error.message, late: sentLate }))
    req.end(body)
  })

describe("effect-a2a serve: SIGTERM under keep-alive load", () => {
  it.live(
    "says Connection: close, finishes what is in flight, answers waiting sends at the deadline",
    () =>
      Effect.gen(function*() {
        const server = yield* ServeProcess.start({ A2A_SHUTDOWN_TIMEOUT: "1 second" }, ["--memory"])
        const { base, child, exited } = server

        let terminated = false
        const late = () => terminated
        const answers: Array<Answer> = []
        const failures: Array<Failure> = []
        // 24 clients on kept-alive connections: 16 with quick tasks in a loop, 8 whose tasks outlast the deadline.
        let waitsSent = 0
        const worker = (text: string) =>
          Effect.promise(async () => {
            const agent = new Agent({ keepAlive: true, maxSockets: 1 })
            try {
              for (;;) {
                if (text === "wait") waitsSent++
                const outcome = await send(base, agent, text, late)
                if ("code" in outcome) {
                  failures.push(outcome)
                  return
                }
                answers.push(outcome)
                if (outcome.connection === "close" && terminated) return
              }
            } finally {
              agent.destroy()
            }
          })
        const workers = [
          ...Array.from({ length: 16 }, () => worker("quick 5")),
          ...Array.from({ length: 8 }, () => worker("wait"))
        ]
        const running = yield* Effect.forkChild(Effect.all(workers, { concurrency: "unbounded" }))
        // The SIGTERM comes once every waiting send is out and the quick ones have been answered a few times (a
        // loaded machine can take much longer to get there than an idle one), and not before 400 ms of load.
        yield* Effect.sleep("400 millis")
        for (let i = 0; i < 750 && (waitsSent < 8 || answers.length <= 32); i++) yield* Effect.sleep("20 millis")
        terminated = true
        child.kill("SIGTERM")
        const code = yield* Effect.promise(() => exited)
        assert.strictEqual(code, 0, server.output())
        yield* Fiber.join(running)

        assert.isAbove(answers.length, 16, server.output())
        for (const answer of answers) {
          // A JSON-RPC response every time: never an empty 503.
          assert.strictEqual(answer.status, 200, `${answer.status} ${answer.body}`)
          const parsed = JSON.parse(answer.body) as { result?: { task?: { status: { state: string } } } }
          assert.isDefined(parsed.result?.task, answer.body)
        }
        // The waiting sends (sent before the SIGTERM) answered their task as it was at the deadline.
        const waited = answers.filter((a) => !a.late && a.body.includes("TASK_STATE_WORKING"))
        assert.strictEqual(waited.length, 8, answers.map((a) => a.body).join("\n"))
        // Requests that came after the shutdown began were answered with Connection: close (a client whose
        // answer came before that sent the one that was).
        assert.isTrue(
          answers.some((a) => a.late && a.connection === "close"),
          JSON.stringify(answers.filter((a) => a.late))
        )
        // A client that comes back finds no listener (the load balancer's cue), never a reset request.
        for (const failure of failures) assert.strictEqual(failure.code, "ECONNREFUSED", JSON.stringify(failures))
      }).pipe(Effect.scoped, Effect.timeout("30 seconds")),
    40_000
  )
})
