/**
 * `effect-a2a serve --grpc-port`: the command serves gRPC beside HTTP, the card lists it, a client (ours, and
 * `effect-a2a send`, `get`, `tasks` and `cancel` with `--binding GRPC`) reaches the agent through it, SIGTERM stops both; a gRPC port already taken is a one-line start-up failure.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { execFile } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { textOf, userText } from "../../src/client/Messages.ts"
import * as GrpcTransport from "../../src/grpc/GrpcTransport.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

/** The CLI run to its end: exit code and output. */
const runCli = (args: ReadonlyArray<string>) =>
  Effect.promise(() =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr })
      )
    })
  )

describe("effect-a2a serve --grpc-port", () => {
  it.live("serves gRPC beside HTTP, listed in the card; SIGTERM stops both", () =>
    Effect.gen(function*() {
      const served = yield* ServeProcess.start({}, ["--memory", "--grpc-port", "0"])
      const card = yield* Effect.promise(() =>
        fetch(`${served.base}/.well-known/agent-card.json`).then((r) => r.json() as Promise<v1.AgentCard>)
      )
      const grpc = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")
      assert.match(grpc?.url ?? "", /^(127\.0\.0\.1|localhost):\d+$/)
      assert.match(served.output(), /A2A gRPC server listening on /)

      const client = yield* A2AClient.resolve(served.base, { bindings: ["GRPC"] })
      assert.strictEqual(client.interface.protocolBinding, "GRPC")
      const reply = yield* client.sendMessage({ message: userText("quick 5") })
      assert.isTrue("task" in reply && reply.task.status.state === "TASK_STATE_COMPLETED")
      assert.strictEqual(
        "task" in reply && reply.task.status.message ? textOf(reply.task.status.message.parts) : "",
        "done"
      )

      // the CLI's client, asked for gRPC: send, and the task commands sharing its --binding
      const cli = yield* runCli(["send", served.base, "quick 5", "--binding", "GRPC"])
      assert.strictEqual(cli.code, 0)
      assert.match(cli.stdout, /completed/)
      const taskId = "task" in reply ? reply.task.id : ""
      const got = yield* runCli(["get", served.base, taskId, "--binding", "GRPC", "--history-length", "1"])
      assert.strictEqual(got.code, 0, got.stderr)
      assert.match(got.stdout, new RegExp(`^Task ${taskId} \\(context [^)]+\\): completed done`))
      const listed = yield* runCli(["tasks", served.base, "--binding", "GRPC"])
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.include(listed.stdout, `${taskId}  completed`)
      const missing = yield* runCli(["cancel", served.base, "no-such-task", "--binding", "GRPC"])
      assert.notStrictEqual(missing.code, 0)
      assert.include(missing.stderr, "not found")

      served.child.kill("SIGTERM")
      const code = yield* Effect.promise(() => served.exited)
      assert.strictEqual(code, 0)
      const after = yield* Effect.flip(client.getTask({ id: "t" }))
      assert.strictEqual(after._tag, "A2ATransportError")
    }).pipe(
      Effect.scoped,
      Effect.provide(Layer.mergeAll(FetchHttpClient.layer, GrpcTransport.layer))
    ), 60_000)

  it.live("a gRPC port already in use: one line naming it, exit 1", () =>
    Effect.gen(function*() {
      const blocker = yield* Effect.acquireRelease(
        Effect.callback<{ readonly close: () => void; readonly port: number }>((resume) => {
          const server = createServer()
          server.listen(0, "127.0.0.1", () => {
            const address = server.address()
            resume(Effect.succeed({
              close: () => server.close(),
              port: typeof address === "object" && address !== null ? address.port : 0
            }))
          })
        }),
        (b) => Effect.sync(() => b.close())
      )
      const failed = yield* ServeProcess.start({}, ["--memory", "--grpc-port", String(blocker.port)]).pipe(
        Effect.exit
      )
      assert.strictEqual(failed._tag, "Failure")
      const message = String(failed._tag === "Failure" ? failed.cause : "")
      assert.match(
        message,
        new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${blocker.port}: the address is already in use`)
      )
    }).pipe(Effect.scoped), 60_000)
})
