/**
 * `effect-a2a get <url> <task-id>` and `effect-a2a cancel <url> <task-id>`: one task of an agent, as `send` shows
 * tasks (id, context, state, status message, artifacts). Bounded by `--timeout`; A2A errors (TaskNotFound,
 * TaskNotCancelable, ...) are one line and a non-zero exit.
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as A2AClient from "../client/A2AClient.ts"
import * as A2A03 from "../v0_3/A2A03.ts"
import { userError } from "./CardCommand.ts"
import { DEFAULT_TIMEOUT_SECONDS, renderResponse, tokenCredentials } from "./SendCommand.ts"

export interface TaskOptions {
  readonly token: Option.Option<Redacted.Redacted<string>>
  readonly timeout?: number | undefined
  /** GetTask only: at most this many messages of the history. */
  readonly historyLength?: number | undefined
}

const clientFor = (url: string, options: TaskOptions) =>
  A2AClient.resolve(url, {
    timeout: Duration.seconds(options.timeout ?? DEFAULT_TIMEOUT_SECONDS),
    ...(Option.isSome(options.token) ? { credentials: tokenCredentials(options.token.value) } : {})
  }).pipe(Effect.mapError(userError))

/** Prints the task as it is now. */
export const getTask = (url: string, taskId: string, options: TaskOptions) =>
  Effect.gen(function*() {
    const client = yield* clientFor(url, options)
    const task = yield* client.getTask({
      id: taskId,
      ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {})
    }).pipe(Effect.mapError(userError))
    yield* Console.log(renderResponse({ task }))
  }).pipe(Effect.provide(A2A03.client))

/** Cancels the task and prints it as the agent answered. */
export const cancelTask = (url: string, taskId: string, options: TaskOptions) =>
  Effect.gen(function*() {
    const client = yield* clientFor(url, options)
    const task = yield* client.cancelTask({ id: taskId }).pipe(Effect.mapError(userError))
    yield* Console.log(renderResponse({ task }))
  }).pipe(Effect.provide(A2A03.client))

const common = {
  url: Argument.String("url").pipe(Argument.withDescription("Agent base URL or card URL")),
  taskId: Argument.String("task-id").pipe(Argument.withDescription("The task's id")),
  token: Flag.Redacted("token").pipe(
    Flag.withDescription("Bearer token for the agent's HTTP Bearer / OAuth 2 / OpenID Connect schemes"),
    Flag.optional
  ),
  timeout: Flag.Finite("timeout").pipe(
    Flag.withDescription(`Seconds to wait for the agent; default ${DEFAULT_TIMEOUT_SECONDS}`),
    Flag.filter((n) => n > 0, (n) => `--timeout must be a positive number of seconds, got ${n}`),
    Flag.optional
  )
}

export const getCommand = Command.make(
  "get",
  {
    ...common,
    historyLength: Flag.Int("history-length").pipe(
      Flag.withDescription("Show at most this many messages of the task's history"),
      Flag.filter((n) => n >= 0, (n) => `--history-length must be 0 or more, got ${n}`),
      Flag.optional
    )
  },
  ({ historyLength, taskId, timeout, token, url }) =>
    getTask(url, taskId, {
      token,
      timeout: Option.getOrUndefined(timeout),
      historyLength: Option.getOrUndefined(historyLength)
    })
).pipe(
  Command.withDescription("Show one task: its state, status message and artifacts"),
  Command.withExamples([{ command: "effect-a2a get http://localhost:8080 7f3c", description: "Show task 7f3c" }]),
  Command.provide(FetchHttpClient.layer)
)

export const cancelCommand = Command.make(
  "cancel",
  common,
  ({ taskId, timeout, token, url }) => cancelTask(url, taskId, { token, timeout: Option.getOrUndefined(timeout) })
).pipe(
  Command.withDescription("Cancel a task and show it as the agent answered"),
  Command.withExamples([{ command: "effect-a2a cancel http://localhost:8080 7f3c", description: "Cancel task 7f3c" }]),
  Command.provide(FetchHttpClient.layer)
)
