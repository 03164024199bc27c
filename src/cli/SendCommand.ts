/**
 * `effect-a2a send <url> "text" [--stream] [--task-id ID] [--context-id ID]`: send a text message to an
 * agent and show the reply (its text, or the task's id, state and artifacts). With `--stream`, events are
 * shown as they arrive: status changes on their own lines, artifact text appended live. Exits non-zero on
 * errors and when the task ends failed or rejected. The arguments and flags are in ClientCommands, which loads
 * this module when `send` runs.
 */
import * as CliError from "effect/cli/CliError"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as A2AClient from "../client/A2AClient.ts"
import type * as Credentials from "../client/Credentials.ts"
import { textOf, userText } from "../client/Messages.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import { isFinal } from "../protocol/TaskStates.ts"
import * as BindingFlag from "./BindingFlag.ts"
import { userError } from "./CardCommand.ts"
import * as ClientLayer from "./ClientLayer.ts"
import { REPLY_TIMEOUT_SECONDS } from "./Timeouts.ts"

/**
 * "TASK_STATE_INPUT_REQUIRED" -> "input-required".
 *
 * @since 0.1.0
 * @category utils
 */
export const stateLabel = (state: v1.TaskState): string =>
  state.replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-")

/**
 * Text parts as they are; other parts as a short placeholder.
 *
 * @since 0.1.0
 * @category utils
 */
export const partsText = (parts: ReadonlyArray<v1.Part>): string =>
  parts.map((part) =>
    "text" in part
      ? part.text
      : "url" in part
      ? `[file ${part.filename ?? part.url}]`
      : "raw" in part
      ? `[file ${part.filename ?? "(inline)"}${part.mediaType !== undefined ? `, ${part.mediaType}` : ""}]`
      : `[data ${JSON.stringify(part.data)}]`
  ).join("")

const statusText = (status: v1.TaskStatus): string =>
  status.message !== undefined ? ` ${partsText(status.message.parts)}` : ""

/**
 * The reply of a non-streaming send.
 *
 * @since 0.1.0
 * @category utils
 */
export const renderResponse = (response: v1.SendMessageResponse): string => {
  if ("message" in response) return partsText(response.message.parts)
  const { task } = response
  const lines = [
    `Task ${task.id}${task.contextId !== undefined ? ` (context ${task.contextId})` : ""}: ${
      stateLabel(task.status.state)
    }${statusText(task.status)}`
  ]
  for (const artifact of task.artifacts ?? []) {
    lines.push(`Artifact ${artifact.name ?? artifact.artifactId}:`, partsText(artifact.parts))
  }
  return lines.join("\n")
}

interface RenderState {
  /** The last thing written did not end with a newline (an artifact is being appended to). */
  readonly midLine: boolean
}

/**
 * One streamed event as terminal output; artifact chunks continue the current line.
 *
 * @since 0.1.0
 * @category utils
 */
export const renderEvent = (state: RenderState, event: v1.StreamResponse): readonly [RenderState, string] => {
  const nl = state.midLine ? "\n" : ""
  if ("task" in event) {
    const { task } = event
    const context = task.contextId !== undefined ? ` (context ${task.contextId})` : ""
    return [
      { midLine: false },
      `${nl}Task ${task.id}${context}: ${stateLabel(task.status.state)}${statusText(task.status)}\n`
    ]
  }
  if ("statusUpdate" in event) {
    const { status } = event.statusUpdate
    return [{ midLine: false }, `${nl}[${stateLabel(status.state)}]${statusText(status)}\n`]
  }
  if ("artifactUpdate" in event) {
    const { append, artifact, lastChunk } = event.artifactUpdate
    const text = partsText(artifact.parts)
    const head = append === true ? "" : `${nl}Artifact ${artifact.name ?? artifact.artifactId}: `
    const out = `${head}${text}${lastChunk === true && !text.endsWith("\n") ? "\n" : ""}`
    return [{ midLine: out === "" ? state.midLine : !out.endsWith("\n") }, out]
  }
  return [{ midLine: false }, `${nl}${textOf(event.message.parts)}\n`]
}

/**
 * The last task state seen in a response or event, if any.
 *
 * @since 0.1.0
 * @category utils
 */
