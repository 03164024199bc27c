/**
 * `effect-a2a get`, `cancel`, `subscribe` and `tasks`: an agent's tasks, as `send` shows them (id, context, state,
 * status message, artifacts). Bounded by `--timeout` (for `subscribe`: the stream's opening); A2A errors
 * (TaskNotFound, TaskNotCancelable, ...) are one line and a non-zero exit. The arguments and flags are in
 * ClientCommands, which loads this module when one of these commands runs.
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
import type * as v1 from "../protocol/generated/v1.ts"
import { isFinal } from "../protocol/TaskStates.ts"
import * as BindingFlag from "./BindingFlag.ts"
import { userError } from "./CardCommand.ts"
import * as ClientLayer from "./ClientLayer.ts"
import { renderEvent, renderResponse, stateLabel, stateOf, tokenCredentials } from "./SendCommand.ts"
import { REPLY_TIMEOUT_SECONDS } from "./Timeouts.ts"

/**
 * Options of the commands on a task: the token and the binding.
 *
 * @since 0.1.0
 * @category models
 */
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
    timeout: Duration.seconds(options.timeout ?? REPLY_TIMEOUT_SECONDS),
    ...BindingFlag.resolveOptions(bindingOf(options)),
    ...(Option.isSome(options.token) ? { credentials: tokenCredentials(options.token.value) } : {})
  }).pipe(Effect.mapError(userError))

/**
 * Prints the task as it is now.
 *
 * @since 0.1.0
 * @category utils
 */
export const getTask = (url: string, taskId: string, options: TaskOptions) =>
  Effect.gen(function*() {
    const client = yield* clientFor(url, options)
    const task = yield* client.getTask({
      id: taskId,
      ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {})
    }).pipe(Effect.mapError(userError))
    yield* Console.log(renderResponse({ task }))
  }).pipe(Effect.provide(ClientLayer.forBinding(bindingOf(options))))

/**
 * Cancels the task and prints it as the agent answered.
 *
 * @since 0.1.0
 * @category utils
 */
export const cancelTask = (url: string, taskId: string, options: TaskOptions) =>
  Effect.gen(function*() {
    const client = yield* clientFor(url, options)
    const task = yield* client.cancelTask({ id: taskId }).pipe(Effect.mapError(userError))
    yield* Console.log(renderResponse({ task }))
  }).pipe(Effect.provide(ClientLayer.forBinding(bindingOf(options))))

/**
 * Follows a task's events until it is done or waits for input, as `send --stream` shows them.
 *
 * @since 0.1.0
 * @category utils
 */
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
  }).pipe(Effect.provide(ClientLayer.forBinding(bindingOf(options))))

/**
 * Options of `tasks`: the task options, a context to list and a page size.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends TaskOptions {
  readonly contextId?: string | undefined
  readonly pageSize?: number | undefined
}

/**
 * Lists the caller's tasks, most recently updated first: one line each.
 *
 * @since 0.1.0
 * @category utils
 */
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
  }).pipe(Effect.provide(ClientLayer.forBinding(bindingOf(options))))
