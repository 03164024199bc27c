/**
 * The built-in "ask the user" tool. An LLM agent given it (`LlmAgent` option `askUser: true`) can ask the A2A
 * client a question: the turn ends INPUT_REQUIRED with the question as the status message, and the client's next
 * message on that task is the answer, in the same conversation. The tool's result, which the model sees with its
 * call, only says that the question went out; the answer follows as the next user message.
 *
 * @example
 * ```ts
 * import { LlmAgent } from "effect-a2a/ai"
 *
 * // an agent that may ask the client for what it lacks
 * const agent = LlmAgent.layer({ instructions: "Ask for the city if you do not know it.", askUser: true })
 * ```
 *
 * @since 0.1.0
 */
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The tool's name, as the model sees it.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = "ask_user"

/**
 * The `ask_user` tool: the model asks the user a question, and the task waits for the answer (input-required).
 *
 * @since 0.1.0
 * @category tools
 */
export const AskUser = Tool.make(name, {
  description: "Ask the user a question when you need information or a decision only they can give. " +
    "Their answer comes in their next message.",
  parameters: Schema.Struct({
    question: Schema.String.annotate({ description: "The question, as the user should read it" })
  }),
  success: Schema.String
})

/**
 * A toolkit holding only the `ask_user` tool.
 *
 * @since 0.1.0
 * @category tools
 */
export const toolkit = Toolkit.make(AskUser)

/**
 * What the model reads as the tool's result.
 *
 * @since 0.1.0
 * @category constants
 */
export const delivered = "The question was sent to the user. Their answer will be their next message."

/**
 * The tool with its handler.
 *
 * @since 0.1.0
 * @category tools
 */
export const withHandler: Effect.Effect<Toolkit.WithHandler<Toolkit.Tools<typeof toolkit>>> = toolkit.pipe(
  Effect.provide(toolkit.toLayer({ [name]: () => Effect.succeed(delivered) }))
)

/**
 * The question of an `ask_user` call's parameters, if they hold one.
 *
 * @since 0.1.0
 * @category utils
 */
export const questionOf = (params: unknown): string | undefined =>
  typeof params === "object" && params !== null && "question" in params && typeof params.question === "string"
    ? params.question
    : undefined
