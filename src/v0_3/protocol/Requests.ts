/**
 * A2A 0.3 <-> 1.0: the request parameters of each operation (0.3 JSON-RPC `params` <-> 1.0 request messages).
 *
 * | 0.3 method                          | 0.3 params                              | 1.0 request                              |
 * | ----------------------------------- | --------------------------------------- | ---------------------------------------- |
 * | message/send, message/stream        | MessageSendParams                       | SendMessageRequest                       |
 * | tasks/get                           | TaskQueryParams {id, historyLength}     | GetTaskRequest                           |
 * | tasks/cancel                        | TaskIdParams {id, metadata}             | CancelTaskRequest                        |
 * | tasks/resubscribe                   | TaskIdParams {id}                       | SubscribeToTaskRequest                   |
 * | tasks/pushNotificationConfig/set    | TaskPushNotificationConfig (nested)     | TaskPushNotificationConfig (flat)        |
 * | tasks/pushNotificationConfig/get    | {id, pushNotificationConfigId?}         | GetTaskPushNotificationConfigRequest     |
 * | tasks/pushNotificationConfig/list   | {id}                                    | ListTaskPushNotificationConfigsRequest   |
 * | tasks/pushNotificationConfig/delete | {id, pushNotificationConfigId}          | DeleteTaskPushNotificationConfigRequest  |
 * | agent/getAuthenticatedExtendedCard  | none                                    | GetExtendedAgentCardRequest              |
 * | (none: 0.3 JSON-RPC has no tasks/list) |                                      | ListTasksRequest                         |
 *
 * - `MessageSendConfiguration.blocking` is the inverse of `returnImmediately`; both default to waiting, so an
 *   absent value stays absent.
 * - `metadata` of TaskQueryParams / TaskIdParams on get, resubscribe and the push-config methods has no 1.0
 *   field: dropped. `tenant` (1.0) has no 0.3 field: dropped.
 * - `tasks/pushNotificationConfig/get` without `pushNotificationConfigId` (early 0.3 clients kept one config per
 *   task) has no 1.0 equivalent on its own: `toV1GetPushConfig` returns `undefined` for it and the caller
 *   decides (the server edge looks the task's configs up).
 */
import type * as v0_3 from "../../protocol/generated/v0_3.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { fromV1Message, optional, toV1Message } from "./Messages.ts"
import { fromV1PushConfig, toV1PushConfig } from "./PushConfigs.ts"

// --- message/send, message/stream ---

