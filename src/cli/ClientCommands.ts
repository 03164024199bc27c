/**
 * The client subcommands as the CLI parses them: `card`, `send`, `get`, `cancel`, `subscribe` and `tasks` (their
 * arguments, flags, help). What each one does lives in its own module (CardCommand, SendCommand, TaskCommands),
 * loaded when the command runs: `effect-a2a serve` then starts without the client, its transports and 0.3's
 * client edition in memory.
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Option from "effect/Option"
import * as BindingFlag from "./BindingFlag.ts"
import type * as TaskModule from "./TaskCommands.ts"
import { CARD_TIMEOUT_SECONDS, REPLY_TIMEOUT_SECONDS } from "./Timeouts.ts"

// Loaded once, on first use (the module cache keeps them); a failure to load our own module is a defect.
const cardModule = Effect.promise(() => import("./CardCommand.ts"))
const sendModule = Effect.promise(() => import("./SendCommand.ts"))
const taskModule = Effect.promise(() => import("./TaskCommands.ts"))

/**
 * `effect-a2a card`: shows an agent's card.
 *
 * @since 0.1.0
 * @category commands
 */
export const cardCommand = Command.make(
  "card",
  {
    url: Argument.String("url").pipe(
      Argument.withDescription("Agent base URL (its card is at /.well-known/agent-card.json) or a card URL")
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the card as JSON instead of a summary"),
      Flag.withDefault(false)
    ),
    timeout: Flag.Finite("timeout").pipe(
      Flag.withDescription(`Seconds to wait for the card; default ${CARD_TIMEOUT_SECONDS}`),
      Flag.filter((n) => n > 0, (n) => `--timeout must be a positive number of seconds, got ${n}`),
      Flag.optional
    ),
    verify: Flag.Boolean("verify").pipe(
      Flag.withDescription(
        "Require a valid signature (spec 8.4), by a key from the JWKS its jku names on the card's own origin"
      ),
      Flag.withDefault(false)
    ),
    key: Flag.String("key").pipe(
      Flag.withDescription("Verify with the public key (JWK) or keys (JWKS) in this file instead (implies --verify)"),
      Flag.optional
    )
  },
  ({ json, key, timeout, url, verify }) =>
    Effect.flatMap(
      cardModule,
      (m) => m.showCard(url, { json, verify, key: Option.getOrUndefined(key), timeout: Option.getOrUndefined(timeout) })
    )
).pipe(
  Command.withDescription("Show an agent's card: identity, interfaces, capabilities, skills and security"),
  Command.withExamples([
    { command: "effect-a2a card http://localhost:8080", description: "Summarise the agent's card" },
    { command: "effect-a2a card http://localhost:8080 --json", description: "Print the card as JSON" },
    { command: "effect-a2a card https://agent.example.com --verify", description: "Check the card's signature" }
  ]),
  Command.provide(FetchHttpClient.layer)
)

/**
 * `effect-a2a send`: sends a text message to an agent and shows the answer.
 *
 * @since 0.1.0
 * @category commands
 */
export const sendCommand = Command.make(
  "send",
  {
    url: Argument.String("url").pipe(Argument.withDescription("Agent base URL or card URL")),
    text: Argument.String("text").pipe(Argument.withDescription("The message text")),
    stream: Flag.Boolean("stream").pipe(
      Flag.withDescription("Stream the reply: status changes and artifact text as they arrive"),
      Flag.withDefault(false)
    ),
    taskId: Flag.String("task-id").pipe(
      Flag.withDescription("Continue an existing task (e.g. one waiting for input)"),
      Flag.optional
    ),
    contextId: Flag.String("context-id").pipe(
      Flag.withDescription("Send within an existing conversation context"),
      Flag.optional
    ),
    binding: BindingFlag.flag,
    timeout: Flag.Finite("timeout").pipe(
      Flag.withDescription(
        `Seconds to wait for the reply (with --stream: for the stream to open); default ${REPLY_TIMEOUT_SECONDS}`
      ),
      Flag.filter((n) => n > 0, (n) => `--timeout must be a positive number of seconds, got ${n}`),
      Flag.optional
    ),
    token: Flag.Redacted("token").pipe(
      Flag.withDescription("Bearer token for the agent's HTTP Bearer / OAuth 2 / OpenID Connect schemes"),
      Flag.optional
    )
  },
  ({ timeout, url, text, ...options }) =>
    Effect.flatMap(sendModule, (m) => m.send(url, text, { ...options, timeout: Option.getOrUndefined(timeout) }))
).pipe(
  Command.withDescription("Send a text message to an agent and show its reply"),
  Command.withExamples([
    { command: "effect-a2a send http://localhost:8080 \"hello\"", description: "Send and print the reply" },
    { command: "effect-a2a send http://localhost:8080 \"write a poem\" --stream", description: "Stream the reply" },
    {
      command: "effect-a2a send http://localhost:8080 \"yes\" --task-id 7f3c --context-id 91ab",
      description: "Answer a task that asked for input"
    }
  ]),
  Command.provide(FetchHttpClient.layer)
)

