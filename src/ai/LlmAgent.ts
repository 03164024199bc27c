/**
 * An A2A agent from an LLM: the `LanguageModel` in context (any provider's layer, or a scripted one in tests)
 * plus instructions, a `Toolkit` whose handlers are in context, and how much history is kept, becomes an
 * `AgentExecutor`. Each message is one turn of a conversation kept per context (see `conversation`):
 *
 * - the model's text streams into one artifact per turn ("answer"): the first delta creates it, the next ones
 *   append, the last says lastChunk; if the model's final text differs from what streamed, one replacement goes out
 *   before the final status. Reasoning is not part of the answer. Files the model returns become artifacts of their
 *   own.
 * - tool calls and their results show as WORKING status messages (`toolStatus: false` turns them off); the model
 *   is called again with the results, up to `maxSteps` calls per turn.
 * - the model finishes: COMPLETED. It asks the user (the built-in `ask_user` tool, given with `askUser: true`, or
 *   a "pause" finish): INPUT_REQUIRED with the question as the status message; the next message on that task
 *   continues the same conversation. A tool made with `needsApproval`: INPUT_REQUIRED asking to approve the call;
 *   the next message approves it ("yes") or declines it (anything else, the model's reason). The provider refuses
 *   the credentials: AUTH_REQUIRED. Any other failure: FAILED, with a message that names the cause (URLs without
 *   their query, no tokens).
 * - with a `responseSchema` the answer is one data part, checked by the schema (the model is asked for
 *   structured output; tools are not offered in that mode).
 * - CancelTask interrupts the model call (a provider's HTTP request is closed with it).
 *
 * Tools read who called through the `Caller` service (declare it in the tool's `dependencies`).
 *
 * @example
 * ```ts
 * import { LlmAgent } from "effect-a2a/ai"
 * import { A2AServer, DemoAgent } from "effect-a2a/server"
 * import { Effect, Layer, Schema } from "effect"
 * import { Tool, Toolkit } from "effect/ai"
 *
 * const GetTime = Tool.make("get_time", { description: "The current time", success: Schema.String })
 * const Tools = Toolkit.make(GetTime)
 *
 * // the agent with its tool; provide a LanguageModel layer (e.g. @effect/ai-openai's) to `server`
 * const agent = LlmAgent.layer({ instructions: "You tell the time.", toolkit: Tools }).pipe(
 *   Layer.provide(Tools.toLayer({ get_time: () => Effect.sync(() => new Date().toISOString()) }))
 * )
 * const server = A2AServer.layer({ card: DemoAgent.card, executor: agent })
 * ```
 *
 * @since 0.1.0
 */
import * as AiError from "effect/ai/AiError"
import type * as Chat from "effect/ai/Chat"
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import type * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as AgentExecutor from "../server/AgentExecutor.ts"
import * as Ids from "../server/internal/Ids.ts"
import type { RequestContext } from "../server/RequestContext.ts"
import * as TaskUpdater from "../server/TaskUpdater.ts"
import * as AskUser from "./AskUser.ts"
import * as Caller from "./Caller.ts"
import { AnswerArtifact } from "./internal/AnswerArtifact.ts"
import * as Conversations from "./internal/Conversations.ts"
import * as PromptParts from "./PromptParts.ts"

export type { ConversationScope } from "./internal/Conversations.ts"

/**
 * A schema for the answer: its encoded form is a JSON object (the data part).
 *
 * @since 0.1.0
 * @category models
 */
export type ResponseSchema<A> = Schema.Codec<A, { readonly [k: string]: unknown }>

/**
 * Options of an LLM agent: the prompt, the tools, the conversations and the answer's shape.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<Tools extends Record<string, Tool.Any> = {}, A = unknown> extends PromptParts.Options {
  /** The system prompt. */
  readonly instructions?: string | undefined
  /** Tools the model may call; their handlers come from context (`toolkit.toLayer(...)`). */
  readonly toolkit?: Toolkit.Toolkit<Tools> | undefined
  /** Give the model the built-in `ask_user` tool (INPUT_REQUIRED). Default false. */
  readonly askUser?: boolean | undefined
  /** The answer as one data part checked by this schema, instead of streamed text. */
  readonly responseSchema?: ResponseSchema<A> | undefined
  /**
   * Which messages continue one conversation: those of a context (default), of a task only (`request`), or all
   * (`shared`: one conversation for every caller).
   */
  readonly conversation?: Conversations.ConversationScope | undefined
  /** Turns kept in a conversation and sent to the model (a turn: a user message and what followed). Default 20. */
  readonly maxTurns?: number | undefined
  /** How long an idle conversation is kept. Default 1 day. */
  readonly timeToLive?: Duration.Input | undefined
  /** Model calls in one turn (each tool round is one). Default 10. */
  readonly maxSteps?: number | undefined
  /** Tool calls and results as WORKING status messages. Default true. */
  readonly toolStatus?: boolean | undefined
  /** Hand the caller's bearer token to tools (`Caller.bearerToken`). Default false. */
  readonly forwardBearerToken?: boolean | undefined
  /** The answer artifact's name. Default "answer". */
  readonly artifactName?: string | undefined
}

