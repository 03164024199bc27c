/**
 * The benchmark's LLM agents on effect-a2a's server: `llm ...` goes to LlmAgent (effect-a2a/ai) over a scripted
 * model streaming LLM_DELTAS small text deltas, `deltas ...` to a hand-written AgentExecutor sending the same events
 * (a task, LLM_DELTAS chunks of one artifact, completed), and anything else to the trivial agent.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as LlmAgent from "../../src/ai/LlmAgent.ts"
import * as ScriptedModel from "../../src/ai/ScriptedModel.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import { ARTIFACT_ID, DELTAS, deltaText, LLM, LLM_DELTAS } from "../TrivialAgent.ts"
import { executor } from "./oursAgent.ts"

const reply = ScriptedModel.text(Array.from({ length: LLM_DELTAS }, (_, i) => deltaText(i)))

const model = ScriptedModel.layer(() => Stream.fromIterable(reply))

const handWritten = AgentExecutor.task(Effect.fnUntraced(function*(task) {
  for (let i = 0; i < LLM_DELTAS; i++) {
    yield* task.artifact({ artifactId: ARTIFACT_ID, name: "answer", parts: [{ text: deltaText(i) }] }, {
      append: i > 0,
      lastChunk: i === LLM_DELTAS - 1
    })
  }
  yield* task.complete()
}))

const startsWith = (message: AgentExecutor.RequestContext["message"], word: string) => {
  const first = message.parts[0]
  return first !== undefined && "text" in first && first.text.startsWith(`${word} `)
}

/** The trivial agent, with `llm` and `deltas` beside it. */
export const executorLayer: Layer.Layer<AgentExecutor.AgentExecutor> = Layer.effect(
  AgentExecutor.AgentExecutor,
  Effect.map(
    Effect.provide(LlmAgent.make({ conversation: "request" }), model),
    (llm) =>
      AgentExecutor.make((context) =>
        startsWith(context.message, LLM)
          ? llm.execute(context)
          : startsWith(context.message, DELTAS)
          ? handWritten.execute(context)
          : executor.execute(context)
      )
  )
)
