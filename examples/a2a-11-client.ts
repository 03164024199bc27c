// The A2A 1.1 draft from the client's side, against a server that turned it on (`effect-a2a serve --protocol-draft
// 1.1`; pass its URL): wait for a task to change with one held request, and send only if no one else changed it.
import { Console, Effect } from "effect"
import { A2AClient, Generations, Messages } from "effect-a2a/client"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const url = process.argv[2] ?? "http://127.0.0.1:8080"

const program = Effect.gen(function*() {
  const client = yield* A2AClient.resolve(url)
  const sent = yield* client.sendMessage({
    message: Messages.userText("task write a report"),
    configuration: { returnImmediately: true }
  })
  if (!("task" in sent)) return yield* Console.log("the agent answered with a message")
  let task = sent.task
  // undefined: the server keeps no generations (a 1.0 server, or the draft off)
  let generation = Generations.generationOf(task)
  if (generation === undefined) return yield* Console.log("the server does not keep task generations")
  // each call is one request the server holds until the task moves on (no polling loop)
  while (!A2AClient.isTerminal(task.status.state)) {
    task = yield* Generations.waitForChange(client, task.id, generation)
    generation = Generations.generationOf(task) ?? generation
    yield* Console.log(`generation ${generation}: ${task.status.state}`)
  }
  // a conditional send: refused with TaskGenerationMismatch if the task changed since we read it
  const next = yield* client.sendMessage({
    message: Messages.userText("thanks", { taskId: task.id }),
    configuration: { ifGenerationMatch: generation }
  }).pipe(Effect.catchTag("TaskGenerationMismatch", (error) => Effect.succeed(error.message)))
  yield* Console.log(typeof next === "string" ? next : "sent")
})

program.pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise)
