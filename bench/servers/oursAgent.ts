/**
/**
 * The trivial agent as effect-a2a runs it in the benchmark, written the way a user would (AgentExecutor.make + the
 * TaskUpdater helpers), and its card: shared by the Node server (ours.ts), the Bun one (bun.ts) and the in-process
 * runs (inprocess.ts).
 */
import * as Effect from "effect/Effect"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import { agentCardJson, ARTIFACT_ID, behaviourOf, chunkText, STREAM_CHUNKS } from "../TrivialAgent.ts"

const echo = AgentExecutor.replyWithText((text) => text)

// Written with Effect.fnUntraced, as AgentExecutor's documentation advises: its generator function is made once,
// where an Effect.gen inside the callback makes one per task, which V8 keeps alive through young-generation
// collections with all the task's objects (bench/notes/2026-11-26-gc-survivors.md).
const oneArtifact = AgentExecutor.task(Effect.fnUntraced(function*(task, context) {
  yield* task.artifact({ artifactId: ARTIFACT_ID, parts: [{ text: AgentExecutor.textOf(context.message) }] }, {
    lastChunk: true
  })
  yield* task.complete()
}))

const chunks = AgentExecutor.task(Effect.fnUntraced(function*(task) {
  for (let i = 0; i < STREAM_CHUNKS; i++) {
    yield* task.artifact({ artifactId: ARTIFACT_ID, parts: [{ text: chunkText(i) }] }, {
      append: i > 0,
      lastChunk: i === STREAM_CHUNKS - 1
    })
  }
  yield* task.complete()
}))

const waitForInput = AgentExecutor.task((task) => task.status("TASK_STATE_INPUT_REQUIRED"))

// CancelTask interrupts the wait.
const holdUntilCanceled = AgentExecutor.task((task) => Effect.andThen(task.working(), Effect.never))

export const executor = AgentExecutor.make((context) => {
  switch (behaviourOf(AgentExecutor.textOf(context.message))) {
    case "echo":
      return echo.execute(context)
    case "task":
      return oneArtifact.execute(context)
    case "stream":
      return chunks.execute(context)
    case "wait":
      return waitForInput.execute(context)
    case "hold":
      return holdUntilCanceled.execute(context)
  }
})

const { supportedInterfaces: _, ...rest } = agentCardJson("")
export const card = rest
