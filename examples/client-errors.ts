// Typed errors against any A2A agent (pass its URL; default the echo agent): a task that does not exist fails with
// TaskNotFound, caught by its tag; an agent that cannot be reached fails with A2ATransportError.
import { Console, Effect } from "effect"
import { A2AClient } from "effect-a2a/client"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const url = process.argv[2] ?? "http://127.0.0.1:8080"

const program = Effect.gen(function*() {
  const client = yield* A2AClient.resolve(url, { timeout: "10 seconds" })
  const answer = yield* client.getTask({ id: "no-such-task" }).pipe(
    Effect.map((task) => `found ${task.id}: ${task.status.state}`),
    Effect.catchTag("TaskNotFound", (error) => Effect.succeed(`no such task (${error._tag})`))
  )
  yield* Console.log(answer)
})

program.pipe(
  Effect.catchTag("A2ATransportError", (error) => Console.log(`unreachable: ${error.message}`)),
  Effect.provide(FetchHttpClient.layer),
  Effect.runPromise
)
