// Talks to any A2A agent: one message, then a streamed one (pass the agent's URL; default the echo agent).
import { Console, Effect, Stream } from "effect"
import { A2AClient, Messages } from "effect-a2a/client"
import type { StreamResponse } from "effect-a2a/protocol/v1"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const url = process.argv[2] ?? "http://127.0.0.1:8080"

// One line per event: a reply message, a whole task, or an update of a task's status or artifacts.
const describe = (event: StreamResponse): string => {
  if ("message" in event) return Messages.textOf(event.message.parts)
  if ("task" in event) return `task ${event.task.id}: ${event.task.status.state}`
  if ("statusUpdate" in event) return `status: ${event.statusUpdate.status.state}`
  return `artifact: ${Messages.textOf(event.artifactUpdate.artifact.parts)}`
}

const program = Effect.gen(function*() {
  const client = yield* A2AClient.resolve(url)
  const reply = yield* client.sendMessage({ message: Messages.userText("hello") })
  yield* Console.log(describe(reply))
  // every event until the task ends (or the one reply message)
  yield* client.sendStreamingMessage({ message: Messages.userText("task write a report") }).pipe(
    Stream.runForEach((event) => Console.log(describe(event)))
  )
})

program.pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise)
