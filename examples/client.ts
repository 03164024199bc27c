/** The README's client: `node examples/client.ts [url]` against a running agent (e.g. `npm start`). */
import { Effect, Stream } from "effect"
import { A2AClient, Messages } from "effect-a2a/client"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const url = process.argv[2] ?? "http://127.0.0.1:8080"

const program = Effect.gen(function*() {
  const client = yield* A2AClient.resolve(url)
  const reply = yield* client.sendMessage({ message: Messages.userText("hello") })
  yield* Effect.log(reply)
  yield* client.sendStreamingMessage({ message: Messages.userText("task write a report") }).pipe(
    Stream.runForEach((event) => Effect.log(event)) // ends at a terminal state
  )
})

program.pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise)
