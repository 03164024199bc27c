/**
 * The benchmark's LLM agents on effect-a2a's server: `llm ...` goes to LlmAgent (effect-a2a/ai) over a scripted
 * model streaming LLM_DELTAS small text deltas (bench/servers/oursLlmAgent.ts), `deltas ...` to a hand-written
 * AgentExecutor sending the same events (a task, LLM_DELTAS chunks of one artifact, completed), and anything else
 * to the trivial agent. effect/ai is loaded with the first `llm` stream, so the server every other scenario
 * measures (and its RSS after start) stays the one it was.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import { ARTIFACT_ID, DELTAS, deltaText, LLM, LLM_DELTAS } from "../TrivialAgent.ts"
import { executor as trivial } from "./oursAgent.ts"

const handWritten = AgentExecutor.task(Effect.fnUntraced(function*(task) {
  for (let i = 0; i < LLM_DELTAS; i++) {
    yield* task.artifact({ artifactId: ARTIFACT_ID, name: "answer", parts: [{ text: deltaText(i) }] }, {
      append: i > 0,
      lastChunk: i === LLM_DELTAS - 1
    })
  }
  yield* task.complete()
}))

let llm: Promise<AgentExecutor.AgentExecutor["Service"]> | undefined
// Our own module: a failure to load or build it is a defect.
const loadLlm = () => (llm ??= import("./oursLlmAgent.ts").then((m) => Effect.runPromise(m.build)))

const startsWith = (message: AgentExecutor.RequestContext["message"], word: string) => {
  const first = message.parts[0]
  return first !== undefined && "text" in first && first.text.startsWith(`${word} `)
}

/** The trivial agent, with `llm` and `deltas` beside it. */
export const executor = AgentExecutor.make((context) =>
  startsWith(context.message, LLM)
    ? Stream.unwrap(Effect.map(Effect.promise(loadLlm), (agent) => agent.execute(context)))
    : startsWith(context.message, DELTAS)
    ? handWritten.execute(context)
    : trivial.execute(context)
)
