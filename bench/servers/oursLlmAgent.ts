/**
 * The benchmark's LLM agent: LlmAgent (effect-a2a/ai) over a scripted model streaming LLM_DELTAS small text deltas,
 * its conversations kept per task in memory. Loaded on the first `llm` stream (bench/servers/oursLlm.ts).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as LlmAgent from "../../src/ai/LlmAgent.ts"
import * as ScriptedModel from "../../src/ai/ScriptedModel.ts"
import { AgentExecutor } from "../../src/server/AgentExecutor.ts"
import { deltaText, LLM_DELTAS } from "../TrivialAgent.ts"

const reply = ScriptedModel.text(Array.from({ length: LLM_DELTAS }, (_, i) => deltaText(i)))

const model = ScriptedModel.layer(() => Stream.fromIterable(reply))

/** The agent, built in a scope that lives as long as the server process. */
export const build: Effect.Effect<AgentExecutor["Service"]> = Layer.build(
  LlmAgent.layer({ conversation: "request" }).pipe(Layer.provide(model))
).pipe(
  Effect.map((context) => Context.get(context, AgentExecutor)),
  Effect.provideService(Scope.Scope, Scope.makeUnsafe())
)