export const stateOf = (event: v1.StreamResponse | v1.SendMessageResponse): v1.TaskState | undefined =>
  "task" in event
    ? event.task.status.state
    : "statusUpdate" in event
    ? event.statusUpdate.status.state
    : undefined

const failedStates: ReadonlyArray<v1.TaskState> = ["TASK_STATE_FAILED", "TASK_STATE_REJECTED"]

/**
 * Credentials for `--token`: every bearer-style scheme the card declares (HTTP Bearer, OAuth 2, OpenID).
 *
 * @since 0.1.0
 * @category utils
 */
export const tokenCredentials = (token: Redacted.Redacted<string>) => (card: v1.AgentCard): Credentials.Credentials =>
  Object.fromEntries(
    Object.entries(card.securitySchemes ?? {}).flatMap(([name, scheme]) =>
      ("httpAuthSecurityScheme" in scheme && scheme.httpAuthSecurityScheme.scheme.toLowerCase() === "bearer") ||
        "oauth2SecurityScheme" in scheme || "openIdConnectSecurityScheme" in scheme
        ? [[name, token] as const]
        : []
    )
  )

/**
 * Options of `send`: streaming, the task and context, the token and the binding.
 *
 * @since 0.1.0
 * @category models
 */
export interface SendOptions {
  readonly stream: boolean
  readonly taskId: Option.Option<string>
  readonly contextId: Option.Option<string>
  readonly binding: Option.Option<string>
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** Seconds to wait for the reply (for a stream: for it to open); absent means the default. */
  readonly timeout?: number | undefined
}

/**
 * Sends a text message to an agent and prints the answer, for `effect-a2a send`.
 *
 * @since 0.1.0
 * @category commands
 */
export const send = (url: string, text: string, options: SendOptions) =>
  Effect.provide(sendWith(url, text, options), ClientLayer.forBinding(options.binding))

const sendWith = (url: string, text: string, options: SendOptions) =>
  Effect.gen(function*() {
    const client = yield* A2AClient.resolve(url, {
      timeout: Duration.seconds(options.timeout ?? REPLY_TIMEOUT_SECONDS),
      ...BindingFlag.resolveOptions(options.binding),
      ...(Option.isSome(options.token) ? { credentials: tokenCredentials(options.token.value) } : {})
    }).pipe(Effect.mapError(userError))
    const message = userText(text, {
      taskId: Option.getOrUndefined(options.taskId),
      contextId: Option.getOrUndefined(options.contextId)
    })
    let stream = options.stream
    if (stream && client.card.capabilities.streaming !== true) {
      yield* Console.error(`${client.card.name} does not declare streaming; sending without --stream.`)
      stream = false
    }
    let finalState: v1.TaskState | undefined
    if (stream) {
      const stdio = yield* Stdio.Stdio
      yield* client.sendStreamingMessage({ message }).pipe(
        Stream.tap((event) => Effect.sync(() => (finalState = stateOf(event) ?? finalState))),
        Stream.mapAccum(
          (): RenderState => ({ midLine: false }),
          (state, event) => {
            const [next, out] = renderEvent(state, event)
            return [next, out === "" ? [] : [out]] as const
          },
          { onHalt: (state) => (state.midLine ? ["\n"] : []) }
        ),
        Stream.mapError(userError),
        Stream.run(stdio.stdout())
      )
      // A stream ends at a terminal or interrupted state (spec 3.1.2); one that stops before has lost the task.
      if (finalState !== undefined && !isFinal(finalState)) {
        return yield* new CliError.UserError({
          cause: finalState,
          userMessage: `The stream ended while the task was still ${stateLabel(finalState)}; it may still be running ` +
            "(follow it with --task-id, or ask the agent again)."
        })
      }
    } else {
      const response = yield* client.sendMessage({ message }).pipe(Effect.mapError(userError))
      finalState = stateOf(response)
      yield* Console.log(renderResponse(response))
    }
    if (finalState !== undefined && failedStates.includes(finalState)) {
      return yield* new CliError.UserError({
        cause: finalState,
        userMessage: `The task ended ${stateLabel(finalState)}.`
      })
    }
  })
