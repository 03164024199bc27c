/**
 * A tiny scripted node:http server for client tests: 127.0.0.1, ephemeral port, closed with the scope. Every
 * request is recorded (method, URL, headers, body) and answered by the test's handler.
 */
import { Effect, type Scope } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type * as v1 from "../../src/protocol/generated/v1.ts"

export interface Recorded {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

export interface TestServer {
  readonly url: string
  readonly requests: ReadonlyArray<Recorded>
}

export type Handler = (request: Recorded, res: ServerResponse, index: number) => void

export const serve = (handler: Handler): Effect.Effect<TestServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: ReturnType<typeof createServer>; readonly state: TestServer }>((resume) => {
      const requests: Array<Recorded> = []
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const recorded = {
            method: req.method ?? "",
            url: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          requests.push(recorded)
          handler(recorded, res, requests.length - 1)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        resume(Effect.succeed({ server, state: { url, requests } }))
      })
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ state }) => state))

export const json = (res: ServerResponse, status: number, body: unknown, contentType = "application/json") => {
  res.writeHead(status, { "content-type": contentType })
  res.end(typeof body === "string" ? body : JSON.stringify(body))
}

/** The id of a JSON-RPC request body (to echo it). */
export const rpcId = (body: string): unknown => (JSON.parse(body) as { id?: unknown }).id

export const cardFor = (
  interfaces: ReadonlyArray<v1.AgentInterface>,
  extra: Partial<v1.AgentCard> = {}
): v1.AgentCard => ({
  name: "Test Agent",
  description: "Scripted agent for client tests",
  version: "0.0.1",
  supportedInterfaces: interfaces,
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "S", description: "S", tags: ["t"] }],
  ...extra
})

export const task = (id: string, state: v1.TaskState = "TASK_STATE_COMPLETED") => ({
  id,
  contextId: "ctx",
  status: { state }
})
