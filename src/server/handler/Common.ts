/**
 * What the RequestHandler's operations share: the services they read, whose tasks a request reaches, the caller's
 * task or TaskNotFound, and the refusals several operations answer with. Each concern module (Sending, Reading,
 * PushConfigs) is made from one `Shared`, built once by RequestHandler.make.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import {
  type A2AError,
  PushNotificationNotSupported,
  TaskNotFound,
  UnsupportedOperation
} from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import type * as Operations from "../../protocol/Operations.ts"
import { isTerminal } from "../../protocol/TaskStates.ts"
import type * as A2A11 from "../A2A11.ts"
import type { AgentCardConfig } from "../AgentCardConfig.ts"
import type { CallContext } from "../CallContext.ts"
import type * as TaskRunner from "../engine/TaskRunner.ts"
import type { EventBus } from "../EventBus.ts"
import * as Validation from "../internal/Validation.ts"
import type { PushConfigStore } from "../PushConfigStore.ts"
import { storageFailure, type TaskRecord, type TaskScope, type TaskStore } from "../TaskStore.ts"

/**
 * One function per A2A operation, named by its key (RequestHandler.Handlers): the concern modules each build some.
 *
 * @since 0.2.0
 * @category models
 */
export type Handlers = {
  readonly [Op in Operations.Any as Op["key"]]: (
    req: Operations.RequestOf<Op>,
    ctx: CallContext
  ) => Op["streaming"] extends true ? Stream.Stream<Operations.ResponseOf<Op>, A2AError>
    : Effect.Effect<Operations.ResponseOf<Op>, A2AError>
}

/**
 * What the operations are made from: the services in context, read once when the handler is made.
 *
 * @since 0.2.0
 * @category models
 */
export interface Shared {
  readonly store: TaskStore["Service"]
  readonly pushConfigs: PushConfigStore["Service"]
  readonly bus: EventBus["Service"]
  readonly cards: AgentCardConfig["Service"]
  /** The agent's declared capabilities (its card's). */
  readonly capabilities: v1.AgentCapabilities
  /** The engine: runs the agent for a message, and cancels tasks. */
  readonly runner: TaskRunner.TaskRunner
  /** The A2A 1.1 draft's settings (off unless the server turns it on). */
  readonly draft: A2A11.Settings
}

/**
 * ListTasks and ListTaskPushNotificationConfigs page size when the request sets none (spec 3.1.4).
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PAGE_SIZE = 50

/**
 * The largest page a list operation answers.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PAGE_SIZE = 100

/**
 * Whose tasks a request reaches: the caller's, under the request's tenant (spec 13.1). The tenant is the
 * request's `tenant` field (JSON-RPC param, REST `/{tenant}` prefix); none is the root, a scope of its own.
 *
 * @since 0.1.0
 * @category utils
 */
export const scopeOf = (req: { readonly tenant?: string | undefined }, ctx: CallContext): TaskScope => ({
  owner: ctx.principal.id,
  tenant: req.tenant ?? ""
})

/**
 * The answer to a task the caller does not have.
 *
 * @since 0.2.0
 * @category errors
 */
export const notFound = (taskId: string): TaskNotFound =>
  new TaskNotFound({ message: `Task ${taskId} not found`, metadata: { taskId } })

/**
 * The answer to a streaming operation on an agent that does not stream.
 *
 * @since 0.2.0
 * @category errors
 */
export const noStreaming = (): UnsupportedOperation =>
  new UnsupportedOperation({ message: "Streaming is not supported by this agent (capabilities.streaming is false)" })

/**
 * The answer to a push config operation on an agent without push notifications.
 *
 * @since 0.2.0
 * @category errors
 */
export const noPush = (): PushNotificationNotSupported =>
  new PushNotificationNotSupported({
    message: "Push notifications are not supported by this agent (capabilities.pushNotifications is false)"
  })

/**
 * What is wrong with a push config in a request; `prefix` is the config's path in the request ("" when the
 * request is the config itself).
 *
 * @since 0.2.0
 * @category utils
 */
export const pushConfigChecks = (prefix: string, config: v1.TaskPushNotificationConfig): Validation.Check =>
  Validation.httpUrl(`${prefix}url`, config.url)

/**
 * The caller's task, made into what `then` makes of it, or TaskNotFound: one step past the store's (its storage
 * error, found or not, and `then` in one match).
 *
 * @since 0.2.0
 * @category utils
 */
export const getOwnedThen = <A>(
  store: TaskStore["Service"],
  taskId: string,
  scope: TaskScope,
  then: (record: TaskRecord) => A
): Effect.Effect<A, A2AError> =>
  Effect.matchEffect(store.get(taskId, scope), {
    onFailure: storageFailure,
    onSuccess: (found) => Option.isSome(found) ? Effect.succeed(then(found.value)) : Effect.fail(notFound(taskId))
  })

/**
 * The caller's task, or TaskNotFound.
 *
 * @since 0.2.0
 * @category utils
 */
export const getOwned = (
  store: TaskStore["Service"],
  taskId: string,
  scope: TaskScope
): Effect.Effect<TaskRecord, A2AError> => getOwnedThen(store, taskId, scope, identity)

/** Whether a stream event ends a subscription or a wait: the task reached a terminal state. */
export const endsTask = (event: v1.StreamResponse): boolean =>
  "task" in event
    ? isTerminal(event.task.status.state)
    : "statusUpdate" in event
    ? isTerminal(event.statusUpdate.status.state)
    : false
