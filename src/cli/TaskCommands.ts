/**
 * `effect-a2a get`, `cancel`, `subscribe` and `tasks`: an agent's tasks, as `send` shows them (id, context, state,
 * status message, artifacts). Bounded by `--timeout` (for `subscribe`: the stream's opening); A2A errors
 * (TaskNotFound, TaskNotCancelable, ...) are one line and a non-zero exit.
 */
import * as Argument from "effect/cli/Argument"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as A2AClient from "../client/A2AClient.ts"
import type * as v1 from "../generated/v1.ts"
import { isFinal } from "../protocol/TaskStates.ts"
import * as BindingFlag from "./BindingFlag.ts"
import { userError } from "./CardCommand.ts"
import {
  DEFAULT_TIMEOUT_SECONDS,
  renderEvent,
  renderResponse,
  stateLabel,
  stateOf,
  tokenCredentials
} from "./SendCommand.ts"

export interface TaskOptions {
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** Use only this protocol binding (`--binding`); absent, the card's order decides. */
  readonly binding?: Option.Option<string> | undefined
  readonly timeout?: number | undefined
  /** GetTask only: at most this many messages of the history. */
  readonly historyLength?: number | undefined
}

const bindingOf = (options: TaskOptions) => options.binding ?? Option.none()

const clientFor = (url: string, options: TaskOptions) =>
  A2AClient.resolve(url, {
    timeout: Duration.seconds(options.timeout ?? DEFAULT_TIMEOUT_SECONDS),
    ...BindingFlag.resolveOptions(bindingOf(options)),
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
  }).pipe(Effect.provide(BindingFlag.clientLayer(bindingOf(options))))

/** Cancels the task and prints it as the agent answered. */
export const cancelTask = (url: string, taskId: string, options: TaskOptions) =>
  Effect.gen(function*() {
    const client = yield* clientFor(url, options)
    const task = yield* client.cancelTask({ id: taskId }).pipe(Effect.mapError(userError))
    yield* Console.log(renderResponse({ task }))
  }).pipe(Effect.provide(BindingFlag.clientLayer(bindingOf(options))))

/** Follows a task's events until it is done or waits for input, as `send --stream` shows them. */
export const subscribe = (url: string, taskId: string, options: TaskOptions) =>
  Effect.gen(function*() {
    const client = yield* clientFor(url, options)
    const stdio = yield* Stdio.Stdio
    let last: v1.TaskState | undefined
    yield* client.subscribeToTask({ id: taskId }).pipe(
      Stream.tap((event) => Effect.sync(() => (last = stateOf(event) ?? last))),
      Stream.mapAccum(
        (): { readonly midLine: boolean } => ({ midLine: false }),
        (state, event) => {
          const [next, out] = renderEvent(state, event)
          return [next, out === "" ? [] : [out]] as const
        },
        { onHalt: (state) => (state.midLine ? ["\n"] : []) }
      ),
      Stream.mapError(userError),
      Stream.run(stdio.stdout())
    )
    if (last !== undefined && !isFinal(last)) {
      return yield* new CliError.UserError({
        cause: last,
        userMessage: `The stream ended while the task was still ${stateLabel(last)}; it may still be running.`
      })
    }
  }).pipe(Effect.provide(BindingFlag.clientLayer(bindingOf(options))))

export interface ListOptions extends TaskOptions {
  readonly contextId?: string | undefined
  readonly pageSize?: number | undefined
}

/** Lists the caller's tasks, most recently updated first: one line each. */
export const listTasks = (url: string, options: ListOptions) =>
  Effect.gen(function*() {
    const client = yield* clientFor(url, options)
    const page = yield* client.listTasks({
      ...(options.contextId !== undefined ? { contextId: options.contextId } : {}),
      pageSize: options.pageSize ?? 20,
      historyLength: 0
    }).pipe(Effect.mapError(userError))
    if (page.tasks.length === 0) return yield* Console.log("No tasks.")
    for (const task of page.tasks) {
      yield* Console.log(`${task.id}  ${stateLabel(task.status.state)}  ${task.status.timestamp ?? ""}`.trimEnd())
    }
    if (page.nextPageToken !== "") yield* Console.log(`(${page.totalSize} in all; more with a larger --page-size)`)
  }).pipe(Effect.provide(BindingFlag.clientLayer(bindingOf(options))))

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
  ),
  binding: BindingFlag.flag
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
  ({ binding, historyLength, taskId, timeout, token, url }) =>
    getTask(url, taskId, {
      token,
      binding,
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
  ({ binding, taskId, timeout, token, url }) =>
    cancelTask(url, taskId, { token, binding, timeout: Option.getOrUndefined(timeout) })
).pipe(
  Command.withDescription("Cancel a task and show it as the agent answered"),
  Command.withExamples([{ command: "effect-a2a cancel http://localhost:8080 7f3c", description: "Cancel task 7f3c" }]),
  Command.provide(FetchHttpClient.layer)
)

export const subscribeCommand = Command.make(
  "subscribe",
  common,
  ({ binding, taskId, timeout, token, url }) =>
    subscribe(url, taskId, { token, binding, timeout: Option.getOrUndefined(timeout) })
).pipe(
  Command.withDescription("Follow a task's status changes and artifacts until it is done or waits for input"),
  Command.withExamples([{ command: "effect-a2a subscribe http://localhost:8080 7f3c", description: "Follow 7f3c" }]),
  Command.provide(FetchHttpClient.layer)
)

export const tasksCommand = Command.make(
  "tasks",
  {
    url: common.url,
    token: common.token,
    timeout: common.timeout,
    binding: common.binding,
    contextId: Flag.String("context-id").pipe(Flag.withDescription("Only the tasks of this context"), Flag.optional),
    pageSize: Flag.Int("page-size").pipe(
      Flag.withDescription("How many tasks to show (1 to 100); default 20"),
      Flag.filter((n) => n >= 1 && n <= 100, (n) => `--page-size must be between 1 and 100, got ${n}`),
      Flag.optional
    )
  },
  ({ binding, contextId, pageSize, timeout, token, url }) =>
    listTasks(url, {
      token,
      binding,
      timeout: Option.getOrUndefined(timeout),
      contextId: Option.getOrUndefined(contextId),
      pageSize: Option.getOrUndefined(pageSize)
    })
).pipe(
  Command.withDescription("List your tasks on an agent, most recently updated first"),
  Command.withExamples([{ command: "effect-a2a tasks http://localhost:8080", description: "The last 20 tasks" }]),
  Command.provide(FetchHttpClient.layer)
)