/**
 * What an LLM agent needs from context: the model, the tools' handlers and their services (not `Caller`).
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<Tools extends Record<string, Tool.Any>> =
  | LanguageModel.LanguageModel
  | Tool.HandlersFor<Tools>
  | Exclude<Tool.HandlerServices<Tools[keyof Tools]>, Caller.Caller>

type AnyTools = Record<string, Tool.Any>

/**
 * One toolkit of the user's tools and, when asked for, `ask_user`. The bridge handles any tools alike, so it sees
 * them as `AnyTools` (a `WithHandler` is invariant in its tools, hence the widening casts).
 */
const combine = (
  user: Toolkit.WithHandler<AnyTools> | undefined,
  askUser: boolean
): Effect.Effect<Toolkit.WithHandler<AnyTools> | undefined> => {
  if (!askUser) return Effect.succeed(user)
  return Effect.map(AskUser.withHandler, (ask): Toolkit.WithHandler<AnyTools> => {
    const asking = ask as unknown as Toolkit.WithHandler<AnyTools>
    if (user === undefined) return asking
    return {
      tools: { ...user.tools, ...asking.tools },
      handle: (name, params, toolCallId, options) =>
        name === AskUser.name
          ? asking.handle(name, params, toolCallId, options)
          : user.handle(name, params, toolCallId, options)
    }
  })
}

const summaryLength = 120