const common = {
  url: Argument.String("url").pipe(Argument.withDescription("Agent base URL or card URL")),
  taskId: Argument.String("task-id").pipe(Argument.withDescription("The task's id")),
  token: Flag.Redacted("token").pipe(
    Flag.withDescription("Bearer token for the agent's HTTP Bearer / OAuth 2 / OpenID Connect schemes"),
    Flag.optional
  ),
  timeout: Flag.Finite("timeout").pipe(
    Flag.withDescription(`Seconds to wait for the agent; default ${REPLY_TIMEOUT_SECONDS}`),
    Flag.filter((n) => n > 0, (n) => `--timeout must be a positive number of seconds, got ${n}`),
    Flag.optional
  ),
  binding: BindingFlag.flag
}

/**
 * `effect-a2a get`: shows a task.
 *
 * @since 0.1.0
 * @category commands
 */
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
    Effect.flatMap(taskModule, (m) =>
      m.getTask(url, taskId, {
        token,
        binding,
        timeout: Option.getOrUndefined(timeout),
        historyLength: Option.getOrUndefined(historyLength)
      }))
).pipe(
  Command.withDescription("Show one task: its state, status message and artifacts"),
  Command.withExamples([{ command: "effect-a2a get http://localhost:8080 7f3c", description: "Show task 7f3c" }]),
  Command.provide(FetchHttpClient.layer)
)

/** A command on one task (`cancel`, `subscribe`): the common arguments, run by TaskCommands' `run`. */
type TaskModule = typeof TaskModule

const onTask = <E, R>(
  name: string,
  run: (module: TaskModule, url: string, taskId: string, options: TaskModule.TaskOptions) => Effect.Effect<void, E, R>,
  description: string,
  example: { readonly command: string; readonly description: string }
) =>
  Command.make(
    name,
    common,
    ({ binding, taskId, timeout, token, url }) =>
      Effect.flatMap(
        taskModule,
        (m) => run(m, url, taskId, { token, binding, timeout: Option.getOrUndefined(timeout) })
      )
  ).pipe(
    Command.withDescription(description),
    Command.withExamples([example]),
    Command.provide(FetchHttpClient.layer)
  )

/**
 * `effect-a2a cancel`: cancels a task.
 *
 * @since 0.1.0
 * @category commands
 */
export const cancelCommand = onTask(
  "cancel",
  (m, url, taskId, options) => m.cancelTask(url, taskId, options),
  "Cancel a task and show it as the agent answered",
  { command: "effect-a2a cancel http://localhost:8080 7f3c", description: "Cancel task 7f3c" }
)

/**
 * `effect-a2a subscribe`: follows a task until it is done or waits for input.
 *
 * @since 0.1.0
 * @category commands
 */
export const subscribeCommand = onTask(
  "subscribe",
  (m, url, taskId, options) => m.subscribe(url, taskId, options),
  "Follow a task's status changes and artifacts until it is done or waits for input",
  { command: "effect-a2a subscribe http://localhost:8080 7f3c", description: "Follow 7f3c" }
)

/**
 * `effect-a2a tasks`: lists tasks.
 *
 * @since 0.1.0
 * @category commands
 */
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
    Effect.flatMap(taskModule, (m) =>
      m.listTasks(url, {
        token,
        binding,
        timeout: Option.getOrUndefined(timeout),
        contextId: Option.getOrUndefined(contextId),
        pageSize: Option.getOrUndefined(pageSize)
      }))
).pipe(
  Command.withDescription("List your tasks on an agent, most recently updated first"),
  Command.withExamples([{ command: "effect-a2a tasks http://localhost:8080", description: "The last 20 tasks" }]),
  Command.provide(FetchHttpClient.layer)
)
