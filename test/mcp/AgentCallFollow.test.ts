/**
 * AgentCall following a turn the first exchange left unfinished, against scripted JSON-RPC peers on 127.0.0.1:
 * a stream that drops before the task is done is resumed with SubscribeToTask, and an agent that answers a
 * blocking SendMessage early is polled with GetTask until the turn is over.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as AgentCall from "../../src/mcp/AgentCall.ts"
import { cardFor, json, rpcId, serve } from "../client/TestServer.ts"

const frame = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`
const method = (body: string): string => (JSON.parse(body) as { method: string }).method
const task = (state: string, extra: object = {}) => ({ id: "t1", contextId: "c1", status: { state }, ...extra })

describe("AgentCall follows an unfinished turn", () => {
  it.effect("a dropped stream is resumed with SubscribeToTask", () =>
    Effect.gen(function*() {
      const server = yield* serve((req, res) => {
        const id = rpcId(req.body)
        res.writeHead(200, { "content-type": "text/event-stream" })
        if (method(req.body) === "SendStreamingMessage") {
          // the task starts, a first chunk arrives, and the connection ends before the task is done
          res.write(frame(id, { task: task("TASK_STATE_WORKING") }))
          res.end(frame(id, {
            artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a", parts: [{ text: "Hel" }] } }
          }))
          return
        }
        res.write(frame(id, { task: task("TASK_STATE_WORKING") }))
        res.write(frame(id, {
          artifactUpdate: {
            taskId: "t1",
            contextId: "c1",
            append: true,
            artifact: { artifactId: "a", parts: [{ text: "lo" }] }
          }
        }))
        res.end(
          frame(id, { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } })
        )
      })
      const client = yield* A2AClient.make(
        cardFor([{ url: server.url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }])
      )
      const outcome = yield* AgentCall.call(client, { text: "go" })
      expect(outcome).toEqual({ _tag: "Completed", taskId: "t1", contextId: "c1", text: "Hello", data: [], files: [] })
      expect(server.requests.map((r) => method(r.body))).toEqual(["SendStreamingMessage", "SubscribeToTask"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("an early answer of a non-streaming agent is polled with GetTask until the turn is over", () =>
    Effect.gen(function*() {
      let polls = 0
      const server = yield* serve((req, res) => {
        const id = rpcId(req.body)
        if (method(req.body) === "SendMessage") {
          return json(res, 200, { jsonrpc: "2.0", id, result: { task: task("TASK_STATE_SUBMITTED") } })
        }
        polls++
        const result = polls < 3 ? task("TASK_STATE_WORKING") : task("TASK_STATE_INPUT_REQUIRED", {
          status: {
            state: "TASK_STATE_INPUT_REQUIRED",
            message: {
              messageId: "m",
              role: "ROLE_AGENT",
              parts: [{ text: "Which city?" }, { data: { choices: ["Paris", "Rome"] } }]
            }
          }
        })
        json(res, 200, { jsonrpc: "2.0", id, result })
      })
      const client = yield* A2AClient.make(
        cardFor([{ url: server.url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }], { capabilities: {} })
      )
      const seen: Array<string> = []
      const outcome = yield* AgentCall.call(client, { text: "go" }, {
        pollInterval: "5 millis",
        onEvent: (event) => Effect.sync(() => "task" in event && seen.push(event.task.status.state))
      })
      expect(outcome).toEqual({
        _tag: "InputRequired",
        taskId: "t1",
        contextId: "c1",
        question: "Which city?",
        data: [{ choices: ["Paris", "Rome"] }],
        files: []
      })
      expect(server.requests.map((r) => method(r.body))).toEqual(["SendMessage", "GetTask", "GetTask", "GetTask"])
      // a snapshot is reported only when the state changed
      expect(seen).toEqual(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