/**
 * Translates an A2A 0.3 `SendConfiguration` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1SendConfiguration = (config: v0_3.MessageSendConfiguration): v1.SendMessageConfiguration => ({
  ...optional("acceptedOutputModes", config.acceptedOutputModes),
  ...optional("historyLength", config.historyLength),
  ...optional("returnImmediately", config.blocking === undefined ? undefined : !config.blocking),
  ...optional(
    "taskPushNotificationConfig",
    config.pushNotificationConfig === undefined ? undefined : toV1PushConfig(config.pushNotificationConfig)
  )
})

/**
 * Translates an A2A 1.0 `SendConfiguration` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1SendConfiguration = (config: v1.SendMessageConfiguration): v0_3.MessageSendConfiguration => ({
  ...optional("acceptedOutputModes", config.acceptedOutputModes),
  ...optional("historyLength", config.historyLength),
  ...optional("blocking", config.returnImmediately === undefined ? undefined : !config.returnImmediately),
  ...optional(
    "pushNotificationConfig",
    config.taskPushNotificationConfig === undefined ? undefined : fromV1PushConfig(config.taskPushNotificationConfig)
  )
})

/**
 * Translates an A2A 0.3 `SendMessageRequest` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1SendMessageRequest = (params: v0_3.MessageSendParams): v1.SendMessageRequest => ({
  message: toV1Message(params.message),
  ...optional(
    "configuration",
    params.configuration === undefined ? undefined : toV1SendConfiguration(params.configuration)
  ),
  ...optional("metadata", params.metadata)
})

/**
 * The message a client sends: ROLE_UNSPECIFIED goes out as `user`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromV1SendMessageRequest = (request: v1.SendMessageRequest): v0_3.MessageSendParams => ({
  message: fromV1Message(request.message, "user"),
  ...optional(
    "configuration",
    request.configuration === undefined ? undefined : fromV1SendConfiguration(request.configuration)
  ),
  ...optional("metadata", request.metadata)
})

// --- tasks/get, tasks/cancel, tasks/resubscribe ---

/**
 * Translates an A2A 0.3 `GetTaskRequest` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1GetTaskRequest = (params: v0_3.TaskQueryParams): v1.GetTaskRequest => ({
  id: params.id,
  ...optional("historyLength", params.historyLength)
})

/**
 * Translates an A2A 1.0 `GetTaskRequest` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1GetTaskRequest = (request: v1.GetTaskRequest): v0_3.TaskQueryParams => ({
  id: request.id,
  ...optional("historyLength", request.historyLength)
})

/**
 * Translates an A2A 0.3 `CancelTaskRequest` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1CancelTaskRequest = (params: v0_3.TaskIdParams): v1.CancelTaskRequest => ({
  id: params.id,
  ...optional("metadata", params.metadata)
})

/**
 * Translates an A2A 1.0 `CancelTaskRequest` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1CancelTaskRequest = (request: v1.CancelTaskRequest): v0_3.TaskIdParams => ({
  id: request.id,
  ...optional("metadata", request.metadata)
})

/**
 * Translates an A2A 0.3 `SubscribeRequest` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1SubscribeRequest = (params: v0_3.TaskIdParams): v1.SubscribeToTaskRequest => ({ id: params.id })

/**
 * Translates an A2A 1.0 `SubscribeRequest` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1SubscribeRequest = (request: v1.SubscribeToTaskRequest): v0_3.TaskIdParams => ({ id: request.id })

// --- tasks/pushNotificationConfig/* ---

/**
 * `undefined` when the 0.3 request names no config (see the module comment).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1GetPushConfig = (
  params: v0_3.GetTaskPushNotificationConfigParams | v0_3.TaskIdParams
): v1.GetTaskPushNotificationConfigRequest | undefined =>
  "pushNotificationConfigId" in params && params.pushNotificationConfigId !== undefined
    ? { taskId: params.id, id: params.pushNotificationConfigId }
    : undefined

/**
 * Translates an A2A 1.0 `GetPushConfig` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1GetPushConfig = (
  request: v1.GetTaskPushNotificationConfigRequest
): v0_3.GetTaskPushNotificationConfigParams => ({ id: request.taskId, pushNotificationConfigId: request.id })

/**
 * Translates an A2A 0.3 `ListPushConfigs` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1ListPushConfigs = (
  params: v0_3.ListTaskPushNotificationConfigParams
): v1.ListTaskPushNotificationConfigsRequest => ({ taskId: params.id })

/**
 * Translates an A2A 1.0 `ListPushConfigs` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1ListPushConfigs = (
  request: v1.ListTaskPushNotificationConfigsRequest
): v0_3.ListTaskPushNotificationConfigParams => ({ id: request.taskId })

/**
 * Translates an A2A 0.3 `DeletePushConfig` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1DeletePushConfig = (
  params: v0_3.DeleteTaskPushNotificationConfigParams
): v1.DeleteTaskPushNotificationConfigRequest => ({ taskId: params.id, id: params.pushNotificationConfigId })

/**
 * Translates an A2A 1.0 `DeletePushConfig` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1DeletePushConfig = (
  request: v1.DeleteTaskPushNotificationConfigRequest
): v0_3.DeleteTaskPushNotificationConfigParams => ({ id: request.taskId, pushNotificationConfigId: request.id })