/** A short one-line summary of a value for a status message. */
const summary = (value: unknown): string => {
  let text: string
  try {
    text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  text = text.replace(/\s+/g, " ")
  return text.length > summaryLength ? `${text.slice(0, summaryLength - 1)}…` : text
}

/**
 * An error message without secrets: URLs lose their query and fragment, bearer tokens and API keys go.
 *
 * @since 0.1.0
 * @category utils
 */
export const redact = (message: string): string =>
  message
    .replace(/\b(https?:\/\/[^\s?#)"']+)[?#][^\s)"']*/g, "$1")
    .replace(/\b(bearer|basic)\s+[\w\-.~+/=]+/gi, "$1 [redacted]")
    .replace(/\b(sk|pk|rk|xai|gsk|key)[-_][\w-]{8,}/gi, "[redacted]")
    .replace(/\bAIza[\w-]{20,}/g, "[redacted]")

/** Why the turn failed, for the status message. */
const failureMessage = (error: unknown): string => {
  if (AiError.isAiError(error)) return redact(`The model call failed: ${error.reason._tag}: ${error.reason.message}`)
  if (Predicate.hasProperty(error, "_tag") && Predicate.hasProperty(error, "message")) {
    return redact(`The agent failed: ${String(error._tag)}: ${String(error.message)}`)
  }
  return redact(`The agent failed: ${error instanceof Error ? error.message : summary(error)}`)
}

/** Text the model wrote in these messages. */
const textOf = (messages: ReadonlyArray<Prompt.Message>): string => {
  let text = ""
  for (const message of messages) {
    if (message.role !== "assistant") continue
    for (const part of message.content) if (part.type === "text") text += part.text
  }
  return text
}

/** A tool call the model made that waits for the user's approval (a tool made with `needsApproval`). */
interface Approval {
  readonly approvalId: string
  readonly name: string
  readonly params: unknown
}

/** The state of one turn as the model's parts come in. */
interface Step {
  toolCalls: number
  question: string | undefined
  paused: boolean
  /** The turn's tool calls by id, for the approvals that name them. */
  readonly calls: Map<string, { readonly name: string; readonly params: unknown }>
  readonly approvals: Array<Approval>
}

/** Approval requests in the conversation that no response answers yet. */
const pendingApprovals = (history: Prompt.Prompt): Array<Approval> => {
  const calls = new Map<string, { readonly name: string; readonly params: unknown }>()
  const requested: Array<{ readonly approvalId: string; readonly toolCallId: string }> = []
  const answered = new Set<string>()
  for (const message of history.content) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-call") calls.set(part.id, part)
        else if (part.type === "tool-approval-request") requested.push(part)
      }
    } else if (message.role === "tool") {
      for (const part of message.content) if (part.type === "tool-approval-response") answered.add(part.approvalId)
    }
  }
  return requested.filter((r) => !answered.has(r.approvalId)).map((r) => ({
    approvalId: r.approvalId,
    name: calls.get(r.toolCallId)?.name ?? "a tool",
    params: calls.get(r.toolCallId)?.params
  }))
}

/** Whether the user's answer to an approval question says yes. */
const approves = (text: string): boolean => /^\s*(yes|y|ok|okay|approve|approved|go ahead|sure)\b/i.test(text)

/** The question asking the user to approve these calls. */
const approvalQuestion = (approvals: ReadonlyArray<Approval>): string =>
  `Approve ${approvals.map((a) => `${a.name} ${summary(a.params)}`).join("; ")}? Answer yes to run ${
    approvals.length === 1 ? "it" : "them"
  }, or no.`

/**
 * An LLM agent's executor, built from the `LanguageModel` and tool handlers in context. Conversations are kept
 * with the `BackingPersistence` in context if there is one (`DurableServer` provides its database), else in memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Tools extends Record<string, Tool.Any> = {}, A = unknown>(
  options: Options<Tools, A>
): Effect.Effect<AgentExecutor.AgentExecutor["Service"], never, Requirements<Tools> | Scope.Scope> =>
  Effect.gen(function*() {
    const services = yield* Effect.context<Requirements<Tools>>()
    const userToolkit = options.toolkit === undefined
      ? undefined
      : (yield* options.toolkit) as unknown as Toolkit.WithHandler<AnyTools>
    const toolkit = yield* combine(userToolkit, options.askUser === true)
    const conversations = yield* Conversations.make({
      scope: options.conversation ?? "context",
      maxTurns: Math.max(1, options.maxTurns ?? 20),
      timeToLive: options.timeToLive === undefined
        ? Conversations.defaultTimeToLive
        : Duration.fromInputUnsafe(options.timeToLive),
      instructions: options.instructions
    })
    const maxSteps = Math.max(1, options.maxSteps ?? 10)
    const toolStatus = options.toolStatus ?? true
    const forwardToken = options.forwardBearerToken ?? false
    const artifactName = options.artifactName ?? "answer"
    const schema = options.responseSchema

    /** One model call, streamed: its parts become artifact chunks and status messages. */
    const streamStep = (
      chat: Chat.Persisted,
      prompt: Prompt.Prompt,
      task: TaskUpdater.TaskUpdater,
      answer: AnswerArtifact,
      step: Step
    ) => {
      const onPart = (part: Response.StreamPart<AnyTools>): Effect.Effect<void, unknown> => {
        switch (part.type) {
          case "text-delta":
            return answer.delta(part.delta)
          case "tool-call": {
            step.calls.set(part.id, { name: part.name, params: part.params })
            if (part.name === AskUser.name) {
              step.question = AskUser.questionOf(part.params) ?? "The agent needs more input."
              return answer.flush()
            }
            if (part.providerExecuted !== true) step.toolCalls++
            return toolStatus
              ? Effect.andThen(answer.flush(), task.working(`Calling ${part.name}: ${summary(part.params)}`))
              : answer.flush()
          }
          case "tool-result":
            return part.name === AskUser.name || part.preliminary === true || !toolStatus
              ? Effect.void
              : task.working(`${part.name} ${part.isFailure ? "failed" : "returned"}: ${summary(part.encodedResult)}`)
          case "file":
            return Effect.andThen(
              answer.flush(),
              task.artifact({ name: "file", parts: [PromptParts.filePart(part)] })
            )
          case "tool-approval-request": {
            const call = step.calls.get(part.toolCallId)
            step.approvals.push({ approvalId: part.approvalId, name: call?.name ?? "a tool", params: call?.params })
            return Effect.void
          }
          case "finish":
            if (part.reason === "pause") step.paused = true
            return Effect.void
          case "error":
            return Effect.fail(part.error)
          default:
            return Effect.void
        }
      }
      const parts = toolkit === undefined
        ? chat.streamText({ prompt })
        : chat.streamText({ prompt, toolkit })
      return Stream.runForEach(parts as Stream.Stream<Response.StreamPart<AnyTools>, unknown>, onPart)
    }

    /**
     * A turn of streamed text, with tool rounds, ending COMPLETED or INPUT_REQUIRED. A turn answering a request for
     * approval gives the model the user's yes or no (and a no's words as its reason), not a new user message.
     */
    const textTurn = Effect.fnUntraced(function*(
      chat: Chat.Persisted,
      userMessage: Prompt.Prompt,
      userText: string,
      task: TaskUpdater.TaskUpdater,
      answer: AnswerArtifact
    ) {
      const start = yield* Ref.get(chat.history)
      const before = start.content.length
      const waiting = pendingApprovals(start)
      const approved = approves(userText)
      const first = waiting.length === 0 ? userMessage : Prompt.fromMessages([Prompt.toolMessage({
        content: waiting.map((a) =>
          Prompt.toolApprovalResponsePart({
            approvalId: a.approvalId,
            approved,
            reason: approved ? undefined : userText
          })
        )
      })])
      const step: Step = { toolCalls: 0, question: undefined, paused: false, calls: new Map(), approvals: [] }
      for (let n = 0;; n++) {
        if (n === maxSteps) {
          return yield* task.fail(`The model was still calling tools after ${maxSteps} calls; stopped.`)
        }
        step.toolCalls = 0
        yield* streamStep(chat, n === 0 ? first : Prompt.empty, task, answer, step)
        if (step.question !== undefined || step.paused || step.approvals.length > 0 || step.toolCalls === 0) break
      }
      const history = yield* Ref.get(chat.history)
      yield* answer.close(textOf(history.content.slice(before)))
      if (step.question !== undefined) return yield* task.requireInput(step.question)
      if (step.approvals.length > 0) return yield* task.requireInput(approvalQuestion(step.approvals))
      if (step.paused) return yield* task.requireInput("The model paused; send a message to continue.")
      return yield* task.complete()
    })

    /** A turn answered with one data part checked by the schema. */
    const dataTurn = Effect.fnUntraced(function*(
      chat: Chat.Persisted,
      userMessage: Prompt.Prompt,
      task: TaskUpdater.TaskUpdater,
      schema: ResponseSchema<A>
    ) {
      const response = yield* chat.generateObject({ prompt: userMessage, schema })
      const data = yield* Schema.encodeEffect(schema)(response.value)
      yield* task.artifact({ name: artifactName, parts: [{ data }] })
      return yield* task.complete()
    })

    const turn = (task: TaskUpdater.TaskUpdater, context: RequestContext, userMessage: Prompt.Prompt) =>
      conversations.withChat(context, (chat) =>
        schema === undefined
          // each turn's answer is an artifact of its own (a continued task keeps the earlier ones)
          ? Effect.flatMap(Ids.randomId, (artifactId) =>
            textTurn(
              chat,
              userMessage,
              AgentExecutor.textOf(context.message),
              task,
              new AnswerArtifact(task, artifactId, artifactName)
            ))
          : dataTurn(chat, userMessage, task, schema)).pipe(
          Effect.catchIf(
            (error): error is AiError.AiError =>
              AiError.isAiError(error) && error.reason._tag === "AuthenticationError",
            (error) =>
              task.requireAuth(
                `The model provider refused the credentials (${
                  error.reason._tag === "AuthenticationError" ? error.reason.kind : error.reason._tag
                }).`
              )
          ),
          Effect.catch((error) => task.fail(failureMessage(error))),
          Effect.provideService(Caller.Caller, Caller.fromRequest(context, forwardToken)),
          // the services the agent was built with, under the request's own (its span, log annotations)
          (work) =>
            Effect.flatMap(
              Effect.context<never>(),
              (current) => Effect.provideContext(work, Context.merge(services, current))
            )
        )

    // Restartable: its conversation is stored, so a turn lost with its node runs again from the start elsewhere.
    return AgentExecutor.make((context) =>
      Stream.unwrap(Effect.map(
        PromptParts.userMessage(context.message, options),
        (userMessage) => TaskUpdater.stream(context, (task) => turn(task, context, userMessage))
      )), { restartable: true })
  })

/**
 * The layer of `make`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <Tools extends Record<string, Tool.Any> = {}, A = unknown>(
  options: Options<Tools, A>
): Layer.Layer<AgentExecutor.AgentExecutor, never, Requirements<Tools>> =>
  Layer.effect(AgentExecutor.AgentExecutor, make(options))
